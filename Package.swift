// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "Mowdeck",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "Infrastructure", targets: ["Infrastructure"]),
    .library(name: "Events", targets: ["Events"]),
    .executable(name: "FanoutWorker", targets: ["FanoutWorker"]),
    .executable(name: "PhotoWorker", targets: ["PhotoWorker"]),
    .executable(name: "APNsWorker", targets: ["APNsWorker"]),
    .executable(name: "WebPushWorker", targets: ["WebPushWorker"]),
    .executable(name: "NtfyWorker", targets: ["NtfyWorker"]),
    .executable(name: "FCMWorker", targets: ["FCMWorker"]),
    .executable(name: "ImageServeWorker", targets: ["ImageServeWorker"]),
    .executable(name: "PruneWorker", targets: ["PruneWorker"]),
    .executable(name: "mowdeck", targets: ["mowdeck"]),
  ],
  targets: [
    // C bridges: one system library target per Debian package.
    .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
    .systemLibrary(name: "CNats", pkgConfig: "libnats", providers: [.apt(["libnats-dev"])]),
    .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
    .systemLibrary(
      name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
    .systemLibrary(
      name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
    .systemLibrary(
      name: "CNghttp2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
    // Typed, non-variadic wrappers for C APIs Swift cannot call (MHD_start_daemon,
    // curl_easy_setopt), one small C target per library.
    .target(name: "CMicroHTTPDShim", dependencies: ["CMicroHTTPD"]),
    .target(name: "CCurlShim", dependencies: ["CCurl"]),
    .target(name: "CSandboxShim", dependencies: ["CNghttp2", "COpenSSL"]),

    // What any server needs and that knows nothing of mowers: PostgreSQL, NATS, HTTP,
    // metrics, logs, lifecycle, configuration reading, JSON and crypto primitives.
    .target(
      name: "Infrastructure",
      dependencies: [
        "CLibPQ", "CNats", "COpenSSL", "CMicroHTTPD", "CMicroHTTPDShim", "CCurl", "CCurlShim",
      ]),
    // The system's own language: events and the event log, wire messages and subjects,
    // the schema, the directory, alarm texts, image limits and the signed image URL.
    .target(name: "Events", dependencies: ["Infrastructure"]),

    .executableTarget(name: "FanoutWorker", dependencies: ["Events", "Infrastructure"]),
    .executableTarget(name: "PhotoWorker", dependencies: ["Events", "Infrastructure"]),
    .executableTarget(
      name: "APNsWorker", dependencies: ["Events", "Infrastructure", "CCurl", "CCurlShim"]),
    .executableTarget(name: "WebPushWorker", dependencies: ["Events", "Infrastructure"]),
    .executableTarget(name: "NtfyWorker", dependencies: ["Events", "Infrastructure"]),
    .executableTarget(name: "FCMWorker", dependencies: ["Events", "Infrastructure"]),
    .executableTarget(name: "ImageServeWorker", dependencies: ["Events", "Infrastructure"]),
    .executableTarget(name: "PruneWorker", dependencies: ["Events", "Infrastructure"]),
    .executableTarget(name: "mowdeck", dependencies: ["Events", "Infrastructure"]),
    // Test doubles that speak the real protocols.
    .executableTarget(name: "GatewaySimulator", dependencies: ["Events", "Infrastructure"]),
    // The HTTP/2 server (TLS with ALPN h2, nghttp2, one thread) of the doubles of APNs and FCM.
    .target(name: "SandboxHTTP2", dependencies: ["Infrastructure", "CNghttp2", "COpenSSL", "CSandboxShim"]),
    .executableTarget(
      name: "APNsSandbox", dependencies: ["Events", "Infrastructure", "COpenSSL", "SandboxHTTP2"]),
    .executableTarget(name: "WebPushSandbox", dependencies: ["Infrastructure"]),
    .executableTarget(name: "FCMSandbox", dependencies: ["Infrastructure", "SandboxHTTP2"]),
    .executableTarget(name: "NtfySandbox", dependencies: ["Infrastructure"]),

    // Benchmarks that print tables (`scripts/bench.sh`); they reuse the test harness.
    .executableTarget(name: "mowdeck-bench", dependencies: ["Events", "Infrastructure", "TestSupport"]),

    // Shared by the test targets and the benchmarks: throwaway schemas, subjects and worker processes.
    .target(name: "TestSupport", dependencies: ["Events", "Infrastructure"], path: "Tests/TestSupport"),

    .testTarget(name: "InfrastructureTests", dependencies: ["Infrastructure", "TestSupport"]),
    .testTarget(name: "EventsTests", dependencies: ["Events", "Infrastructure", "TestSupport"]),
    .testTarget(
      name: "FanoutWorkerTests", dependencies: ["FanoutWorker", "Events", "Infrastructure", "TestSupport"]),
    .testTarget(name: "MowdeckTests", dependencies: ["Events", "Infrastructure", "TestSupport"]),
    .testTarget(
      name: "PhotoWorkerTests", dependencies: ["PhotoWorker", "Events", "Infrastructure", "TestSupport"]),
    .testTarget(
      name: "APNsWorkerTests", dependencies: ["APNsWorker", "Events", "Infrastructure", "TestSupport"]),
    .testTarget(
      name: "WebPushWorkerTests",
      dependencies: ["WebPushWorker", "Events", "Infrastructure", "TestSupport"]),
    .testTarget(
      name: "NtfyWorkerTests",
      dependencies: ["NtfyWorker", "Events", "Infrastructure", "TestSupport"]),
    .testTarget(
      name: "FCMWorkerTests",
      dependencies: ["FCMWorker", "Events", "Infrastructure", "TestSupport"]),
    .testTarget(
      name: "APNsSandboxTests", dependencies: ["APNsSandbox", "Events", "Infrastructure", "TestSupport"]),
    .testTarget(
      name: "WebPushSandboxTests", dependencies: ["WebPushSandbox", "Infrastructure", "TestSupport"]),
    .testTarget(
      name: "FCMSandboxTests", dependencies: ["FCMSandbox", "Infrastructure", "TestSupport"]),
    .testTarget(
      name: "NtfySandboxTests", dependencies: ["NtfySandbox", "Infrastructure", "TestSupport"]),
    .testTarget(
      name: "ImageServeWorkerTests", dependencies: ["ImageServeWorker", "Events", "Infrastructure", "TestSupport"]),
    .testTarget(name: "EndToEndTests", dependencies: ["Events", "Infrastructure", "TestSupport"]),
    .testTarget(
      name: "PruneWorkerTests", dependencies: ["PruneWorker", "Events", "Infrastructure", "TestSupport"]),
  ]
)
