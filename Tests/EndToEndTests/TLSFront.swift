import Foundation
import TestSupport

/// TLS in front of the serving process, as the owner's reverse proxy would be (socat with
/// the test PKI's certificate for localhost), and the phone's fetch through it.
struct TLSFront {
  let port: Int
  let pki: URL
  private let process: ChildProcess

  init(to backend: Int) throws {
    pki = try APNsSandboxHarness.pki()
    port = try freePort()
    let certificate = pki.appendingPathComponent("server.pem").path
    let key = pki.appendingPathComponent("server.key").path
    process = try ChildProcess(
      executable: "/usr/bin/env",
      arguments: [
        "socat",
        "OPENSSL-LISTEN:\(port),reuseaddr,fork,bind=127.0.0.1,cert=\(certificate),key=\(key),verify=0",
        "TCP:127.0.0.1:\(backend)",
      ], environment: ProcessInfo.processInfo.environment, output: nil, errors: nil)
    let port = port
    let deadline = ContinuousClock.now + .seconds(10)
    while (try? runShell(
      "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\",\(port)),0.2)'")) == nil
    {
      guard ContinuousClock.now < deadline else { throw TimedOut(what: "socat to listen") }
      usleep(50_000)
    }
  }

  /// `scripts/phone-fetch.sh --each`: push-image-fetch for every URL, trusting the test CA.
  /// Returns each URL with the command's exit status (0 attached, 1 gave up).
  ///
  /// push-image-fetch runs on swift-corelibs-foundation's URLSession, which crashed once
  /// (SIGSEGV, exit 139) in several thousand fetches. A fetch that ended by a signal is
  /// asked once more and reported on standard output; one that crashes twice stays in the
  /// result and fails the check.
  func phoneFetch(_ urls: [String]) throws -> [(url: String, status: Int32)] {
    var results = try phoneFetchOnce(urls)
    let crashed = results.filter { $0.status >= 128 }.map(\.url)
    guard !crashed.isEmpty else { return results }
    print("push-image-fetch crashed on \(crashed.count) URL(s), asking again: \(crashed)")
    let again = Dictionary(try phoneFetchOnce(crashed).map { ($0.url, $0.status) }) { $1 }
    results = results.map { ($0.url, $0.status >= 128 ? again[$0.url] ?? $0.status : $0.status) }
    return results
  }

  private func phoneFetchOnce(_ urls: [String]) throws -> [(url: String, status: Int32)] {
    let list = FileManager.default.temporaryDirectory.appendingPathComponent(
      "phone-urls-\(UUID().uuidString.prefix(8))")
    try (urls.joined(separator: "\n") + "\n").write(to: list, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: list) }
    let output = FileManager.default.temporaryDirectory.appendingPathComponent(
      "phone-photos-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: output) }
    let script = TestServers.repositoryPath("scripts/phone-fetch.sh")
    let ca = pki.appendingPathComponent("ca.pem").path
    let lines = try runShell(
      "'\(script)' '\(ca)' --each '\(list.path)' --output-dir '\(output.path)'")
    return lines.split(separator: "\n").compactMap { line in
      let parts = line.split(separator: " ", maxSplits: 1)
      guard parts.count == 2, let status = Int32(parts[0]) else { return nil }
      return (String(parts[1]), status)
    }
  }

  func stop() {
    process.send(SIGTERM)
    process.waitUntilExit()
  }
}
