import Foundation

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
    var out = "{"
    for (index, element) in elements.enumerated() {
      if index > 0 { out += "," }
      guard let element else {
        out += "NULL"
        continue
      }
      out += "\""
      for character in element.unicodeScalars {
        if character == "\"" || character == "\\" { out += "\\" }
        out.unicodeScalars.append(character)
      }
      out += "\""
    }
    literal = out + "}"
  }

  public init(_ elements: [String]) { self.init(elements.map { Optional($0) }) }
  public init(_ elements: [UUID]) { self.init(elements.map { $0.uuidString.lowercased() }) }
  public init(_ elements: [UUID?]) { self.init(elements.map { $0?.uuidString.lowercased() }) }

  public var postgresBind: PostgresBind { .text(literal) }
}
