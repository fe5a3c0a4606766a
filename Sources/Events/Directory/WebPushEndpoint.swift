import FoundationEssentials

/// The check of a Web Push endpoint before it is stored: `https`, a host name (never an
/// address) that is one of the allowed push services or below one, no user name or
/// password. The server posts to what it stores, so it must never store an address a user
/// picked: a loopback, a private network, a metadata service (docs/interfaces.md#devices).
public enum WebPushEndpoint {
  /// Longest endpoint kept; the public push services' are under 500 characters.
  public static let maximumLength = 2048

  /// The endpoint as given, or what is wrong with it.
  public static func check(_ endpoint: String, allowedHosts: [String])
    throws(DeviceAddressError) -> String
  {
    guard endpoint.utf8.count <= maximumLength,
      let components = URLComponents(string: endpoint),
      components.scheme == "https", let host = components.host?.lowercased(), !host.isEmpty,
      components.user == nil, components.password == nil
    else { throw .badEndpoint }
    guard isHostName(host), allowedHosts.contains(where: { isAtOrBelow(host, $0) }) else {
      throw .endpointHostNotAllowed(host)
    }
    return endpoint
  }

  /// `host` is `domain` or a name below it (`wns2-par02p.notify.windows.com` below
  /// `notify.windows.com`), never merely ending in the same letters.
  static func isAtOrBelow(_ host: String, _ domain: String) -> Bool {
    host == domain || host.hasSuffix("." + domain)
  }

  /// A DNS name of letters, digits and hyphens whose last label is not a number: `127.0.0.1`,
  /// `[::1]` and `2130706433` are addresses, not names.
  public static func isHostName(_ text: String) -> Bool {
    let labels = text.split(separator: ".", omittingEmptySubsequences: false)
    guard !labels.isEmpty, text.utf8.count <= 253 else { return false }
    for label in labels {
      guard (1...63).contains(label.utf8.count),
        label.utf8.allSatisfy({ isLetterOrDigit($0) || $0 == UInt8(ascii: "-") }),
        label.utf8.first != UInt8(ascii: "-"), label.utf8.last != UInt8(ascii: "-")
      else { return false }
    }
    return !labels[labels.count - 1].utf8.allSatisfy { (48...57).contains($0) }
  }

  private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
    (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
  }
}
