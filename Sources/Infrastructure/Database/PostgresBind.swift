import FoundationEssentials

/// One bound parameter as libpq receives it: text, raw bytes (for `bytea`) or NULL.
public enum PostgresBind: Sendable, Equatable {
  case text(String)
  case binary([UInt8])
  case null
}

/// A Swift value that can be bound as a query parameter.
public protocol PostgresEncodable: Sendable {
  var postgresBind: PostgresBind { get }
}

extension String: PostgresEncodable {
  public var postgresBind: PostgresBind { .text(self) }
}

extension Int: PostgresEncodable {
  public var postgresBind: PostgresBind { .text(String(self)) }
}

extension Int64: PostgresEncodable {
  public var postgresBind: PostgresBind { .text(String(self)) }
}

extension Int32: PostgresEncodable {
  public var postgresBind: PostgresBind { .text(String(self)) }
}

extension UInt64: PostgresEncodable {
  public var postgresBind: PostgresBind { .text(String(self)) }
}

extension Double: PostgresEncodable {
  public var postgresBind: PostgresBind { .text(String(self)) }
}

extension Bool: PostgresEncodable {
  public var postgresBind: PostgresBind { .text(self ? "t" : "f") }
}

extension UUID: PostgresEncodable {
  public var postgresBind: PostgresBind { .text(uuidString.lowercased()) }
}

extension Date: PostgresEncodable {
  public var postgresBind: PostgresBind { .text(Timestamp.format(self)) }
}

/// Bytes bind as binary, so a JPEG reaches a `bytea` column without hex encoding.
public struct Bytes: PostgresEncodable, Equatable {
  public var bytes: [UInt8]
  public init(_ bytes: [UInt8]) { self.bytes = bytes }
  public var postgresBind: PostgresBind { .binary(bytes) }
}

/// A JSON document for a `jsonb` parameter.
public struct JSONText: PostgresEncodable, Equatable {
  public var json: String
  public init(_ json: String) { self.json = json }
  public var postgresBind: PostgresBind { .text(json) }
}

/// An array parameter in PostgreSQL's text array syntax, for `unnest($1::text[])` inserts
/// that write many rows in one round trip.
public struct PostgresArray: PostgresEncodable {
  public let literal: String

  public init(_ elements: [String?]) {
    var out: [UInt8] = [UInt8(ascii: "{")]
    out.reserveCapacity(elements.count * 40 + 2)
    for (index, element) in elements.enumerated() {
      if index > 0 { out.append(UInt8(ascii: ",")) }
      guard let element else {
        out.append(contentsOf: "NULL".utf8)
        continue
      }
      out.append(UInt8(ascii: "\""))
      for byte in element.utf8 {
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
          out.append(UInt8(ascii: "\\"))
        }
        out.append(byte)
      }
      out.append(UInt8(ascii: "\""))
    }
    out.append(UInt8(ascii: "}"))
    literal = String(decoding: out, as: UTF8.self)
  }

  public init(_ elements: [String]) { self.init(elements.map { Optional($0) }) }
  public init(_ elements: [UUID]) { self.init(elements.map { $0.uuidString.lowercased() }) }
  public init(_ elements: [UUID?]) { self.init(elements.map { $0?.uuidString.lowercased() }) }

  public var postgresBind: PostgresBind { .text(literal) }
}
