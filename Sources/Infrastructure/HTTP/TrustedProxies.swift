/// The reverse proxies whose `X-Forwarded-For` is believed
/// (`MOWDECK_NOTIFICATIONS_TRUSTED_PROXIES`). Behind a proxy every request arrives from the
/// proxy's address, so a per-client budget keyed by the TCP peer would be one budget for
/// every phone; but a header anyone can send must not let a client pick its own key. So
/// the header counts only when the peer is a proxy named here, and then only up to the
/// first hop no trusted proxy vouches for.
public struct TrustedProxies: Sendable, Equatable {
  /// An entry that is neither an address nor a CIDR block.
  public struct Invalid: Error, Equatable {
    public let entry: String
  }

  /// Addresses in `network`'s first `prefixLength` bits (of 128; IPv4 blocks are mapped
  /// into `::ffff:0:0/96`, as ClientAddress holds IPv4 addresses).
  struct Block: Sendable, Equatable {
    let network: ClientAddress
    let prefixLength: Int

    func contains(_ address: ClientAddress) -> Bool {
      let (highMask, lowMask) = Self.masks(prefixLength)
      return address.high & highMask == network.high & highMask
        && address.low & lowMask == network.low & lowMask
    }

    static func masks(_ length: Int) -> (UInt64, UInt64) {
      func mask(_ bits: Int) -> UInt64 {
        bits <= 0 ? 0 : bits >= 64 ? .max : ~(UInt64.max >> UInt64(bits))
      }
      return (mask(length), mask(length - 64))
    }
  }

  let blocks: [Block]

  /// Nobody is trusted: the TCP peer is always the client.
  public static let none = TrustedProxies(blocks: [])

  init(blocks: [Block]) { self.blocks = blocks }

  /// Comma-separated addresses and CIDR blocks: `127.0.0.1, 10.0.0.0/8, fd00::/8`.
  public init(parsing text: some StringProtocol) throws(Invalid) {
    var blocks: [Block] = []
    for entry in text.split(separator: ",") {
      let entry = entry.trimmingWhitespace()
      guard !entry.isEmpty else { continue }
      guard let block = Self.block(entry) else { throw Invalid(entry: entry) }
      blocks.append(block)
    }
    self.init(blocks: blocks)
  }

  private static func block(_ entry: String) -> Block? {
    let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
    guard let address = ClientAddress(parsing: parts[0]) else { return nil }
    let isIPv4 = !parts[0].contains(":")
    let width = isIPv4 ? 32 : 128
    guard parts.count == 2 else { return Block(network: address, prefixLength: 128) }
    guard parts[1].allSatisfy(\.isASCII), let length = Int(parts[1]), (0...width).contains(length)
    else { return nil }
    return Block(network: address, prefixLength: isIPv4 ? 96 + length : length)
  }

  public var isEmpty: Bool { blocks.isEmpty }

  public func contains(_ address: ClientAddress) -> Bool {
    blocks.contains { $0.contains(address) }
  }

  /// The client a request stands for. From an untrusted peer: the peer, whatever it sent.
  /// From a trusted proxy: walking `X-Forwarded-For` (every such header, in order) from the
  /// right, the first address that is not itself a trusted proxy; each proxy appends the
  /// address it received from, so entries to the left of that one are the client's own
  /// word. An unreadable entry ends the walk at the last hop a proxy vouched for.
  public func client(peer: ClientAddress, headers: HTTPHeaders) -> ClientAddress {
    guard contains(peer) else { return peer }
    let hops = headers.fields.filter { $0.name.caseInsensitiveEquals("X-Forwarded-For") }
      .flatMap { $0.value.split(separator: ",") }
    var client = peer
    for hop in hops.reversed() {
      guard let address = Self.forwardedAddress(hop) else { return client }
      guard contains(address) else { return address }
      client = address
    }
    return client
  }

  /// One `X-Forwarded-For` entry: an address, with a port after IPv4 (`1.2.3.4:5678`) or
  /// in brackets with IPv6 (`[2001:db8::1]:443`) as some proxies write it.
  static func forwardedAddress(_ hop: Substring) -> ClientAddress? {
    let text = hop.trimmingWhitespace()
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]") else { return nil }
      let rest = text[text.index(after: close)...]
      guard
        rest.isEmpty
          || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy { ("0"..."9").contains($0) })
      else { return nil }
      return ClientAddress(parsing: text[text.index(after: text.startIndex)..<close])
    }
    let colons = text.filter { $0 == ":" }.count
    if colons == 1, let colon = text.firstIndex(of: ":") {
      return ClientAddress(parsing: text[..<colon])
    }
    return ClientAddress(parsing: text)
  }
}
