import FoundationEssentials

/// An id in event data, written in lower case as the event log always held them: SQL compares
/// them as text with `uuid::text`, which is lower case (`data->>'notification_id' =
/// n.notification_id::text`, docs/interfaces.md). `UUID`'s own `Codable` form is upper case.
/// Read in either case.
@propertyWrapper
public struct LowercaseUUID: Codable, Sendable, Equatable {
  public var wrappedValue: UUID

  public init(wrappedValue: UUID) { self.wrappedValue = wrappedValue }

  public init(from decoder: any Decoder) throws {
    wrappedValue = try UUID(from: decoder)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(wrappedValue.uuidString.lowercased())
  }
}

/// An optional id in event data: lower case like `LowercaseUUID`, `null` when absent like
/// `Nullable`.
@propertyWrapper
public struct NullableLowercaseUUID: Codable, Sendable, Equatable {
  public var wrappedValue: UUID?

  public init(wrappedValue: UUID?) { self.wrappedValue = wrappedValue }

  public init(from decoder: any Decoder) throws {
    wrappedValue = try Nullable<LowercaseUUID>(from: decoder).wrappedValue?.wrappedValue
  }

  public func encode(to encoder: any Encoder) throws {
    try Nullable(wrappedValue: wrappedValue.map(LowercaseUUID.init(wrappedValue:)))
      .encode(to: encoder)
  }
}

extension KeyedDecodingContainer {
  /// A missing key reads as nil, as `null` does (see `Nullable`).
  func decode(_ type: NullableLowercaseUUID.Type, forKey key: Key) throws
    -> NullableLowercaseUUID
  {
    try decodeIfPresent(type, forKey: key) ?? NullableLowercaseUUID(wrappedValue: nil)
  }
}
