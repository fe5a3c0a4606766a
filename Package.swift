// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "Mowdeck",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "Events", targets: ["Events"]),
    .executable(name: "FanoutWorker", targets: ["FanoutWorker"]),
    .executable(name: "PhotoWorker", targets: ["PhotoWorker"]),
    .executable(name: "APNsWorker", targets: ["APNsWorker"]),
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

    // The shared library: configuration, PostgreSQL, NATS, event log, clock, logs, metrics.
    .target(
      name: "Events",
      dependencies: ["CLibPQ", "CNats", "COpenSSL", "CMicroHTTPD", "CMicroHTTPDShim"]),

    .executableTarget(name: "FanoutWorker", dependencies: ["Events"]),
    .executableTarget(name: "PhotoWorker", dependencies: ["Events"]),
    .executableTarget(
      name: "APNsWorker", dependencies: ["Events", "CCurl", "CCurlShim", "COpenSSL"]),
    .executableTarget(name: "ImageServeWorker", dependencies: ["Events"]),
    .executableTarget(name: "PruneWorker", dependencies: ["Events"]),
    .executableTarget(name: "mowdeck", dependencies: ["Events"]),
    // Test doubles that speak the real protocols.
    .executableTarget(name: "GatewaySimulator", dependencies: ["Events"]),
    .executableTarget(
      name: "APNsSandbox", dependencies: ["Events", "CNghttp2", "COpenSSL", "CSandboxShim"]),

    // Benchmarks that print tables (`scripts/bench.sh`); they reuse the test harness.
    .executableTarget(name: "mowdeck-bench", dependencies: ["Events", "TestSupport"]),

    // Shared by the test targets and the benchmarks: throwaway schemas, subjects and worker processes.
    .target(name: "TestSupport", dependencies: ["Events"], path: "Tests/TestSupport"),

    .testTarget(name: "EventsTests", dependencies: ["Events", "TestSupport"]),
    .testTarget(
      name: "FanoutWorkerTests", dependencies: ["FanoutWorker", "Events", "TestSupport"]),
    .testTarget(name: "MowdeckTests", dependencies: ["Events", "TestSupport"]),
    .testTarget(
      name: "PhotoWorkerTests", dependencies: ["PhotoWorker", "Events", "TestSupport"]),
    .testTarget(
      name: "APNsWorkerTests", dependencies: ["APNsWorker", "Events", "TestSupport"]),
    .testTarget(
      name: "APNsSandboxTests", dependencies: ["APNsSandbox", "Events", "TestSupport"]),
    .testTarget(
      name: "ImageServeWorkerTests", dependencies: ["ImageServeWorker", "Events", "TestSupport"]),
    .testTarget(name: "EndToEndTests", dependencies: ["Events", "TestSupport"]),
    .testTarget(
      name: "PruneWorkerTests", dependencies: ["PruneWorker", "Events", "TestSupport"]),
  ]
)
