import Foundation

/// Where the browser tests find their tools; `scripts/setup.sh` installs both.
public enum HeadlessBrowser {
  public static let chromium = [
    "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome",
  ]
  .first { FileManager.default.isExecutableFile(atPath: $0) }

  public static let node = ["/usr/bin/node", "/usr/bin/nodejs"]
    .first { FileManager.default.isExecutableFile(atPath: $0) }

  /// The flags every test's Chromium runs with: headless, a throwaway profile, no sandbox
  /// (tests run as root), no first-run screens.
  public static func flags(profile: String) -> [String] {
    [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
      "--user-data-dir=\(profile)",
    ]
  }
}
