/// A command line of `--flag value` options read front to back, as the test doubles take
/// theirs: each value is checked where it is read, and a mistake is one line for stderr
/// that names the flag.
public struct CommandLineFlags {
  public struct Invalid: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
  }

  private let arguments: [String]
  private var index = 0

  public init(_ arguments: [String]) { self.arguments = arguments }

  /// The next flag, nil at the end.
  public mutating func next() -> String? {
    guard index < arguments.count else { return nil }
    defer { index += 1 }
    return arguments[index]
  }

  /// The value following `flag`.
  public mutating func value(of flag: String) throws(Invalid) -> String {
    guard let value = next() else { throw Invalid(description: "\(flag) needs a value") }
    return value
  }

  /// A `HOST:PORT` value (port 0 asks for a free one).
  public mutating func listenAddress(of flag: String) throws(Invalid) -> String {
    let text = try value(of: flag)
    guard let colon = text.lastIndex(of: ":"), colon > text.startIndex,
      UInt16(text[text.index(after: colon)...]) != nil
    else { throw Invalid(description: "\(flag) takes HOST:PORT, got \(text)") }
    return text
  }

  /// A host name or address, in lower case, that is exactly the host of
  /// `https://HOST:1` (an IPv6 address without brackets is refused).
  public mutating func host(of flag: String) throws(Invalid) -> String {
    let text = try value(of: flag)
    let host = text.lowercased()
    guard !host.isEmpty, !host.contains(where: { "/?#@ ".contains($0) }),
      VAPIDAuthorization.audience(ofEndpoint: "https://\(host):1") == "https://\(host):1"
    else { throw Invalid(description: "\(flag) takes a host name or address, got \(text)") }
    return host
  }

  /// A whole number in `range`.
  public mutating func integer(of flag: String, in range: ClosedRange<Int>) throws(Invalid)
    -> Int
  {
    let text = try value(of: flag)
    guard let number = Int(text), range.contains(number) else {
      throw Invalid(
        description: "\(flag) takes \(range.lowerBound) to \(range.upperBound), got \(text)")
    }
    return number
  }

  /// The error for a flag no case knew.
  public static func unknown(_ flag: String) -> Invalid {
    Invalid(description: "unknown option \(flag) (see --help)")
  }
}
