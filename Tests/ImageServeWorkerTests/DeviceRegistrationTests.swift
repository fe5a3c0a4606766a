import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import ImageServeWorker

/// `POST /api/v1/notifications/devices` and `DELETE .../devices/{device}` over real HTTP
/// against real PostgreSQL: every platform registered, the refusals named, and a Web Push
/// endpoint that would make the server post to an address a user picked refused.
@Suite struct DeviceRegistrationTests {
  static let p256dh = Base64URL.encode([4] + [UInt8](repeating: 7, count: 64))
  static let auth = Base64URL.encode([UInt8](repeating: 9, count: 16))

  /// What `PushSubscription.toJSON()` gives, with the platform.
  static func subscription(_ endpoint: String, p256dh: String = p256dh, auth: String = auth)
    -> String
  {
    #"{"platform": "webpush", "endpoint": "\#(endpoint)", "expirationTime": null, "#
      + #""keys": {"p256dh": "\#(p256dh)", "auth": "\#(auth)"}}"#
  }

  private func post(_ fixture: ServeFixture, _ body: String, session: String) async throws
    -> RawResponse
  {
    try await RawHTTP.request(
      fixture.port, method: "POST", target: DeviceRoutes.registrationPattern,
      headers: ["Authorization": "Bearer \(session)", "Content-Type": "application/json"],
      body: Array(body.utf8))
  }

  private func delete(_ fixture: ServeFixture, _ id: String, session: String) async throws
    -> Int
  {
    try await RawHTTP.request(
      fixture.port, method: "DELETE", target: "/api/v1/notifications/devices/\(id)",
      headers: ["Authorization": "Bearer \(session)"]
    ).status
  }

  @Test func everyPlatformIsRegisteredAndOnlyItsOwnerRemovesIt() async throws {
    try await ServeFixture.with(["MOWDECK_NOTIFICATIONS_NTFY_URL": "https://ntfy.example.com/"]) {
      fixture in
      try await fixture.seedDirectory()
      let session = try await fixture.session(for: "u1")
      let apns = try await post(
        fixture, #"{"platform": "apns", "token": "\#(String(repeating: "AB", count: 32))"}"#,
        session: session)
      #expect(apns.status == 201)
      #expect(apns.json?["platform"]?.string == "apns")
      #expect(apns.json?["environment"]?.string == "production")
      let endpoint = "https://wns2-par02p.notify.windows.com/w/?token=abc"
      let webPush = try await post(fixture, Self.subscription(endpoint), session: session)
      #expect(webPush.status == 201)
      #expect(webPush.json?["platform"]?.string == "webpush")
      #expect(webPush.json?["environment"] == nil)
      let fcm = try await post(
        fixture, #"{"platform": "fcm", "token": "fcm-token_1:ABC"}"#, session: session)
      #expect(fcm.status == 201)
      let ntfy = try await post(fixture, #"{"platform": "ntfy"}"#, session: session)
      #expect(ntfy.status == 201)
      let topic = try #require(ntfy.json?["topic"]?.string)
      #expect(topic.hasPrefix("mowdeck-") && topic.count == 40)
      #expect(ntfy.json?["subscribe_url"]?.string == "https://ntfy.example.com/\(topic)")

      let rows = try await fixture.db.pool.query(
        """
        SELECT platform, token, environment, webpush_p256dh, webpush_auth FROM devices
        WHERE user_id = 'u1' AND platform <> 'apns' ORDER BY platform
        """)
      #expect(try rows.map { try $0.string("platform") } == ["fcm", "ntfy", "webpush"])
      #expect(try rows[2].string("token") == endpoint)
      #expect(try rows[2].optionalString("webpush_p256dh") == Self.p256dh)
      #expect(try rows[2].optionalString("webpush_auth") == Self.auth)
      #expect(try rows.allSatisfy { try $0.optionalString("environment") == nil })

      // The same subscription again keeps its id and moves to whoever registers it.
      let other = try await fixture.session(for: "u2")
      let again = try await post(fixture, Self.subscription(endpoint), session: other)
      #expect(again.json?["device_id"]?.string == webPush.json?["device_id"]?.string)
      let id = try #require(webPush.json?["device_id"]?.string)
      #expect(try await delete(fixture, id, session: session) == 404)
      #expect(try await delete(fixture, id, session: other) == 204)
      #expect(try await delete(fixture, id, session: other) == 404)
      #expect(try await delete(fixture, id.uppercased(), session: other) == 404)
      #expect(try await delete(fixture, "not-a-uuid", session: other) == 404)
      #expect(try await delete(fixture, UUID().uuidString.lowercased(), session: "nobody") == 401)
    }
  }

  @Test func theListGivesTheUsersOwnDevicesWithTheStartOfTheirAddressesOnly() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let session = try await fixture.session(for: "u1")
      let token = String(repeating: "c", count: 64)
      _ = try await post(fixture, #"{"platform": "apns", "token": "\#(token)"}"#, session: session)
      _ = try await post(
        fixture, #"{"platform": "fcm", "token": "fcm-secret-token"}"#,
        session: try await fixture.session(for: "u2"))
      let listed = try await RawHTTP.request(
        fixture.port, method: "GET", target: DeviceRoutes.registrationPattern,
        headers: ["Authorization": "Bearer \(session)"])
      #expect(listed.status == 200)
      let answer = try WireCoding.decode(DeviceListAnswer.self, from: listed.body)
      #expect(answer.devices.count == 1)
      #expect(answer.devices.first?.platform == "apns")
      #expect(answer.devices.first?.address == "cccccccc")
      #expect(answer.devices.first?.environment == "production")
      #expect(answer.devices.first?.active == true)
      let text = String(decoding: listed.body, as: UTF8.self)
      #expect(!text.contains(token) && !text.contains("fcm-secret"))
      let refused = try await RawHTTP.request(
        fixture.port, method: "GET", target: DeviceRoutes.registrationPattern,
        headers: ["Authorization": "Bearer nobody"])
      #expect(refused.status == 401)
    }
  }

  @Test func anEndpointOffTheAllowedPushServicesIsRefused() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let session = try await fixture.session(for: "u1")
      for endpoint in [
        "https://127.0.0.1/push", "https://localhost/push", "https://[::1]/push",
        "https://10.0.0.5/push", "https://169.254.169.254/latest/meta-data",
        "https://2130706433/push", "http://fcm.googleapis.com/fcm/send/x",
        "https://evilfcm.googleapis.com/x", "https://fcm.googleapis.com.attacker.example/x",
        "https://user:pw@fcm.googleapis.com/fcm/send/x", "ftp://fcm.googleapis.com/x",
        "fcm.googleapis.com/fcm/send/x", "",
        // An allowed host on a port of the user's choosing: never HTTPS's 443.
        "https://fcm.googleapis.com:25/fcm/send/x", "https://fcm.googleapis.com:8443/fcm/send/x",
        "https://web.push.apple.com:22/QGuQ", "https://fcm.googleapis.com:99999/fcm/send/x",
        "https://fcm.googleapis.com:18446744073709551641/fcm/send/x",
      ] {
        let answer = try await post(fixture, Self.subscription(endpoint), session: session)
        #expect(answer.status == 400, "\(endpoint)")
        #expect((answer.json?["error"]?.string)?.hasPrefix("endpoint") == true, "\(endpoint)")
      }
      #expect(
        try await fixture.db.count("SELECT count(*) AS n FROM devices WHERE platform = 'webpush'")
          == 0)
      // The public services' own endpoints are taken.
      for endpoint in [
        "https://fcm.googleapis.com/fcm/send/dGVzdA:APA91b",
        "https://updates.push.services.mozilla.com/wpush/v2/gAAAA",
        "https://web.push.apple.com/QGuQyavXutnMH",
        "https://fcm.googleapis.com:443/fcm/send/dGVzdA:APA91c",
      ] {
        #expect(
          try await post(fixture, Self.subscription(endpoint), session: session).status == 201,
          "\(endpoint)")
      }
    }
  }

  /// The local doubles listen on ports of their own: an allowed-hosts entry naming a port
  /// allows that port, and only on that host.
  @Test func aPortIsTakenOnlyWhereTheAllowedHostNamesIt() async throws {
    try await ServeFixture.with([
      "MOWDECK_NOTIFICATIONS_WEBPUSH_HOSTS": "localhost:8443,fcm.googleapis.com"
    ]) { fixture in
      try await fixture.seedDirectory()
      let session = try await fixture.session(for: "u1")
      for endpoint in ["https://localhost:8443/push/a", "https://fcm.googleapis.com/fcm/send/b"] {
        #expect(
          try await post(fixture, Self.subscription(endpoint), session: session).status == 201,
          "\(endpoint)")
      }
      for (endpoint, port) in [
        ("https://localhost:8444/push/a", 8444),
        ("https://fcm.googleapis.com:8443/fcm/send/b", 8443),
      ] {
        let answer = try await post(fixture, Self.subscription(endpoint), session: session)
        #expect(answer.status == 400, "\(endpoint)")
        #expect(
          answer.json?["error"]?.string
            == DeviceAddressError.endpointPortNotAllowed(port).description)
      }
      #expect(
        try await fixture.db.count("SELECT count(*) AS n FROM devices WHERE platform = 'webpush'")
          == 2)
    }
  }

  @Test func aBadBodyIsA400NamingTheField() async throws {
    try await ServeFixture.with(["MOWDECK_NOTIFICATIONS_WEBPUSH_HOSTS": "push.test"]) { fixture in
      try await fixture.seedDirectory()
      let session = try await fixture.session(for: "u1")
      let endpoint = "https://push.test/s/1"
      let cases: [(String, String)] = [
        ("not json", "body is not a JSON object"),
        ("[]", "body is not a JSON object"),
        (#"{}"#, "platform must be apns, webpush, fcm or ntfy"),
        (#"{"platform": "sms"}"#, "platform must be apns, webpush, fcm or ntfy"),
        (#"{"platform": 3}"#, "platform must be a string"),
        (#"{"platform": "apns", "token": "abc"}"#, "token must be 64 hexadecimal digits"),
        (
          #"{"platform": "apns", "token": "\#(String(repeating: "a", count: 64))", "environment": "qa"}"#,
          "environment must be sandbox or production"
        ),
        (
          #"{"platform": "fcm"}"#,
          "token must be an FCM registration token (1 to 4096 of A-Z a-z 0-9 _ : -)"
        ),
        (
          #"{"platform": "fcm", "token": "a b"}"#,
          "token must be an FCM registration token (1 to 4096 of A-Z a-z 0-9 _ : -)"
        ),
        (#"{"platform": "ntfy"}"#, "platform ntfy is not offered by this server"),
        (
          #"{"platform": "webpush", "endpoint": "https://push.test/s/1", "keys": 1}"#,
          "keys must be an object"
        ),
        (
          #"{"platform": "webpush", "endpoint": "https://push.test/s/1", "keys": {"p256dh": 1}}"#,
          "keys.p256dh must be a string"
        ),
        (Self.subscription(endpoint, p256dh: "AAAA"), DeviceAddressError.badP256DH.description),
        (
          Self.subscription(
            endpoint, p256dh: Base64URL.encode([2] + [UInt8](repeating: 1, count: 64))),
          DeviceAddressError.badP256DH.description
        ),
        (
          Self.subscription(endpoint, auth: Base64URL.encode([1, 2, 3])),
          DeviceAddressError.badAuth.description
        ),
        (
          Self.subscription("https://fcm.googleapis.com/x"),
          "endpoint host fcm.googleapis.com is not an allowed push service"
        ),
        (
          Self.subscription("https://push.test:25/s/1"),
          "endpoint port 25 is not allowed: push services listen on 443"
        ),
      ]
      for (body, error) in cases {
        let answer = try await post(fixture, body, session: session)
        #expect(answer.status == 400, "\(body)")
        #expect(answer.json?["error"]?.string == error, "\(body)")
      }
      #expect(try await fixture.db.count("SELECT count(*) AS n FROM devices") == 0)
      #expect(try await post(fixture, Self.subscription(endpoint), session: session).status == 201)
      #expect(try await post(fixture, #"{"platform": "ntfy"}"#, session: "nobody").status == 401)
    }
  }
}
