import Infrastructure

/// ntfy's error answer, `{"code":40007,"http":400,"error":"invalid priority parameter"}`,
/// with the codes of ntfy's `server/errors.go` where it has one for the case.
struct NtfyError: Error, Codable, Equatable, Sendable {
  var code: Int
  var http: Int
  var error: String

  static let badRequest = NtfyError(code: 40000, http: 400, error: "invalid request")
  static let priorityInvalid = NtfyError(
    code: 40007, http: 400, error: "invalid priority parameter")
  static let topicInvalid = NtfyError(
    code: 40009, http: 400, error: "invalid request: topic invalid")
  static let attachmentURLInvalid = NtfyError(
    code: 40013, http: 400, error: "invalid request: attachment URL is invalid")
  /// A body over the message size limit, or not UTF-8, on a server without attachments.
  static let attachmentsDisallowed = NtfyError(
    code: 40014, http: 400, error: "invalid request: attachments not allowed")
  static let sequenceIDInvalid = NtfyError(
    code: 40000, http: 400, error: "invalid request: sequence ID invalid")
  static let unauthorized = NtfyError(code: 40101, http: 401, error: "unauthorized")
  static let forbidden = NtfyError(code: 40301, http: 403, error: "forbidden")
  static let tooLarge = NtfyError(
    code: 41301, http: 413, error: "attachment too large, or bandwidth limit reached")
  static let tooManyRequests = NtfyError(
    code: 42901, http: 429, error: "limit reached: too many requests, please be nice")
  static let internalError = NtfyError(code: 50001, http: 500, error: "internal server error")

  /// What ntfy answers for a programmed `status`; nil for 502 and 503, which come from the
  /// proxy in front of ntfy rather than from ntfy.
  static func programmed(_ status: Int) -> NtfyError? {
    switch status {
    case 401: return .unauthorized
    case 403: return .forbidden
    case 413: return .tooLarge
    case 429: return .tooManyRequests
    case 500: return .internalError
    default: return nil
    }
  }

  var response: HTTPResponse { .json(http, self) }
}
