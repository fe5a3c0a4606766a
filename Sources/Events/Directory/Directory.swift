import FoundationEssentials
import Infrastructure

/// Users, mowers, grants, devices and web sessions (docs/interfaces.md#tables): the one place that
/// writes them, used by the admin command line and the HTTP API alike.
public struct Directory: Sendable {
  public let pool: DatabasePool

  public init(pool: DatabasePool) { self.pool = pool }

  public enum Failure: Error, CustomStringConvertible, Equatable {
    case unknownUser(String)
    case invalidToken
    case invalidEnvironment(String)

    public var description: String {
      switch self {
      case .unknownUser(let id): return "no user \(id)"
      case .invalidToken: return "a device token is 64 hexadecimal digits"
      case .invalidEnvironment(let value):
        return "environment must be sandbox or production, got \(value)"
      }
    }
  }

  public func addUser(id: String, name: String) async throws {
    try await pool.query(
      """
      INSERT INTO users (user_id, name) VALUES (\(id), \(name))
      ON CONFLICT (user_id) DO UPDATE SET name = EXCLUDED.name
      """)
  }

  public func addMower(id: String, name: String?) async throws {
    try await pool.query(
      """
      INSERT INTO mowers (mower_id, name) VALUES (\(id), \(name))
      ON CONFLICT (mower_id) DO UPDATE SET name = coalesce(EXCLUDED.name, mowers.name)
      """)
  }

  /// Lets `userID` see `mowerID` (creating the mower when unknown).
  public func grant(mowerID: String, userID: String) async throws {
    try await requireUser(userID)
    try await addMower(id: mowerID, name: nil)
    try await pool.query(
      "INSERT INTO grants (mower_id, user_id) VALUES (\(mowerID), \(userID)) ON CONFLICT DO NOTHING"
    )
  }

  /// What events and logs show of an APNs device token: enough to tell devices apart,
  /// never the whole token.
  public static func tokenPrefix(_ token: String) -> String { String(token.prefix(8)) }

  /// What events and logs show of a device's address on its platform: a token's first
  /// characters, a Web Push endpoint's host (which push service; its path is the secret).
  public static func addressPrefix(_ address: String, platform: DevicePlatform) -> String {
    platform == .webpush ? (URLComponents(string: address)?.host ?? "") : tokenPrefix(address)
  }

  /// Registers (or re-activates, or moves to this user) an APNs device token.
  @discardableResult
  public func addDevice(userID: String, token: String, environment: String) async throws -> UUID {
    do {
      return try await addDevice(
        userID: userID,
        address: try DeviceAddress.checkedAPNs(token: token, environment: environment))
    } catch DeviceAddressError.badAPNsToken {
      throw Failure.invalidToken
    } catch DeviceAddressError.badEnvironment {
      throw Failure.invalidEnvironment(environment)
    }
  }

  /// Registers a device of any platform; the same address registered again (an app
  /// reinstalled, a browser subscribing anew, another user signing in on it) is re-activated
  /// and moved to this user, keeping its id.
  @discardableResult
  public func addDevice(userID: String, address: DeviceAddress) async throws -> UUID {
    try await requireUser(userID)
    let keys = address.webPushKeys
    let rows = try await pool.query(
      """
      INSERT INTO devices (user_id, platform, token, environment, webpush_p256dh, webpush_auth)
      VALUES (\(userID), \(address.platform.rawValue), \(address.storedToken),
              \(address.environment), \(keys?.p256dh), \(keys?.auth))
      ON CONFLICT (platform, token) DO UPDATE SET user_id = EXCLUDED.user_id,
        environment = EXCLUDED.environment, webpush_p256dh = EXCLUDED.webpush_p256dh,
        webpush_auth = EXCLUDED.webpush_auth, active = true, registered_at = now(),
        deactivated_at = NULL
      RETURNING device_id
      """)
    return try rows[0].uuid("device_id")
  }

  /// Removes a user's APNs device; returns false when the user has no such token.
  public func removeDevice(userID: String, token: String) async throws -> Bool {
    try Self.validate(token: token)
    return
      !(try await pool.query(
        """
        DELETE FROM devices
        WHERE user_id = \(userID) AND platform = 'apns' AND token = \(token.lowercased())
        RETURNING device_id
        """
      ).isEmpty)
  }

  /// Removes one of the user's devices by id; false when the user has no such device
  /// (another user's device is not theirs to remove, and says nothing about existing).
  public func removeDevice(userID: String, deviceID: UUID) async throws -> Bool {
    !(try await pool.query(
      "DELETE FROM devices WHERE user_id = \(userID) AND device_id = \(deviceID) RETURNING 1"
    ).isEmpty)
  }

  /// The user a device belongs to, nil when there is no such device: why the operator's
  /// removal of it for another user was refused.
  public func owner(ofDevice deviceID: UUID) async throws -> String? {
    try await pool.query("SELECT user_id FROM devices WHERE device_id = \(deviceID)").first?
      .string("user_id")
  }

  /// A user's devices, oldest registration first, as `mowdeck device list` shows them.
  public func devices(ofUser userID: String) async throws -> [DeviceListing] {
    try await requireUser(userID)
    return try await pool.query(
      """
      SELECT device_id, platform, environment, token, active, registered_at FROM devices
      WHERE user_id = \(userID) ORDER BY registered_at, device_id
      """
    ).map { row in
      let platform = DevicePlatform(rawValue: try row.string("platform")) ?? .apns
      let address = try row.string("token")
      return DeviceListing(
        deviceID: try row.uuid("device_id"), platform: platform,
        environment: try row.optionalString("environment"),
        addressPrefix: Self.addressPrefix(address, platform: platform),
        active: try row.bool("active"), registeredAt: try row.date("registered_at"))
    }
  }

  /// Creates a web session and returns its bearer token. Only its SHA-256 is stored.
  public func createSession(userID: String, lifetime: TimeInterval = 30 * 86_400) async throws
    -> String
  {
    try await requireUser(userID)
    let token = Self.randomToken()
    try await pool.query(
      """
      INSERT INTO sessions (token_hash, user_id, expires_at)
      VALUES (\(Digest.sha256Hex(Array(token.utf8))), \(userID),
              now() + make_interval(secs => \(lifetime)))
      """)
    return token
  }

  /// The user a live session token belongs to, or nil.
  public func user(forSessionToken token: String) async throws -> String? {
    let rows = try await pool.query(
      """
      SELECT user_id FROM sessions
      WHERE token_hash = \(Digest.sha256Hex(Array(token.utf8)))
        AND revoked_at IS NULL AND expires_at > now()
      """)
    return try rows.first?.string("user_id")
  }

  /// Ends a live session at once; false when the token names none (unknown, expired or
  /// revoked already, which keeps its first revocation time).
  @discardableResult
  public func revokeSession(token: String) async throws -> Bool {
    !(try await pool.query(
      """
      UPDATE sessions SET revoked_at = now()
      WHERE token_hash = \(Digest.sha256Hex(Array(token.utf8)))
        AND revoked_at IS NULL AND expires_at > now()
      RETURNING 1
      """
    ).isEmpty)
  }

  /// Ends every live session of the user (signed out everywhere); returns how many.
  public func revokeSessions(ofUser userID: String) async throws -> Int {
    try await requireUser(userID)
    return try await pool.query(
      """
      UPDATE sessions SET revoked_at = now()
      WHERE user_id = \(userID) AND revoked_at IS NULL AND expires_at > now()
      RETURNING 1
      """
    ).count
  }

  public static func validate(token: String) throws {
    guard HexToken.isWellFormed(token) else {
      throw Failure.invalidToken
    }
  }

  private func requireUser(_ userID: String) async throws {
    guard !(try await pool.query("SELECT 1 FROM users WHERE user_id = \(userID)").isEmpty) else {
      throw Failure.unknownUser(userID)
    }
  }

  private static func randomToken() -> String {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    return Hex.encode(bytes)
  }
}
