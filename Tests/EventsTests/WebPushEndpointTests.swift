import Events
import Testing

/// Which Web Push endpoints may be stored: the server posts to them, so an address a user
/// picked, including another port of a push service's host, is refused.
@Suite struct WebPushEndpointTests {
  static let publicServices = ["fcm.googleapis.com", "push.services.mozilla.com"]

  func refusal(_ endpoint: String, allowed: [String] = publicServices) -> DeviceAddressError? {
    do {
      _ = try WebPushEndpoint.check(endpoint, allowedHosts: allowed)
      return nil
    } catch {
      return error
    }
  }

  @Test(arguments: [
    "https://fcm.googleapis.com/fcm/send/x", "https://fcm.googleapis.com:443/fcm/send/x",
    "https://FCM.googleapis.com:0443/fcm/send/x",
    "https://updates.push.services.mozilla.com/wpush/v2/gAAAA",
  ])
  func anEndpointOfAPushServiceOnHTTPSsPortIsTaken(endpoint: String) {
    #expect(refusal(endpoint) == nil)
  }

  @Test(arguments: [25, 80, 8443, 22, 65535])
  func anotherPortOfAnAllowedHostIsRefused(port: Int) {
    #expect(
      refusal("https://fcm.googleapis.com:\(port)/fcm/send/x")
        == .endpointPortNotAllowed(port))
    #expect(
      refusal("https://updates.push.services.mozilla.com:\(port)/wpush")
        == .endpointPortNotAllowed(port))
  }

  /// A port that is no port is no https URL: URLComponents alone would read one too large
  /// for an Int as none at all, and the check would have taken it for 443.
  @Test(arguments: [
    "https://fcm.googleapis.com:0/x", "https://fcm.googleapis.com:65536/x",
    "https://fcm.googleapis.com:99999/x", "https://fcm.googleapis.com:18446744073709551641/x",
    "https://fcm.googleapis.com:/x", "https://fcm.googleapis.com:+25/x",
  ])
  func aPortOutOfRangeIsABadEndpoint(endpoint: String) {
    #expect(refusal(endpoint) == .badEndpoint)
  }

  /// An allowed-hosts entry that names a port (the local doubles') allows that port, on
  /// that host and the names below it, and no other.
  @Test func anEntryNamingAPortAllowsThatPortOnly() {
    let allowed = ["localhost:8443", "push.test"]
    #expect(refusal("https://localhost:8443/push/a", allowed: allowed) == nil)
    #expect(refusal("https://localhost/push/a", allowed: allowed) == nil)
    #expect(
      refusal("https://localhost:8444/push/a", allowed: allowed) == .endpointPortNotAllowed(8444))
    #expect(
      refusal("https://push.test:8443/push/a", allowed: allowed) == .endpointPortNotAllowed(8443))
    #expect(
      refusal("https://127.0.0.1:8443/push/a", allowed: allowed)
        == .endpointHostNotAllowed("127.0.0.1"))
    #expect(
      refusal("https://localhost.attacker.example:8443/", allowed: allowed)
        == .endpointHostNotAllowed("localhost.attacker.example"))
  }

  @Test func entriesAreHostNamesWithAPortOrWithout() {
    #expect(
      WebPushEndpoint.HostAndPort("Localhost:8443")?.host == "localhost"
        && WebPushEndpoint.HostAndPort("localhost:8443")?.port == 8443)
    #expect(WebPushEndpoint.HostAndPort("push.test")?.port == nil)
    for entry in [
      "127.0.0.1:8443", "localhost:0", "localhost:65536", "localhost:", ":8443", "[::1]:8443",
    ] {
      #expect(WebPushEndpoint.HostAndPort(entry) == nil, "\(entry)")
    }
  }
}
