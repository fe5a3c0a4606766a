import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import ImageServeWorker

/// A genuine URL changed in any part is not the credential any more: 404, the same plain
/// answer as for a notification that does not exist, and PostgreSQL is never asked.
@Suite struct PushImageTamperTests {
  /// A genuine URL and the photo it opens.
  private func genuine(_ fixture: ServeFixture) async throws -> (
    target: String, alarm: ServeFixture.Seeded
  ) {
    try await fixture.seedDirectory()
    let alarm = try await fixture.seedAlarm(photo: .captured(TestPhotos.small))
    let target = fixture.pushTarget(alarm.notificationID)
    #expect(try await fixture.get(target).status == 200)
    return (target, alarm)
  }

  private static func replacing(_ text: String, at offset: Int, with character: Character) -> String
  {
    var characters = Array(text)
    characters[offset] = character
    return String(characters)
  }

  @Test func everyCharacterOfTheSignatureMatters() async throws {
    // Raised so that 43 forgeries from one address stay under its budget.
    try await ServeFixture.with(["MOWDECK_NOTIFICATIONS_IMAGE_RATE_PER_NOTIFICATION": "1000"]) {
      fixture in
      let (target, _) = try await genuine(fixture)
      let signatureStart = target.range(of: "&s=")!.upperBound
      let offset = target.distance(from: target.startIndex, to: signatureStart)
      var statuses: [Int] = []
      for position in offset..<target.count {
        let original = Array(target)[position]
        // Another character of the base64url alphabet, so the shape stays plausible.
        let swapped: Character = original == "A" ? "B" : "A"
        statuses.append(
          try await fixture.get(Self.replacing(target, at: position, with: swapped)).status)
      }
      #expect(statuses.count == 43)
      #expect(statuses.allSatisfy { $0 == 404 }, "\(statuses)")
    }
  }

  @Test func everyCharacterOfTheIdAndExpiryMatters() async throws {
    try await ServeFixture.with(["MOWDECK_NOTIFICATIONS_IMAGE_RATE_PER_NOTIFICATION": "1000"]) {
      fixture in
      let (target, _) = try await genuine(fixture)
      let idStart = ImageURLSigner.path.count
      let queryEnd = target.range(of: "&s=")!.lowerBound
      var positions = Array(idStart..<(idStart + 36)).filter { Array(target)[$0] != "-" }
      let expiryStart = target.distance(
        from: target.startIndex, to: target.range(of: "?e=")!.upperBound)
      positions += Array(expiryStart..<target.distance(from: target.startIndex, to: queryEnd))
      for position in positions {
        let original = Array(target)[position]
        let swapped: Character = original == "1" ? "2" : "1"
        let response = try await fixture.get(Self.replacing(target, at: position, with: swapped))
        #expect(response.status == 404, "position \(position) of \(target)")
      }
    }
  }

  @Test func aURLForAnotherNotificationOrExpiryDoesNotCarryOver() async throws {
    try await ServeFixture.with { fixture in
      let (target, alarm) = try await genuine(fixture)
      let signature = String(target[target.range(of: "&s=")!.upperBound...])
      let id = alarm.notificationID.uuidString.lowercased()
      let expiry = Int64(fixture.clock.now().timeIntervalSince1970) + 600
      // The same signature with a later expiry, or on another notification.
      #expect(
        try await fixture.get("\(ImageURLSigner.path)\(id)?e=\(expiry + 3600)&s=\(signature)")
          .status == 404)
      #expect(
        try await fixture.get(
          "\(ImageURLSigner.path)\(UUID().uuidString.lowercased())?e=\(expiry)&s=\(signature)"
        ).status == 404)
    }
  }

  @Test func aURLSignedWithThePreviousKeyIsAccepted() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let alarm = try await fixture.seedAlarm(photo: .captured(TestPhotos.small))
      let previous = ImageURLSigner(key: Array(ServeFixture.previousSecret.utf8))
      let response = try await fixture.get(
        fixture.pushTarget(alarm.notificationID, signer: previous))
      #expect(response.status == 200)
      #expect(response.body == TestPhotos.small)
    }
  }

  @Test func aURLSignedWithAnUnknownKeyIs404() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let alarm = try await fixture.seedAlarm(photo: .captured(TestPhotos.small))
      let stranger = ImageURLSigner(key: Array("some-other-secret".utf8))
      #expect(
        try await fixture.get(fixture.pushTarget(alarm.notificationID, signer: stranger)).status
          == 404)
    }
  }

  /// Shapes a genuine URL can be bent into: each answers 404 (or 400/405 for a broken
  /// request or another method), never 200 and never a hint.
  @Test func malformedTargetsAndMethodsGetPlainAnswers() async throws {
    try await ServeFixture.with(["MOWDECK_NOTIFICATIONS_IMAGE_RATE_PER_NOTIFICATION": "1000"]) {
      fixture in
      let (target, alarm) = try await genuine(fixture)
      let id = alarm.notificationID.uuidString.lowercased()
      let query = String(target[target.firstIndex(of: "?")!...])
      let e = String(query.dropFirst(3).prefix(while: { $0 != "&" }))
      let s = String(target[target.range(of: "&s=")!.upperBound...])
      let path = ImageURLSigner.path
      let bent = [
        "\(path)\(id)",  // no query
        "\(path)\(id)?",  // empty query
        "\(path)\(id)?e=\(e)",  // no signature
        "\(path)\(id)?s=\(s)",  // no expiry
        "\(path)\(id)?e=\(e)&s=\(s)&s=\(s)",  // repeated
        "\(path)\(id)?e=\(e)&e=\(e)&s=\(s)",
        "\(path)\(id)?e=\(e)&s=\(s)&x=1",  // extra parameter
        "\(path)\(id)?e=\(e)&s=\(s)&",  // trailing separator
        "\(path)\(id)?e=&s=\(s)",  // empty
        "\(path)\(id)?e=\(e)&s=\(s)=",
        "\(path)\(id)?e=+\(e)&s=\(s)",  // sign
        "\(path)\(id)?e=0\(e)&s=\(s)",  // leading zero: another text, another signature
        "\(path)\(id)?e=\(e)0000000&s=\(s)",  // overlong expiry
        "\(path)\(id)?e=1e9&s=\(s)",  // not a decimal
        "\(path)\(id)?%65=\(e)&s=\(s)",  // percent-encoded name
        "\(path)\(id)?e=\(e)&s=\(s.dropLast())%\(String(format: "%02X", Array(s.utf8).last!))",
        "\(path)\(id.uppercased())?e=\(e)&s=\(s)",  // uppercase id
        "\(path)\(id.replacingOccurrences(of: "-", with: ""))?e=\(e)&s=\(s)",
        "\(path)\(id)/?e=\(e)&s=\(s)",  // extra segment
        "\(path)\(id)/x?e=\(e)&s=\(s)",
        "\(path)%2e%2e/\(id)?e=\(e)&s=\(s)",
        "\(path.replacingOccurrences(of: "push-images", with: "push-image%73"))\(id)?e=\(e)&s=\(s)",
        "/api/v1/notifications//push-images/\(id)?e=\(e)&s=\(s)",
        "\(path)\(id)?e=\(e)&s=\(s)\(String(repeating: "A", count: 4000))",  // overlong
        "\(path)\(id)?e=\(e)&s=\(s)#fragment",
        "\(path)\(id)?e=\(e)&s=+\(s.dropFirst())",  // `+` for `-`, as standard base64 has it
        "\(path)\(id);e=\(e)&s=\(s)",
      ]
      for text in bent {
        let response = try await fixture.get(text)
        #expect(response.status == 404, "\(text)")
        #expect(response.status != 404 || response.text == "Not Found\n", "\(text)")
      }
      // Another method on the route: 405 with Allow, on a genuine URL too.
      for method in ["POST", "PUT", "DELETE", "PATCH"] {
        let response = try await RawHTTP.request(fixture.port, method: method, target: target)
        #expect(response.status == 405, "\(method)")
        #expect(response.headers["allow"] == "GET, HEAD")
      }
      // Broken requests: libmicrohttpd answers 400 with its own generic text, or just
      // closes; our handlers never see them.
      for broken in [
        "GET \(target) HTTP/1.1\r\nConnection: close\r\n\r\n",  // no Host
        "GET \(path)\(id) ?e=\(e)&s=\(s) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        "GET \(target) HTTP/1.1\r\nHost: x\r\nBad Header\r\nConnection: close\r\n\r\n",
      ] {
        let reply = String(
          decoding: try await RawHTTP.exchange(fixture.port, Array(broken.utf8)), as: UTF8.self)
        #expect(reply.isEmpty || reply.hasPrefix("HTTP/1.1 400 "), "\(broken.debugDescription)")
        #expect(!reply.contains("notifications"), "no hint of what exists")
      }
      // A forged request for a stored photo never became an `image.served`.
      #expect(try await fixture.servedEvents(alarm) == 1)
    }
  }
}
