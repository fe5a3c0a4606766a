import Foundation

/// One way to turn event data and log fields into JSON text: sorted keys, so that the
/// same fact always reads the same, and values reduced to what JSON can hold.
public enum JSON {
  public static func encode(_ object: [String: Any]) -> String {
    let data =
      (try? JSONSerialization.data(
        withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    return String(decoding: data, as: UTF8.self)
  }

  /// Maps Swift values onto JSON-compatible ones (dates as RFC 3339, UUIDs lower-case).
  static func plain(_ value: Any) -> Any {
    switch value {
    case let date as Date: return Timestamp.format(date)
    case let uuid as UUID: return uuid.uuidString.lowercased()
    case let error as any Error: return String(describing: error)
    case let dictionary as [String: Any]: return dictionary.mapValues(plain)
    case let array as [Any]: return array.map(plain)
    case let optional as Any?:
      guard let unwrapped = optional else { return NSNull() }
      if unwrapped is String || unwrapped is Int || unwrapped is Double || unwrapped is Bool
        || unwrapped is Int64
      {
        return unwrapped
      }
      if unwrapped is NSNull { return unwrapped }
      return String(describing: unwrapped)
    }
  }

  /// Parses a JSON object; nil when the text is not one.
  public static func object(from bytes: some Collection<UInt8>) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(bytes), options: [])) as? [String: Any]
  }
}
