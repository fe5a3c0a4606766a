/// What the sandbox does, for a chosen device token, with a request that passed every check.
///
/// Written `ACTION[xN]`: with `xN` only the first N such requests for the token get the
/// action and later ones the normal answer (`500x2`: two 500s, then 200s).
struct Behaviour: Sendable, Equatable {
  enum Action: Sendable, Equatable {
    /// Answer with this status and reason instead of 200 (200 itself means "normal").
    case answer(Answer)
    /// The normal answer, after this many milliseconds; other streams go on meanwhile.
    case slow(milliseconds: Int)
    /// The answer, then GOAWAY (NO_ERROR): the client must open a new connection.
    case goawayAfterAnswer
    /// GOAWAY whose last stream id excludes this request, which is never answered: the
    /// client sees it refused and may retry it safely on a new connection.
    case goawayInstead
    /// The TCP connection closed at once, without TLS close or GOAWAY.
    case drop
  }

  let action: Action
  /// Nil: every request.
  let times: Int?
  /// As written, for the record file and logs.
  let spec: String

  struct Invalid: Error, CustomStringConvertible {
    let spec: String
    var description: String {
      "bad behaviour \"\(spec)\": expected ACTION[xN], ACTION one of 200, 400[:REASON], "
        + "403[:REASON], 410[:MILLISECONDS], 429, 500, 503 (each with an optional :REASON), "
        + "slow:MILLISECONDS, goaway, goaway:instead, drop"
    }
  }

  /// Statuses a behaviour may answer with, and the reason each gets when none is given.
  private static let defaultReasons: [Int: APNsReason] = [
    400: .badDeviceToken, 403: .invalidProviderToken, 410: .unregistered, 413: .payloadTooLarge,
    429: .tooManyRequests, 500: .internalServerError, 503: .serviceUnavailable,
  ]

  init(parsing spec: String) throws(Invalid) {
    self.spec = spec
    var text = Substring(spec)
    // `xN` at the very end; no reason string of Apple's ends in "x" and digits.
    if let x = text.lastIndex(of: "x"), x > text.startIndex {
      let digits = text[text.index(after: x)...]
      if !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) {
        guard let count = Int(digits), count > 0 else { throw Invalid(spec: spec) }
        times = count
        text = text[..<x]
      } else {
        times = nil
      }
    } else {
      times = nil
    }
    guard let action = Self.action(text) else { throw Invalid(spec: spec) }
    self.action = action
  }

  private static func action(_ text: Substring) -> Action? {
    let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
    let argument = parts.count == 2 ? parts[1] : nil
    switch parts[0] {
    case "drop" where argument == nil: return .drop
    case "goaway" where argument == nil || argument == "after": return .goawayAfterAnswer
    case "goaway" where argument == "instead": return .goawayInstead
    case "slow":
      guard let argument, argument.allSatisfy(\.isASCIIDigit), let ms = Int(argument) else {
        return nil
      }
      return .slow(milliseconds: ms)
    case "200" where argument == nil: return .answer(.accepted)
    case "410":
      guard let argument else { return .answer(Answer(.unregistered)) }
      guard argument.allSatisfy(\.isASCIIDigit), let ms = Int64(argument) else { return nil }
      return .answer(Answer(status: 410, reason: APNsReason.unregistered.rawValue, timestamp: ms))
    default:
      guard parts[0].allSatisfy(\.isASCIIDigit), let status = Int(parts[0]),
        let reason = defaultReasons[status]
      else { return nil }
      guard let argument else { return .answer(Answer(reason)) }
      guard !argument.isEmpty, argument.allSatisfy(\.isASCIILetter) else { return nil }
      return .answer(Answer(status: status, reason: String(argument)))
    }
  }
}

extension Character {
  fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
  fileprivate var isASCIILetter: Bool { isASCII && isLetter }
}
