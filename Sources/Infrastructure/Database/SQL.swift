/// A SQL statement whose interpolated values become bound parameters (`$1`, `$2`, ...).
///
/// Modelled on postgres-nio's `PostgresQuery`: because `\(value)` never splices text into the
/// statement, SQL injection cannot be typed. Identifiers that cannot be parameters (a schema
/// name in a migration) go through `\(identifier:)`, which quotes them.
public struct SQL: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
  public private(set) var text: String
  public private(set) var binds: [PostgresBind]

  public init(stringLiteral value: String) {
    text = value
    binds = []
  }

  public init(stringInterpolation: StringInterpolation) {
    text = stringInterpolation.text
    binds = stringInterpolation.binds
  }

  /// The statement text only: values stay out of logs and error messages.
  public var description: String { text }

  public struct StringInterpolation: StringInterpolationProtocol {
    var text = ""
    var binds: [PostgresBind] = []

    public init(literalCapacity: Int, interpolationCount: Int) {
      text.reserveCapacity(literalCapacity + interpolationCount * 3)
      binds.reserveCapacity(interpolationCount)
    }

    public mutating func appendLiteral(_ literal: String) {
      text += literal
    }

    public mutating func appendInterpolation(_ value: some PostgresEncodable) {
      binds.append(value.postgresBind)
      text += "$\(binds.count)"
    }

    public mutating func appendInterpolation(_ value: (some PostgresEncodable)?) {
      binds.append(value?.postgresBind ?? .null)
      text += "$\(binds.count)"
    }

    /// Another statement's text and binds, spliced in with its placeholders renumbered, so
    /// that pieces built elsewhere (the event log's insert) can join one statement. The
    /// fragment's text must not hold a literal `$` outside its placeholders.
    public mutating func appendInterpolation(fragment: SQL) {
      let offset = binds.count
      binds.append(contentsOf: fragment.binds)
      var output = ""
      var characters = fragment.text.makeIterator()
      var pending: Character? = characters.next()
      while let character = pending {
        pending = characters.next()
        guard character == "$", let first = pending, first.isNumber else {
          output.append(character)
          continue
        }
        var digits = ""
        while let digit = pending, digit.isNumber {
          digits.append(digit)
          pending = characters.next()
        }
        output += "$\(Int(digits)! + offset)"
      }
      text += output
    }

    /// A quoted identifier (schema, table), for the few places a parameter cannot go.
    public mutating func appendInterpolation(identifier: String) {
      // Per Unicode scalar, not per Character: a quote followed by a combining mark is one
      // Character, and would otherwise slip through undoubled.
      var quoted = String.UnicodeScalarView()
      for scalar in identifier.unicodeScalars {
        if scalar == "\"" { quoted.append(scalar) }
        quoted.append(scalar)
      }
      text += "\"" + String(quoted) + "\""
    }
  }
}
