import Events
import FoundationEssentials
import Infrastructure

/// The signed-in user's devices (Directory does the writing, docs/interfaces.md#devices):
/// - `GET /api/v1/notifications/devices` lists them (the web inbox's device list),
/// - `POST /api/v1/notifications/devices` registers a device of any platform, and
///   `DELETE /api/v1/notifications/devices/<device_id>` removes one of the user's own;
/// - `POST` and `DELETE /api/v1/notifications/apns-devices` with a JSON body
///   `{"token": "<64 hex>", "environment": "sandbox" | "production"}`, the first route,
///   kept for the iOS app.
struct DeviceRoutes: Sendable {
  static let pattern = "/api/v1/notifications/apns-devices"
  static let registrationPattern = "/api/v1/notifications/devices"
  static let devicePattern = "/api/v1/notifications/devices/{device}"

  let auth: SessionAuth
  let offer: DeviceRegistration.Offer
  let logger: Logger

  func register(in router: inout HTTPRouter) {
    router.add("POST", Self.pattern) { request in .later { await add(request) } }
    router.add("DELETE", Self.pattern) { request in .later { await remove(request) } }
    router.get(Self.registrationPattern) { request in .later { await list(request) } }
    router.add("POST", Self.registrationPattern) { request in
      .later { await addAny(request) }
    }
    router.add("DELETE", Self.devicePattern) { request in .later { await removeByID(request) } }
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

    /// What is wrong with a registration body whose JSON has a field of the wrong type.
    init(registrationError error: WireError) {
      switch error.field {
      case .some(let field) where error.isJSON:
        if field == "keys" {
          self.init("keys must be an object")
        } else {
          let name = field == "p256dh" || field == "auth" ? "keys." + field : field
          self.init("\(name) must be a string")
        }
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

  private func addAny(_ request: HTTPRequest) async -> HTTPResponse {
    await databaseWork(Self.registrationPattern, logger: logger) {
      guard let user = try await auth.user(of: request) else { return SessionAuth.unauthorized }
      switch DeviceRegistration.parse(request.body, offer: offer) {
      case .failure(let bad): return bad.response
      case .success(let address):
        let id = try await auth.directory.addDevice(userID: user, address: address)
        return .json(201, DeviceRegistered(deviceID: id, address: address, ntfyURL: offer.ntfyURL))
      }
    }
  }

  private func list(_ request: HTTPRequest) async -> HTTPResponse {
    await databaseWork(Self.registrationPattern, logger: logger) {
      guard let user = try await auth.user(of: request) else { return SessionAuth.unauthorized }
      let devices = try await auth.directory.devices(ofUser: user)
      return .json(200, DeviceListAnswer(devices: devices.map(DeviceListAnswer.Device.init)))
    }
  }

  private func removeByID(_ request: HTTPRequest) async -> HTTPResponse {
    await databaseWork(Self.devicePattern, logger: logger) {
      guard let user = try await auth.user(of: request) else { return SessionAuth.unauthorized }
      // Any other spelling of an id names no device: 404, as another user's device.
      guard let text = request.parameters.first, CanonicalUUID.isCanonical(text),
        let deviceID = UUID(uuidString: String(text))
      else { return .plain(404) }
      let removed = try await auth.directory.removeDevice(userID: user, deviceID: deviceID)
      return removed ? HTTPResponse(status: 204) : .plain(404)
    }
  }
}
