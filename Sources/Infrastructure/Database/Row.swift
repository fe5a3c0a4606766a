import FoundationEssentials

/// One result row, copied out of libpq's result so it outlives it. Values are in text
/// format; the accessors below parse them and name the column when they cannot.
public struct Row: Sendable {
  public let columns: [String]
  public let values: [String?]

  public init(columns: [String], values: [String?]) {
    self.columns = columns
    self.values = values
  }

  public func index(of column: String) throws(DatabaseError) -> Int {
    guard let index = columns.firstIndex(of: column) else {
      throw .decodingFailed(column: column, expected: "present in the result")
    }
    return index
  }

  public func optionalString(_ column: String) throws(DatabaseError) -> String? {
    values[try index(of: column)]
  }

  public func string(_ column: String) throws(DatabaseError) -> String {
    guard let value = try optionalString(column) else {
      throw .decodingFailed(column: column, expected: "non-null text")
    }
    return value
  }

  public func optionalInt(_ column: String) throws(DatabaseError) -> Int? {
    guard let text = try optionalString(column) else { return nil }
    guard let value = Int(text) else { throw .decodingFailed(column: column, expected: "integer") }
    return value
  }

  public func int(_ column: String) throws(DatabaseError) -> Int {
    guard let value = try optionalInt(column) else {
      throw .decodingFailed(column: column, expected: "non-null integer")
    }
    return value
  }

  public func optionalDouble(_ column: String) throws(DatabaseError) -> Double? {
    guard let text = try optionalString(column) else { return nil }
    guard let value = Double(text) else {
      throw .decodingFailed(column: column, expected: "number")
    }
    return value
  }

  public func bool(_ column: String) throws(DatabaseError) -> Bool {
    try string(column) == "t"
  }

  public func optionalUUID(_ column: String) throws(DatabaseError) -> UUID? {
    guard let text = try optionalString(column) else { return nil }
    guard let value = UUID(uuidString: text) else {
      throw .decodingFailed(column: column, expected: "uuid")
    }
    return value
  }

  public func uuid(_ column: String) throws(DatabaseError) -> UUID {
    guard let value = try optionalUUID(column) else {
      throw .decodingFailed(column: column, expected: "non-null uuid")
    }
    return value
  }

  public func optionalDate(_ column: String) throws(DatabaseError) -> Date? {
    guard let text = try optionalString(column) else { return nil }
    guard let value = Timestamp.parse(text) else {
      throw .decodingFailed(column: column, expected: "timestamptz")
    }
    return value
  }

  public func date(_ column: String) throws(DatabaseError) -> Date {
    guard let value = try optionalDate(column) else {
      throw .decodingFailed(column: column, expected: "non-null timestamptz")
    }
    return value
  }

  /// A `bytea` column in text format (`\x` followed by hex digits).
  public func optionalBytes(_ column: String) throws(DatabaseError) -> [UInt8]? {
    guard let text = try optionalString(column) else { return nil }
    guard let bytes = Hex.decodeBytea(text) else {
      throw .decodingFailed(column: column, expected: "bytea")
    }
    return bytes
  }

  /// A `timestamptz[]` column in text format: `{"2026-11-20 06:54:14+00",...}`.
  public func dateArray(_ column: String) throws(DatabaseError) -> [Date] {
    let text = try string(column)
    guard text.hasPrefix("{"), text.hasSuffix("}") else {
      throw .decodingFailed(column: column, expected: "timestamptz[]")
    }
    let body = text.dropFirst().dropLast()
    guard !body.isEmpty else { return [] }
    var dates: [Date] = []
    for element in body.split(separator: ",") {
      let trimmed = element.trimming { $0 == "\"" }
      guard let date = Timestamp.parse(trimmed) else {
        throw .decodingFailed(column: column, expected: "timestamptz[]")
      }
      dates.append(date)
    }
    return dates
  }
}
