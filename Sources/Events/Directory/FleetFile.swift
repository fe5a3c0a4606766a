import FoundationEssentials
import Infrastructure

/// The fleet description of `fleet40.fleet.json`: users, mowers, grants and devices.
public struct FleetFile: Sendable, Decodable {
  public struct User: Sendable, Decodable {
    public let userID: String
    public let name: String
    enum CodingKeys: String, CodingKey {
      case userID = "user_id"
      case name
    }
  }
  public struct Mower: Sendable, Decodable {
    public let mowerID: String
    public let name: String?
    enum CodingKeys: String, CodingKey {
      case mowerID = "mower_id"
      case name
    }
  }
  public struct Grant: Sendable, Decodable {
    public let userID: String
    public let mowerID: String
    enum CodingKeys: String, CodingKey {
      case userID = "user_id"
      case mowerID = "mower_id"
    }
  }
  public struct Device: Sendable, Decodable {
    public let userID: String
    public let token: String
    public let environment: String
    enum CodingKeys: String, CodingKey {
      case userID = "user_id"
      case token, environment
    }
  }

  public let users: [User]
  public let mowers: [Mower]
  public let grants: [Grant]
  public let devices: [Device]

  public static func load(path: String) throws -> FleetFile {
    try WireCoding.decode(
      FleetFile.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
  }
}

extension Directory {
  /// Imports a fleet idempotently, in one transaction: importing twice changes nothing.
  public func importFleet(_ fleet: FleetFile) async throws {
    for device in fleet.devices { try Self.validate(token: device.token) }
    try await pool.withTransaction { tx in
      try tx.query(
        """
        INSERT INTO users (user_id, name)
        SELECT * FROM unnest(\(PostgresArray(fleet.users.map(\.userID)))::text[],
                             \(PostgresArray(fleet.users.map(\.name)))::text[])
        ON CONFLICT (user_id) DO UPDATE SET name = EXCLUDED.name
        """)
      try tx.query(
        """
        INSERT INTO mowers (mower_id, name)
        SELECT * FROM unnest(\(PostgresArray(fleet.mowers.map(\.mowerID)))::text[],
                             \(PostgresArray(fleet.mowers.map(\.name)))::text[])
        ON CONFLICT (mower_id) DO UPDATE SET name = EXCLUDED.name
        """)
      try tx.query(
        """
        INSERT INTO grants (mower_id, user_id)
        SELECT * FROM unnest(\(PostgresArray(fleet.grants.map(\.mowerID)))::text[],
                             \(PostgresArray(fleet.grants.map(\.userID)))::text[])
        ON CONFLICT DO NOTHING
        """)
      try tx.query(
        """
        INSERT INTO devices (user_id, token, environment)
        SELECT * FROM unnest(\(PostgresArray(fleet.devices.map(\.userID)))::text[],
                             \(PostgresArray(fleet.devices.map { $0.token.lowercased() }))::text[],
                             \(PostgresArray(fleet.devices.map(\.environment)))::text[])
        ON CONFLICT (platform, token) DO NOTHING
        """)
    }
  }
}
