import Events
import Foundation
import Infrastructure

/// The APNs sandbox's record of pushes (one JSON line each), read as it grows.
final class PushTail: @unchecked Sendable {
  struct Push {
    let time: Date
    let notificationID: String?
    let imageURL: String?
  }

  // Only the follower task (or one caller) reads; the lock keeps that honest.
  private let lock = NSLock()
  private let record: URL
  private var offset: UInt64 = 0
  private var partial: [UInt8] = []
  private var seenNotifications: Set<String> = []

  init(record: URL) { self.record = record }

  /// The pushes recorded since the last call (every push on the first call).
  func readNew() -> [Push] {
    lock.withLock {
      guard let handle = try? FileHandle(forReadingFrom: record) else { return [] }
      defer { try? handle.close() }
      try? handle.seek(toOffset: offset)
      let data = (try? handle.readToEnd()) ?? Data()
      offset += UInt64(data.count)
      var bytes = partial + Array(data)
      var pushes: [Push] = []
      var start = 0
      for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
        if let push = Self.parse(bytes[start..<index]) { pushes.append(push) }
        start = index + 1
      }
      bytes.removeFirst(start)
      partial = bytes
      return pushes
    }
  }

  /// True for the first push of a notification this tail has seen (one phone per alarm).
  func isFirstOfNotification(_ push: Push) -> Bool {
    guard let id = push.notificationID else { return false }
    return lock.withLock { seenNotifications.insert(id).inserted }
  }

  /// The fields of the sandbox's record line this tail reads.
  private struct RecordLine: Decodable {
    struct Payload: Decodable {
      let notificationID: String?
      let imageURL: String?
      enum CodingKeys: String, CodingKey {
        case notificationID = "notification_id"
        case imageURL = "image_url"
      }
    }
    let time: String
    let payload: Payload?
  }

  private static func parse(_ line: ArraySlice<UInt8>) -> Push? {
    guard let record = try? WireCoding.decode(RecordLine.self, from: Array(line)),
      let time = Timestamp.parse(record.time)
    else { return nil }
    return Push(
      time: time, notificationID: record.payload?.notificationID,
      imageURL: record.payload?.imageURL)
  }
}
