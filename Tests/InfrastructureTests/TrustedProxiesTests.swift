import Infrastructure
import Testing

/// Whose `X-Forwarded-For` is believed, and which hop of it names the client.
@Suite struct TrustedProxiesTests {
  private func address(_ text: String) throws -> ClientAddress {
    try #require(ClientAddress(parsing: text), "\(text)")
  }

  private func client(
    _ proxies: String, peer: String, forwardedFor values: [String]
  ) throws -> String {
    let trusted = try TrustedProxies(parsing: proxies)
    let headers = HTTPHeaders(values.map { (name: "X-Forwarded-For", value: $0) })
    return trusted.client(peer: try address(peer), headers: headers).description
  }

  @Test func addressesParseAsTheServerSeesThem() throws {
    #expect(try address("203.0.113.7").description == "203.0.113.7")
    #expect(try address("::ffff:203.0.113.7") == (try address("203.0.113.7")))
    #expect(try address("2001:db8::1").description == "2001:db8::1")
    for bad in ["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "fe80::1%eth0", "1.2.3.4:80", "[::1]", "x"] {
      #expect(ClientAddress(parsing: bad) == nil, "\(bad)")
    }
  }

  @Test func anUntrustedPeersHeaderIsIgnored() throws {
    #expect(try client("", peer: "198.51.100.9", forwardedFor: ["203.0.113.1"]) == "198.51.100.9")
    #expect(
      try client("10.0.0.0/8", peer: "198.51.100.9", forwardedFor: ["203.0.113.1"])
        == "198.51.100.9")
  }

  @Test func aTrustedPeerWithoutAHeaderIsTheClient() throws {
    #expect(try client("127.0.0.1", peer: "127.0.0.1", forwardedFor: []) == "127.0.0.1")
  }

  @Test func theRightMostUntrustedHopIsTheClient() throws {
    // The left-most entry is whatever the client wrote; the proxy appended the rest.
    #expect(
      try client(
        "127.0.0.1, 10.0.0.0/8", peer: "127.0.0.1",
        forwardedFor: ["192.0.2.66, 198.51.100.7, 10.1.2.3"]) == "198.51.100.7")
    // Headers repeated are one list, in order.
    #expect(
      try client(
        "127.0.0.1, 10.0.0.0/8", peer: "127.0.0.1",
        forwardedFor: ["192.0.2.66", "198.51.100.7", "10.1.2.3"]) == "198.51.100.7")
  }

  @Test func portsAndBracketsAreTheAddressesTheyWrap() throws {
    #expect(
      try client("127.0.0.1", peer: "127.0.0.1", forwardedFor: ["198.51.100.7:51234"])
        == "198.51.100.7")
    #expect(
      try client("::1", peer: "::1", forwardedFor: ["[2001:db8::7]:443"]) == "2001:db8::7")
    #expect(try client("::1", peer: "::1", forwardedFor: ["2001:db8::8"]) == "2001:db8::8")
  }

  @Test func anUnreadableHopStopsAtTheLastOneAProxyVouchedFor() throws {
    #expect(
      try client(
        "127.0.0.1, 10.0.0.0/8", peer: "127.0.0.1", forwardedFor: ["unknown, 10.9.9.9"])
        == "10.9.9.9")
    #expect(try client("127.0.0.1", peer: "127.0.0.1", forwardedFor: ["nonsense"]) == "127.0.0.1")
  }

  @Test func aChainOfTrustedProxiesOnlyEndsAtItsFirstHop() throws {
    #expect(
      try client("10.0.0.0/8", peer: "10.0.0.1", forwardedFor: ["10.0.0.3, 10.0.0.2"])
        == "10.0.0.3")
  }

  @Test func blocksMatchTheirPrefixOnly() throws {
    let proxies = try TrustedProxies(parsing: "192.168.4.0/22, 2001:db8:40::/44, 0.0.0.0/0")
    #expect(proxies.contains(try address("8.8.8.8")))  // every IPv4 address
    #expect(!proxies.contains(try address("2001:db9::1")))
    let narrow = try TrustedProxies(parsing: "192.168.4.0/22, 2001:db8:40::/44")
    #expect(narrow.contains(try address("192.168.7.255")))
    #expect(!narrow.contains(try address("192.168.8.0")))
    #expect(narrow.contains(try address("2001:db8:4f:ffff::1")))
    #expect(!narrow.contains(try address("2001:db8:50::1")))
    #expect(!narrow.contains(try address("::ffff:192.168.8.1")))
    let loopback = try address("127.0.0.1")
    #expect(TrustedProxies.none.isEmpty && !TrustedProxies.none.contains(loopback))
  }
}
