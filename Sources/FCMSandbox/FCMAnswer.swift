/// What a valid message to a registration token is answered: success, or one of the error
/// codes FCM documents for the HTTP v1 API (`google.firebase.fcm.v1.ErrorCode`), each with
/// its HTTP status and `google.rpc` status.
enum FCMAnswer: String, CaseIterable, Sendable {
  case ok = "OK"
  /// The app was uninstalled or the token expired: the device must be dropped.
  case unregistered = "UNREGISTERED"
  /// The token is not a valid registration token (also: the message is malformed).
  case invalidArgument = "INVALID_ARGUMENT"
  /// The token belongs to another Firebase project's sender.
  case senderIDMismatch = "SENDER_ID_MISMATCH"
  case quotaExceeded = "QUOTA_EXCEEDED"
  case unavailable = "UNAVAILABLE"
  case `internal` = "INTERNAL"
  /// APNs or Web Push refused FCM's own credentials (for iOS and web tokens).
  case thirdPartyAuthError = "THIRD_PARTY_AUTH_ERROR"

  var status: Int {
    switch self {
    case .ok: return 200
    case .unregistered: return 404
    case .invalidArgument: return 400
    case .senderIDMismatch: return 403
    case .quotaExceeded: return 429
    case .unavailable: return 503
    case .internal: return 500
    case .thirdPartyAuthError: return 401
    }
  }

  /// May carry `Retry-After`.
  var isRetryable: Bool { self == .quotaExceeded || self == .unavailable || self == .internal }

  /// The error body, as FCM writes it; nil for `ok`.
  var error: GoogleError? {
    let (status, message): (String, String)
    switch self {
    case .ok: return nil
    case .unregistered: (status, message) = ("NOT_FOUND", "Requested entity was not found.")
    case .invalidArgument:
      (status, message) = (
        "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token"
      )
    case .senderIDMismatch: (status, message) = ("PERMISSION_DENIED", "SenderId mismatch")
    case .quotaExceeded:
      (status, message) = ("RESOURCE_EXHAUSTED", "Quota exceeded for sending messages.")
    case .unavailable: (status, message) = ("UNAVAILABLE", "The service is currently unavailable.")
    case .internal: (status, message) = ("INTERNAL", "Internal error encountered.")
    case .thirdPartyAuthError:
      (status, message) = ("UNAUTHENTICATED", "Auth error from APNS or Web Push Service")
    }
    return GoogleError(
      code: self.status, message: message, status: status, details: [.fcmError(rawValue)])
  }
}
