import Foundation
import Infrastructure

/// One record line: what a push carried and what it was answered. Every key is always
/// written, null when it does not apply, so that readers need no guesswork.
struct RecordLine: Codable, Equatable, Sendable {
  var time: Date
  var subscription: String
  var status: Int
  var error: String?
  var ttl: Int?
  var urgency: String?
  var topic: String?
  var vapidSub: String?
  var vapidAud: String?
  var payload: String?
  var payloadBytes: Int

  enum CodingKeys: String, CodingKey {
    case time, subscription, status, error, ttl, urgency, topic
    case vapidSub = "vapid_sub"
    case vapidAud = "vapid_aud"
    case payload
    case payloadBytes = "payload_bytes"
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(time, forKey: .time)
    try container.encode(subscription, forKey: .subscription)
    try container.encode(status, forKey: .status)
    // `encode` of an Optional writes null; the synthesized `encodeIfPresent` would omit it.
    try container.encode(error, forKey: .error)
    try container.encode(ttl, forKey: .ttl)
    try container.encode(urgency, forKey: .urgency)
    try container.encode(topic, forKey: .topic)
    try container.encode(vapidSub, forKey: .vapidSub)
    try container.encode(vapidAud, forKey: .vapidAud)
    try container.encode(payload, forKey: .payload)
    try container.encode(payloadBytes, forKey: .payloadBytes)
  }
}

/// Appends one JSON line per push to the `--record` file. Each line is one `write(2)` on a
/// file opened with `O_APPEND`: a reader never sees half a line, lines written from several
/// server threads never interleave, and nothing is lost if the sandbox is killed.
final class Recorder: Sendable {
  private let descriptor: Int32

  struct CannotOpen: Error, CustomStringConvertible {
    let path: String
    let reason: String
    var description: String { "cannot open the record file \(path): \(reason)" }
  }

  init(path: String) throws(CannotOpen) {
    descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw CannotOpen(path: path, reason: String(cString: strerror(errno)))
    }
  }

  deinit { close(descriptor) }

  func record(_ line: RecordLine) {
    let bytes = WireCoding.encode(line) + [UInt8(ascii: "\n")]
    var written = 0
    while written < bytes.count {
      let result = bytes.withUnsafeBytes {
        write(descriptor, $0.baseAddress! + written, $0.count - written)
      }
      if result < 0, errno == EINTR { continue }
      guard result > 0 else { return }
      written += result
    }
  }
}
