import Foundation
import Infrastructure

/// A test double's record file (one JSON object a line, appended whole), read as typed
/// lines: what the double received and answered, for the tests to check.
public struct RecordFile<Line: Decodable & Sendable>: Sendable {
  public let url: URL

  public init(_ url: URL, of: Line.Type = Line.self) { self.url = url }

  /// Every line recorded so far.
  public func lines() throws -> [Line] {
    guard let data = FileManager.default.contents(atPath: url.path) else { return [] }
    return try data.split(separator: UInt8(ascii: "\n")).map {
      try WireCoding.decode(Line.self, from: Array($0))
    }
  }

  /// Waits until `count` lines have been recorded (the doubles record before they answer,
  /// so this is for requests made by other processes).
  public func waitForLines(_ count: Int, timeout: Duration = .seconds(20)) async throws -> [Line] {
    var lines: [Line] = []
    try await eventually(timeout: timeout, "\(count) lines in \(url.lastPathComponent)") {
      lines = try self.lines()
      return lines.count >= count
    }
    return lines
  }
}
