import Events
import Foundation
import Infrastructure
import Testing

@testable import ImageServeWorker

/// The plain-Swift parsers and decisions (also fuzzed by fuzz/run.sh), at every boundary.
@Suite struct ParsingTests {
  static let id = "0b7c3b0e-1234-4a5b-8c9d-0123456789ab"
  static let signature = String(repeating: "A", count: 43)
  static let path = PushImageTarget.pathPrefix + id

  @Test func aWellFormedTargetSplitsIntoItsThreeParts() throws {
    let target = try #require(
      PushImageTarget(target: "\(Self.path)?e=1900000000&s=\(Self.signature)"))
    #expect(target.notificationID == Self.id)
    #expect(target.expiry == "1900000000")
    #expect(target.signature == Self.signature)
    let swapped = try #require(PushImageTarget(target: "\(Self.path)?s=\(Self.signature)&e=7"))
    #expect(swapped.expiry == "7")
    #expect(swapped.signature == Self.signature)
  }

  @Test(arguments: [
    "", "/", PushImageTarget.pathPrefix, "\(path)", "\(path)?", "\(path)?e=1", "\(path)?s=x",
    "\(path)?e=1&s=x&s=x", "\(path)?e=1&e=1&s=x", "\(path)?e=1&s=x&", "\(path)?&e=1&s=x",
    "\(path)?e=1&s=x&t=1", "\(path)?e=&s=x", "\(path)?e=1&s=", "\(path)?e1&s=x",
    "\(path)?e=1=&s=x", "\(path)?ee=1&s=x", "\(path)?E=1&s=x", "\(path)?e=01&s=x",
    "\(path)?e=1&s=x%41", "\(path)?e=1&s=x+y", "\(path)?e=1&s=x y", "\(path)?e=1&s=x#y",
    "\(path)?e=1&s=x.y", "\(path)/?e=1&s=x", "\(path)/a?e=1&s=x",
    "\(PushImageTarget.pathPrefix)?e=1&s=x", "/api/v1/notifications/push-images?e=1&s=x",
    "/API/v1/notifications/push-images/\(id)?e=1&s=x", "\(path)?e=1&s=é",
    "\(path)?e=1&s=\(String(repeating: "A", count: 200))",
    // Found by fuzz/run.sh: Foundation reads this as 00000000-0000-..., a second spelling.
    "\(PushImageTarget.pathPrefix)0000-000-0000-0000-0000-000000003ddf?e=1&s=x",
    "\(PushImageTarget.pathPrefix)\(id.uppercased())?e=1&s=x",
  ])
  func malformedTargetsAreRefused(_ target: String) {
    #expect(PushImageTarget(target: target) == nil)
  }

  @Test func theLongestGenuineURLFits() {
    let longest = "\(Self.path)?e=999999999999&s=\(Self.signature)"
    #expect(PushImageTarget(target: longest) != nil)
    #expect(longest.utf8.count <= PushImageTarget.maxLength)
  }

  @Test func aSignedURLParsesAndVerifiesAndAnyCharacterChangedDoesNot() throws {
    let signer = ImageURLSigner(key: Array("k".utf8))
    let id = UUID()
    let target = signer.url(origin: "", notificationID: id, expiry: 1_900_000_000)
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    func verdict(_ text: String) -> ImageURLSigner.Verdict {
      guard let parts = PushImageTarget(target: text) else { return .invalid }
      return signer.verify(
        notificationID: String(parts.notificationID), expiry: String(parts.expiry),
        signature: String(parts.signature), now: now)
    }
    #expect(verdict(target) == .valid(id))
    let characters = Array(target)
    var accepted: [Int] = []
    for position in PushImageTarget.pathPrefix.count..<characters.count {
      for replacement in ["0", "a", "A", "_", "-", "%"] as [Character]
      where replacement != characters[position] {
        var changed = characters
        changed[position] = replacement
        if verdict(String(changed)) != .invalid { accepted.append(position) }
      }
    }
    #expect(accepted.isEmpty, "positions \(accepted)")
  }

  @Test(
    arguments: [
      (false, nil, nil, false, PhotoAvailability.none),
      (true, "pending", nil, false, .notReady),
      (true, "captured", "captured", true, .ready),
      (true, "captured", "captured", false, .gone),
      (true, "failed", "failed", false, .gone),
      (true, "failed", "failed", true, .gone),
      (true, "failed", nil, false, .gone),
      (true, "captured", nil, false, .gone),
      (true, nil, nil, false, .gone),
    ] as [(Bool, String?, String?, Bool, PhotoAvailability)])
  func photoAvailabilityFollowsTheRows(
    hasImage: Bool, reservation: String?, stored: String?, fresh: Bool, expected: PhotoAvailability
  ) {
    #expect(
      PhotoAvailability.decide(
        hasImage: hasImage, reservation: reservation, stored: stored, fresh: fresh)
        == expected)
  }

  @Test func statusesOfTheAvailabilities() {
    #expect(PhotoAvailability.ready.status == 200)
    #expect(PhotoAvailability.notReady.status == 404)
    #expect(PhotoAvailability.none.status == 404)
    #expect(PhotoAvailability.gone.status == 410)
  }

  @Test func inboxQueries() {
    let id = UUID()
    #expect(InboxQuery(nil) == InboxQuery())
    #expect(InboxQuery("") == InboxQuery())
    #expect(InboxQuery("limit=1") == InboxQuery(limit: 1))
    #expect(InboxQuery("limit=100") == InboxQuery(limit: 100))
    #expect(
      InboxQuery("before=\(id.uuidString.lowercased())&limit=7") == InboxQuery(limit: 7, before: id)
    )
    for bad in [
      "limit=0", "limit=101", "limit=0100", "limit=-1", "limit=1&limit=1", "limit", "x=1", "&",
      "before=\(id)x", "before=\(id.uuidString)", "before=0000-000-0000-0000-0000-000000003ddf",
    ] {
      #expect(InboxQuery(bad[...]) == nil, "\(bad)")
    }
  }

  @Test func bearerTokens() {
    let token = String(repeating: "ab", count: 32)
    func parse(_ values: [String]) -> String? {
      SessionAuth.bearerToken(HTTPHeaders(values.map { ("Authorization", $0) }))
    }
    #expect(parse(["Bearer \(token)"]) == token)
    #expect(parse(["bearer \(token)"]) == token)
    #expect(parse([]) == nil)
    #expect(parse(["Bearer \(token)", "Bearer \(token)"]) == nil)
    #expect(parse(["Bearer \(token.dropLast())"]) == nil)
    #expect(parse(["Bearer \(token.dropLast())g"]) == nil)
    #expect(parse(["Bearer\t\(token)"]) == nil)
    #expect(parse(["Token \(token)"]) == nil)
  }

  @Test func deviceBodies() {
    let token = String(repeating: "0f", count: 32)
    #expect(
      (try? DeviceRoutes.parse(Array(#"{"token":"\#(token)"}"#.utf8)).get())?.environment
        == "production")
    #expect(
      (try? DeviceRoutes.parse(
        Array(#"{"token":"\#(token.uppercased())","environment":"sandbox"}"#.utf8)
      ).get())?.token == token)
    #expect(
      (try? DeviceRoutes.parse(Array(#"{"token":"\#(token)","environment":"dev"}"#.utf8)).get())
        == nil)
  }

  /// Each 400 says what is wrong (docs/interfaces.md#apns-devices); a `null` environment is
  /// the default, one that is not a string is a bad one.
  @Test func aBadDeviceBodySaysWhatIsWrong() {
    let token = String(repeating: "0f", count: 32)
    func message(_ body: String) -> String? {
      guard case .failure(let bad) = DeviceRoutes.parse(Array(body.utf8)) else { return nil }
      return bad.message
    }
    for body in ["", "not json", "[]", #""token""#, #"{"token":"\#(token)""#] {
      #expect(message(body) == "body is not a JSON object", "\(body)")
    }
    for body in ["{}", #"{"token":5}"#, #"{"token":null}"#, #"{"environment":"sandbox"}"#] {
      #expect(message(body) == "token is missing", "\(body)")
    }
    #expect(message(#"{"token":"abc"}"#) == "token must be 64 hexadecimal digits")
    for environment in [#""staging""#, "5", "true", #"["sandbox"]"#] {
      #expect(
        message(#"{"token":"\#(token)","environment":\#(environment)}"#)
          == "environment must be sandbox or production", "\(environment)")
    }
    #expect(
      (try? DeviceRoutes.parse(Array(#"{"token":"\#(token)","environment":null}"#.utf8)).get())
        == DeviceRoutes.Device(token: token, environment: "production"))
  }
}
