import FoundationEssentials
import Infrastructure

/// The error body of the FCM HTTP v1 API (`google.rpc.Status` as JSON):
/// `{"error":{"code":404,"message":…,"status":"NOT_FOUND","details":[{"@type":…FcmError,
/// "errorCode":"UNREGISTERED"}]}}`. Only what the policy reads; every field optional, since
/// a proxy or an outage may answer anything.
struct FCMErrorBody: Decodable, Equatable, Sendable {
  struct Status: Decodable, Equatable, Sendable {
    var code: Int?
    var message: String?
    var status: String?
    var details: [Detail]?
  }

  /// One entry of `details`: FCM's error code (`FcmError`), or a `BadRequest`'s field
  /// violations, among others the policy ignores.
  struct Detail: Decodable, Equatable, Sendable {
    var type: String?
    var errorCode: String?
    var fieldViolations: [FieldViolation]?

    enum CodingKeys: String, CodingKey {
      case type = "@type"
      case errorCode, fieldViolations
    }
  }

  struct FieldViolation: Decodable, Equatable, Sendable {
    var field: String?
    var description: String?
  }

  var error: Status

  /// The body read, or nil when it is not Google's error shape.
  static func read(_ body: [UInt8]) -> FCMErrorBody? {
    try? WireCoding.decode(FCMErrorBody.self, from: body)
  }

  /// FCM's own error code (`google.firebase.fcm.v1.ErrorCode`): `UNREGISTERED`, ...
  var errorCode: String? {
    error.details?.lazy.compactMap(\.errorCode).first
  }

  /// Whether the error is about the registration token itself: FCM's message says so
  /// ("The registration token is not a valid FCM registration token"), or a field
  /// violation names `message.token`. An `INVALID_ARGUMENT` about any other field is a
  /// fault of the message, not of the device.
  var blamesRegistrationToken: Bool {
    if let message = error.message?.lowercased(), message.contains("registration token") {
      return true
    }
    return error.details?.contains { detail in
      detail.fieldViolations?.contains { $0.field == "message.token" } ?? false
    } ?? false
  }
}
