// swift-tools-version: 6.0
import PackageDescription

// The push-image decisions of the Notification Service Extension, as a package that builds and
// tests on Linux as on Apple platforms. The Xcode extension target links the library product.
let package = Package(
  name: "NotificationServiceKit",
  // ContinuousClock and Duration need iOS 16 / macOS 13.
  platforms: [.iOS(.v16), .macOS(.v13)],
  products: [
    .library(name: "NotificationServiceKit", targets: ["NotificationServiceKit"]),
    .executable(name: "push-image-fetch", targets: ["push-image-fetch"]),
  ],
  targets: [
    .target(name: "NotificationServiceKit"),
    .executableTarget(name: "push-image-fetch", dependencies: ["NotificationServiceKit"]),
    .testTarget(name: "NotificationServiceKitTests", dependencies: ["NotificationServiceKit"]),
  ],
  swiftLanguageModes: [.v6]
)

#if os(Linux)
  // Linux only (ADR 0038): the extension's own source, App/NotificationService/
  // NotificationService.swift (a symlink in LinuxTypeCheck/NotificationServiceExtension), is
  // compiled against a stand-in module named `UserNotifications` that declares the API the
  // extension uses, so a typo or a wrong signature fails `swift build` here, not on a Mac. On
  // Apple platforms neither target exists: the Xcode project compiles the file against the real
  // framework and links only the NotificationServiceKit library.
  package.targets += [
    .target(name: "UserNotifications", path: "LinuxTypeCheck/UserNotifications"),
    .target(
      name: "NotificationServiceExtension",
      dependencies: ["NotificationServiceKit", "UserNotifications"],
      path: "LinuxTypeCheck/NotificationServiceExtension"),
  ]
  for target in package.targets where target.name == "NotificationServiceKitTests" {
    target.dependencies += ["NotificationServiceExtension", "UserNotifications"]
  }
#endif
