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
