/// The error body of Google APIs (`google.rpc.Status` in JSON), as the FCM HTTP v1 API
/// answers: `{"error":{"code":404,"message":...,"status":"NOT_FOUND","details":[...]}}`.
struct GoogleError: Codable, Equatable, Sendable, Error {
  struct Status: Codable, Equatable, Sendable {
    var code: Int
    var message: String
    var status: String
    var details: [Detail]
  }

  /// One entry of `details`: an FCM error code, an `ErrorInfo` reason, or a `BadRequest`
  /// list of field violations; only the keys of its `@type` are written.
  struct Detail: Codable, Equatable, Sendable {
    var type: String
    var errorCode: String?
    var reason: String?
    var domain: String?
    var fieldViolations: [FieldViolation]?

    enum CodingKeys: String, CodingKey {
      case type = "@type"
      case errorCode, reason, domain, fieldViolations
    }

    static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"

    static func fcmError(_ code: String) -> Detail {
      Detail(type: fcmErrorType, errorCode: code)
    }

    static func errorInfo(_ reason: String) -> Detail {
      Detail(
        type: "type.googleapis.com/google.rpc.ErrorInfo", reason: reason, domain: "googleapis.com")
    }

    static func badRequest(field: String, description: String) -> Detail {
      Detail(
        type: "type.googleapis.com/google.rpc.BadRequest",
        fieldViolations: [FieldViolation(field: field, description: description)])
    }
  }

  struct FieldViolation: Codable, Equatable, Sendable {
    var field: String
    var description: String
  }

  var error: Status

  init(code: Int, message: String, status: String, details: [Detail] = []) {
    error = Status(code: code, message: message, status: status, details: details)
  }

  /// A 400 INVALID_ARGUMENT naming the field at fault, as Google's JSON parser answers.
  static func invalidField(_ field: String, _ description: String) -> GoogleError {
    GoogleError(
      code: 400, message: description, status: "INVALID_ARGUMENT",
      details: [.badRequest(field: field, description: description)])
  }
}

/// The answer to a sent message: its name.
struct SendAnswer: Codable, Equatable, Sendable {
  var name: String
}
