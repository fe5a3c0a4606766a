// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "Mowdeck",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "Events", targets: ["Events"]),
    .executable(name: "FanoutWorker", targets: ["FanoutWorker"]),
    .executable(name: "PhotoWorker", targets: ["PhotoWorker"]),
    .executable(name: "mowdeck", targets: ["mowdeck"]),
  ],
  targets: [
    // C bridges: one system library target per Debian package.
    .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
    .systemLibrary(name: "CNats", pkgConfig: "libnats", providers: [.apt(["libnats-dev"])]),
    .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),

    // The shared library: configuration, PostgreSQL, NATS, event log, clock, logs, metrics.
    .target(name: "Events", dependencies: ["CLibPQ", "CNats", "COpenSSL"]),

    .executableTarget(name: "FanoutWorker", dependencies: ["Events"]),
    .executableTarget(name: "PhotoWorker", dependencies: ["Events"]),
    .executableTarget(name: "mowdeck", dependencies: ["Events"]),
    // Test doubles that speak the real protocols.
    .executableTarget(name: "GatewaySimulator", dependencies: ["Events"]),

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
  ]
)
