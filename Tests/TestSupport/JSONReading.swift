import Infrastructure

/// Reading what a test expects of JSON it got back: each is nil when the value is not wholly
/// of that shape, so that an assertion on it fails rather than passing on what was dropped.
extension JSONValue {
  /// An array whose every element is an object.
  public var objects: [[String: JSONValue]]? {
    guard let array else { return nil }
    let objects = array.compactMap(\.object)
    return objects.count == array.count ? objects : nil
  }

  /// An array whose every element is a string.
  public var strings: [String]? {
    guard let array else { return nil }
    let strings = array.compactMap(\.string)
    return strings.count == array.count ? strings : nil
  }

  /// An object whose every member is an integer.
  public var integerMembers: [String: Int]? {
    guard let object else { return nil }
    let integers = object.compactMapValues(\.integer)
    return integers.count == object.count ? integers : nil
  }

  /// An object whose every member is a string.
  public var stringMembers: [String: String]? {
    guard let object else { return nil }
    let strings = object.compactMapValues(\.string)
    return strings.count == object.count ? strings : nil
  }
}
