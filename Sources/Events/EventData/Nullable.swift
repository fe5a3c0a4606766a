/// An optional field of event data written as `null` when absent, as docs/interfaces.md lists
/// it ("`detail` ... or `null`") and as the event log always held it; a plain optional is
/// left out instead, which the fields only present "when known" (`alarm.rejected`'s
/// `sqlstate`) are. Either way `data->>'field'` reads NULL.
@propertyWrapper
public struct Nullable<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
  public var wrappedValue: Value?

  public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    if let wrappedValue {
      try container.encode(wrappedValue)
    } else {
      try container.encodeNil()
    }
  }
}

extension KeyedDecodingContainer {
  /// A missing key reads as nil, as `null` does: the synthesized `init(from:)` of a type with a
  /// `Nullable` field calls this rather than the generic `decode`, which would throw.
  func decode<Value>(_ type: Nullable<Value>.Type, forKey key: Key) throws -> Nullable<Value> {
    try decodeIfPresent(type, forKey: key) ?? Nullable(wrappedValue: nil)
  }
}
