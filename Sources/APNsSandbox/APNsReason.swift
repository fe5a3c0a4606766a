import Events
import Infrastructure

/// The reason strings of Apple's provider API that the sandbox answers with, each with the
/// status Apple pairs it with. `BadPayload` is the sandbox's own: Apple documents no reason
/// for a body that is not a JSON object, and a test double should still refuse one.
enum APNsReason: String, Sendable, CaseIterable {
  case badCollapseId = "BadCollapseId"
  case badDeviceToken = "BadDeviceToken"
  case badExpirationDate = "BadExpirationDate"
  case badMessageId = "BadMessageId"
  case badPayload = "BadPayload"
  case badPriority = "BadPriority"
  case badTopic = "BadTopic"
  case duplicateHeaders = "DuplicateHeaders"
  case invalidPushType = "InvalidPushType"
  case missingDeviceToken = "MissingDeviceToken"
  case missingTopic = "MissingTopic"
  case payloadEmpty = "PayloadEmpty"
  case expiredProviderToken = "ExpiredProviderToken"
  case invalidProviderToken = "InvalidProviderToken"
  case missingProviderToken = "MissingProviderToken"
  case badPath = "BadPath"
  case methodNotAllowed = "MethodNotAllowed"
  case unregistered = "Unregistered"
  case payloadTooLarge = "PayloadTooLarge"
  case tooManyRequests = "TooManyRequests"
  case internalServerError = "InternalServerError"
  case serviceUnavailable = "ServiceUnavailable"

  var status: Int {
    switch self {
    case .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPayload,
      .badPriority, .badTopic, .duplicateHeaders, .invalidPushType, .missingDeviceToken,
      .missingTopic, .payloadEmpty:
      return 400
    case .expiredProviderToken, .invalidProviderToken, .missingProviderToken: return 403
    case .badPath: return 404
    case .methodNotAllowed: return 405
    case .unregistered: return 410
    case .payloadTooLarge: return 413
    case .tooManyRequests: return 429
    case .internalServerError: return 500
    case .serviceUnavailable: return 503
    }
  }
}

/// The status line and body of one APNs answer.
struct Answer: Sendable, Equatable {
  var status: Int
  /// Nil for 200, which has no body.
  var reason: String?
  /// Milliseconds since 1970, only with 410: when APNs last learned the token was invalid.
  var timestamp: Int64?

  static let accepted = Answer(status: 200)

  init(status: Int, reason: String? = nil, timestamp: Int64? = nil) {
    self.status = status
    self.reason = reason
    self.timestamp = timestamp
  }

  init(_ reason: APNsReason) {
    self.init(status: reason.status, reason: reason.rawValue)
  }

  /// `{"reason":"..."}`, plus `"timestamp"` for 410; empty for 200.
  var body: [UInt8] {
    guard let reason else { return [] }
    return WireCoding.encode(ErrorBody(reason: reason, timestamp: timestamp))
  }

  /// APNs's error body; `timestamp` is left out when nil, as APNs does.
  private struct ErrorBody: Encodable {
    let reason: String
    let timestamp: Int64?
  }
}
