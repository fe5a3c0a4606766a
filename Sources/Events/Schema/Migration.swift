import Infrastructure

/// One versioned step of the schema. Pending steps are applied in order, all in one
/// transaction under the migration lock, and never edited once released: a change is a
/// new step.
public struct Migration: Sendable {
  public let version: Int
  public let name: String
  public let sql: String

  public init(version: Int, name: String, sql: String) {
    self.version = version
    self.name = name
    self.sql = sql
  }

  /// Every migration of the project, in order.
  public static let all: [Migration] = [
    .v001EventLog,
    .v002Directory,
    .v003Alarms,
    .v004Notifications,
    .v005Maintenance,
    .v006HistoryRetention,
    .v007IngressByEventID,
    .v008DevicePlatforms,
  ]
}
