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
  static func parse(_ body: [UInt8]) -> Result<Device, BadBody> {
    let request: DeviceRequest
    do {
      request = try WireCoding.decode(DeviceRequest.self, from: body)
    } catch {
      return .failure(BadBody(error))
    }
    guard (try? Directory.validate(token: request.token)) != nil else {
      return .failure(BadBody("token must be 64 hexadecimal digits"))
    }
    let environment = request.environment ?? "production"
    guard environment == "sandbox" || environment == "production" else {
      return .failure(BadBody.badEnvironment)
    }
    return .success(Device(token: request.token.lowercased(), environment: environment))
  }

  /// A checked request: the token in lower case, the environment spelled out.
  struct Device: Equatable {
    let token: String
    let environment: String
  }

  struct BadBody: Error {
    static let badEnvironment = BadBody("environment must be sandbox or production")

    let message: String
    init(_ message: String) { self.message = message }

    /// What is wrong, from the field the decoder stumbled on: a token that is absent, `null`
    /// or not a string is "missing"; an environment that is not a string is a bad one.
    init(_ error: WireError) {
      switch error.field {
      case "token" where error.isJSON: self.init("token is missing")
      case "environment" where error.isJSON: self = Self.badEnvironment
      default: self.init("body is not a JSON object")
      }
    }

    var response: HTTPResponse { .json(400, ErrorAnswer(error: message)) }
  }

  private func add(_ request: HTTPRequest) async -> HTTPResponse {
    await databaseWork(Self.pattern, logger: logger) {
      guard let user = try await auth.user(of: request) else { return SessionAuth.unauthorized }
      switch Self.parse(request.body) {
      case .failure(let bad): return bad.response
      case .success(let device):
        let id = try await auth.directory.addDevice(
          userID: user, token: device.token, environment: device.environment)
        return .json(201, DeviceCreated(deviceID: id, environment: device.environment))
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
