import Events
import FoundationEssentials
import Infrastructure

/// `POST` and `DELETE /api/v1/notifications/apns-devices` with a JSON body
/// `{"token": "<64 hex>", "environment": "sandbox" | "production"}`: the signed-in user
/// registers or removes one of their phones (Directory does the writing).
struct DeviceRoutes: Sendable {
  static let pattern = "/api/v1/notifications/apns-devices"

  let auth: SessionAuth
  let logger: Logger

  func register(in router: inout HTTPRouter) {
    router.add("POST", Self.pattern) { request in .later { await add(request) } }
    router.add("DELETE", Self.pattern) { request in .later { await remove(request) } }
  }

  /// The body's fields, or the 400 that says what is wrong with it.
  static func parse(_ body: [UInt8]) -> Result<(token: String, environment: String), BadBody> {
    guard let object = JSON.object(from: body) else {
      return .failure(BadBody("body is not a JSON object"))
    }
    guard let token = object["token"] as? String else {
      return .failure(BadBody("token is missing"))
    }
    guard (try? Directory.validate(token: token)) != nil else {
      return .failure(BadBody("token must be 64 hexadecimal digits"))
    }
    let environment = object["environment"] as? String ?? "production"
    guard environment == "sandbox" || environment == "production" else {
      return .failure(BadBody("environment must be sandbox or production"))
    }
    return .success((token.lowercased(), environment))
  }

  struct BadBody: Error {
    let message: String
    init(_ message: String) { self.message = message }
    var response: HTTPResponse { .json(400, ["error": message]) }
  }

  private func add(_ request: HTTPRequest) async -> HTTPResponse {
    await databaseWork(Self.pattern, logger: logger) {
      guard let user = try await auth.user(of: request) else { return SessionAuth.unauthorized }
      switch Self.parse(request.body) {
      case .failure(let bad): return bad.response
      case .success(let device):
        let id = try await auth.directory.addDevice(
          userID: user, token: device.token, environment: device.environment)
        return .json(201, ["device_id": id, "environment": device.environment])
      }
    }
  }

  private func remove(_ request: HTTPRequest) async -> HTTPResponse {
    await databaseWork(Self.pattern, logger: logger) {
      guard let user = try await auth.user(of: request) else { return SessionAuth.unauthorized }
      switch Self.parse(request.body) {
      case .failure(let bad): return bad.response
      case .success(let device):
        let removed = try await auth.directory.removeDevice(userID: user, token: device.token)
        return removed ? HTTPResponse(status: 204) : .plain(404)
      }
    }
  }
}
