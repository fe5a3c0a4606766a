import Foundation
import Infrastructure

/// What ntfy checks of a publish, in its order: the topic, the access token, the headers
/// (each under ntfy's aliases, RFC 2047 words decoded) and the body. A publish that passes
/// becomes the message ntfy would keep; the record line gets everything that was read.
struct PublishCheck {
  /// The token publishes must carry; nil: the server is open.
  let token: String?

  /// ntfy's `message-size-limit`.
  static let maximumMessageBytes = 4096

  func check(
    _ request: HTTPRequest, topic: String, pathSequenceID: String?, now: Date,
    line: inout RecordLine
  ) -> Result<NtfyMessage, NtfyError> {
    guard Self.isValidName(topic) else { return .failure(.topicInvalid) }
    let authorization = request.headers["Authorization"]
    line.token = authorization.flatMap(Self.bearer)
    if let token {
      guard authorization != nil else { return .failure(.forbidden) }
      guard line.token == token else { return .failure(.unauthorized) }
    }
    func header(_ names: String...) -> String? {
      names.lazy.compactMap { request.headers[$0] }.first.map {
        EncodedWords.decode($0.trimmingCharacters(in: .whitespaces))
      }
    }
    line.title = header("X-Title", "Title", "ti", "t")
    line.click = header("X-Click", "Click")
    line.attach = header("X-Attach", "Attach", "a")
    line.filename = header("X-Filename", "Filename", "file", "f")
    line.sequenceID = pathSequenceID ?? header("X-Sequence-ID", "Sequence-ID", "SID")
    line.tags = header("X-Tags", "Tags", "tag", "ta").map {
      $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }
    }
    if let text = header("X-Priority", "Priority", "prio", "p") {
      guard let priority = Self.priority(text) else { return .failure(.priorityInvalid) }
      line.priority = priority
    }
    if let attach = line.attach, !Self.isHTTPURL(attach) {
      return .failure(.attachmentURLInvalid)
    }
    if let sequenceID = line.sequenceID, !Self.isValidName(sequenceID) {
      return .failure(.sequenceIDInvalid)
    }
    guard request.body.count <= Self.maximumMessageBytes,
      let body = String(validating: request.body, as: UTF8.self)
    else { return .failure(.attachmentsDisallowed) }
    line.message = body.isEmpty ? "triggered" : body
    return .success(message(topic: topic, line: line, now: now))
  }

  private func message(topic: String, line: RecordLine, now: Date) -> NtfyMessage {
    let time = Int(now.timeIntervalSince1970)
    return NtfyMessage(
      id: Self.newID(), time: time, expires: time + NtfyMessage.cacheSeconds, event: "message",
      topic: topic, title: line.title.flatMap { $0.isEmpty ? nil : $0 },
      message: line.message ?? "triggered", priority: line.priority.flatMap { $0 == 0 ? nil : $0 },
      tags: line.tags.flatMap { $0.isEmpty ? nil : $0 },
      click: line.click.flatMap { $0.isEmpty ? nil : $0 },
      attachment: line.attach.map {
        NtfyMessage.Attachment(name: Self.attachmentName(url: $0, filename: line.filename), url: $0)
      },
      sequenceID: line.sequenceID)
  }

  /// Topics and sequence ids: 1 to 64 characters of `[-_A-Za-z0-9]`.
  static func isValidName(_ name: some StringProtocol) -> Bool {
    (1...64).contains(name.utf8.count)
      && name.utf8.allSatisfy { c in
        (65...90).contains(c) || (97...122).contains(c) || (48...57).contains(c) || c == 45
          || c == 95
      }
  }

  /// ntfy's priorities: 1 to 5 or their names; 0 for an RFC 9218 `Priority` (`u=3, i`),
  /// which ntfy ignores so that it works behind proxies that add one; nil when invalid.
  static func priority(_ text: String) -> Int? {
    let value = text.lowercased()
    if value.hasPrefix("u=") { return 0 }
    switch value {
    case "": return 0
    case "3", "default": return 3
    case "1", "min": return 1
    case "2", "low": return 2
    case "4", "high": return 4
    case "5", "max", "urgent": return 5
    default: return nil
    }
  }

  /// The token of `Bearer <token>`, nil for any other scheme.
  static func bearer(_ authorization: String) -> String? {
    let parts = authorization.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
    return String(parts[1]).trimmingCharacters(in: .whitespaces)
  }

  static func isHTTPURL(_ text: String) -> Bool {
    let lower = text.lowercased()
    return (lower.hasPrefix("https://") && lower.count > 8)
      || (lower.hasPrefix("http://") && lower.count > 7)
  }

  /// `Filename`, else the URL's last path segment, else "attachment", as ntfy names an
  /// attachment given by URL.
  static func attachmentName(url: String, filename: String?) -> String {
    if let filename, !filename.isEmpty { return filename }
    let last = URLComponents(string: url)?.path.split(separator: "/").last.map(String.init)
    return last ?? "attachment"
  }

  /// 12 characters of `[a-zA-Z0-9]`, as ntfy's message ids.
  static func newID() -> String {
    let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    var generator = SystemRandomNumberGenerator()
    return String((0..<12).map { _ in alphabet.randomElement(using: &generator)! })
  }
}
