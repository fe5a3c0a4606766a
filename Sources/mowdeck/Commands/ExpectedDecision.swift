import Foundation
import Infrastructure

/// One line of an expected-decisions file (`*.expected.jsonl`, described in the fixtures'
/// README): what the contract prescribes for the alarm on the same line of the alarms file.
/// Only what `check-decisions` compares is read; `mower_id`, `kind` and a rejection's
/// `reason` are there for people.
struct ExpectedDecision: Decodable, Equatable {
  /// `pushed`, `suppressed`, `duplicate` or `rejected`.
  let decision: String
  /// Absent for a rejected payload.
  let eventID: String?
  /// Users notified, for a pushed alarm.
  let notifications: Int?
  /// `none`, `reserved` or `skipped:<reason>`, for a pushed alarm.
  let photo: String?

  enum CodingKeys: String, CodingKey {
    case decision
    case eventID = "event_id"
    case notifications, photo
  }

  /// Every line of the file, in order; a line that does not read stops the check (exit 2),
  /// naming it.
  static func load(path: String) throws -> [ExpectedDecision] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    return try text.split(separator: "\n", omittingEmptySubsequences: true).enumerated().map {
      index, line in
      do {
        return try WireCoding.decode(ExpectedDecision.self, from: Array(line.utf8))
      } catch {
        throw UsageError("\(path) line \(index + 1): \(error)")
      }
    }
  }
}
