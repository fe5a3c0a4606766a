import FoundationEssentials

/// The one way a message that crosses a process boundary becomes JSON and back
/// (docs/interfaces.md): the toolchain's `JSONEncoder` and `JSONDecoder`, keys sorted so the
/// same message always reads the same, dates as RFC 3339 instants with microseconds
/// (`Timestamp`, as PostgreSQL keeps them), unknown fields ignored when reading.
public enum WireCoding {
  /// The message's JSON. Wire types hold no value JSON cannot carry (no infinite number),
  /// so encoding cannot fail for them.
  public static func encode(_ message: some Encodable) -> [UInt8] {
    do {
      return Array(try encoder.encode(message))
    } catch {
      preconditionFailure("a wire message could not be encoded: \(error)")
    }
  }

  /// Reads `bytes` as a `T`; throws `WireError` naming the field that is missing or wrong.
  public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(WireError)
    -> T
  {
    do {
      return try decoder.decode(type, from: Data(bytes))
    } catch let error as DecodingError {
      throw WireError(error, message: String(describing: type))
    } catch {
      throw WireError(message: String(describing: type), field: nil)
    }
  }

  private static let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .custom { date, encoder in
      var container = encoder.singleValueContainer()
      try container.encode(Timestamp.format(date))
    }
    return encoder
  }()

  private static let decoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom { decoder in
      let container = try decoder.singleValueContainer()
      let text = try container.decode(String.self)
      guard let date = Timestamp.parse(text) else {
        throw DecodingError.dataCorruptedError(
          in: container, debugDescription: "not an RFC 3339 instant")
      }
      return date
    }
    return decoder
  }()
}

/// A message that could not be read, and the field that made it so (nil when the bytes are
/// not the JSON object the message is).
public struct WireError: Error, Equatable, CustomStringConvertible {
  public let message: String
  public let field: String?
  /// The bytes are JSON, but not of the message's shape (a wrong type, a missing field);
  /// false when they are no JSON at all.
  public let isJSON: Bool

  public init(message: String, field: String?, isJSON: Bool = false) {
    self.message = message
    self.field = field
    self.isJSON = isJSON
  }

  init(_ error: DecodingError, message: String) {
    self.message = message
    if case .dataCorrupted(let context) = error, context.codingPath.isEmpty {
      isJSON = false
    } else {
      isJSON = true
    }
    switch error {
    case .keyNotFound(let key, _): field = key.stringValue
    case .typeMismatch(_, let context), .valueNotFound(_, let context),
      .dataCorrupted(let context):
      field = context.codingPath.last?.stringValue
    @unknown default: field = nil
    }
  }

  public var description: String {
    "unreadable \(message): \(field ?? "not a JSON object of that shape")"
  }
}
