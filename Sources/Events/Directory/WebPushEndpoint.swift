import FoundationEssentials

/// The check of a Web Push endpoint before it is stored: `https`, a host name (never an
/// address) that is one of the allowed push services or below one, HTTPS's own port 443
/// (or none), no user name or password. The server posts to what it stores, so it must
/// never store an address a user picked: a loopback, a private network, a metadata service,
/// another port of a push service's host (docs/interfaces.md#devices).
///
/// An allowed-hosts entry may name a port, `localhost:8443`: that host (and the names
/// below it) is then allowed on that port too. Only the local doubles need one.
public enum WebPushEndpoint {
  /// Longest endpoint kept; the public push services' are under 500 characters.
  public static let maximumLength = 2048
  /// The port every public push service listens on: HTTPS's.
  public static let httpsPort = 443

  /// The endpoint as given, or what is wrong with it.
  public static func check(_ endpoint: String, allowedHosts: [String])
    throws(DeviceAddressError) -> String
  {
    guard endpoint.utf8.count <= maximumLength,
      let components = URLComponents(string: endpoint),
      components.scheme == "https", let host = components.host?.lowercased(), !host.isEmpty,
      components.user == nil, components.password == nil
    else { throw .badEndpoint }
    let allowed = allowedHosts.compactMap(HostAndPort.init)
    guard isHostName(host), allowed.contains(where: { isAtOrBelow(host, $0.host) }) else {
      throw .endpointHostNotAllowed(host)
    }
    // The port as written: URLComponents reads one too large for an Int as no port at all.
    guard let authority = HostAndPort(authority(of: endpoint)), authority.host == host else {
      throw .badEndpoint
    }
    let port = authority.port ?? httpsPort
    guard
      port == httpsPort
        || allowed.contains(where: { $0.port == port && isAtOrBelow(host, $0.host) })
    else { throw .endpointPortNotAllowed(port) }
    return endpoint
  }

  /// A host name with a port or without: an entry of `MOWDECK_NOTIFICATIONS_WEBPUSH_HOSTS`
  /// (`localhost:8443` allows that host, and the names below it, on that port too), or an
  /// endpoint's authority.
  public struct HostAndPort: Equatable, Sendable {
    public let host: String
    public let port: Int?

    /// Nil unless `text` is a host name, alone or with `:` and a port from 1 to 65535.
    public init?(_ text: String) {
      var name = Substring(text.lowercased())
      var port: Int? = nil
      if let colon = name.lastIndex(of: ":") {
        let digits = name[name.index(after: colon)...]
        guard (1...5).contains(digits.utf8.count),
          digits.utf8.allSatisfy({ (48...57).contains($0) }),
          let number = Int(digits), (1...65535).contains(number)
        else { return nil }
        port = number
        name = name[..<colon]
      }
      guard WebPushEndpoint.isHostName(String(name)) else { return nil }
      host = String(name)
      self.port = port
    }
  }

  /// What comes between `https://` and the path, query or fragment.
  private static func authority(of endpoint: String) -> String {
    String(endpoint.dropFirst("https://".count).prefix { !"/?#".contains($0) })
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
