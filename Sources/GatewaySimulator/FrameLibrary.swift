import Events
import Foundation
import Infrastructure

/// The frames the simulated cameras send, read once at start.
struct FrameLibrary: Sendable {
  let frames: [[UInt8]]

  init(directory: String) throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: directory)
      .filter { $0.lowercased().hasSuffix(".jpg") || $0.lowercased().hasSuffix(".jpeg") }.sorted()
    frames = try names.map {
      Array(try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent($0)))
    }.filter { $0.count <= ImageLimits.largestPhotoBytes }
    guard !frames.isEmpty else {
      throw SimulatorOptions.Invalid(
        description: "no JPEG frames of at most 512 KiB in \(directory)")
    }
  }

  /// A structurally complete JPEG of exactly `size` bytes: SOI, a comment segment of
  /// padding, EOI. Enough for the worker's checks, which do not decode.
  static func synthetic(size: Int) -> [UInt8] {
    precondition(size >= 5)
    var bytes: [UInt8] = [0xFF, 0xD8, 0xFF]
    bytes += [UInt8](repeating: 0x20, count: size - 5)
    bytes += [0xFF, 0xD9]
    return bytes
  }
}
