import Events
import Foundation
import Infrastructure
import Testing

/// Settings that parse but cannot work (issue 26, item 6), and secrets read from files: each
/// refused with one line that names the variable and never repeats a secret.
@Suite struct RefusedSettingsTests {
  /// The error `environment` is refused with; nil when it is accepted.
  private func refusal(_ environment: [String: String]) -> ConfigurationError? {
    do {
      _ = try Configuration.load(from: environment)
      return nil
    } catch {
      return error
    }
  }

  private func expectOneLine(_ error: ConfigurationError?, naming variable: String) {
    #expect(error?.variable == variable, "\(String(describing: error))")
    #expect(error?.description.contains(variable) == true)
    #expect(error?.description.contains("\n") == false)
  }

  @Test(arguments: ["MOWDECK_NOTIFICATIONS_APP_URL", "MOWDECK_NOTIFICATIONS_IMAGE_BASE_URL"])
  func anHTTPOriginIsRefusedUnlessDevelopmentAllowsIt(variable: String) throws {
    let origin = [variable: "http://mowdeck.example.com"]
    let error = refusal(origin)
    expectOneLine(error, naming: variable)
    #expect(error?.description.contains("MOWDECK_NOTIFICATIONS_ALLOW_HTTP_ORIGIN") == true)
    let allowed = try Configuration.load(
      from: origin.merging(["MOWDECK_NOTIFICATIONS_ALLOW_HTTP_ORIGIN": "1"]) { $1 })
    #expect(allowed.imageBaseURL == "http://mowdeck.example.com")
    #expect(refusal(origin.merging(["MOWDECK_NOTIFICATIONS_ALLOW_HTTP_ORIGIN": "0"]) { $1 }) != nil)
    #expect(refusal([variable: "HTTPS://mowdeck.example.com"]) == nil)
  }

  @Test func theAllowFlagIsOneOrZero() {
    expectOneLine(
      refusal(["MOWDECK_NOTIFICATIONS_ALLOW_HTTP_ORIGIN": "yes please"]),
      naming: "MOWDECK_NOTIFICATIONS_ALLOW_HTTP_ORIGIN")
  }

  @Test(arguments: [
    ("MOWDECK_NOTIFICATIONS_APNS_KEY_ID", "CHANGE_ME"),
    ("MOWDECK_NOTIFICATIONS_APNS_TEAM_ID", "CHANGE_ME"),
    ("MOWDECK_NOTIFICATIONS_APNS_KEY_ID", "CHANGEME01"),
    ("MOWDECK_NOTIFICATIONS_APNS_TEAM_ID", "XXXXXXXXXX"),
    ("MOWDECK_NOTIFICATIONS_APNS_KEY_ID", "ABC123"),
    ("MOWDECK_NOTIFICATIONS_APNS_KEY_ID", "abc123defg"),
    ("MOWDECK_NOTIFICATIONS_APNS_TEAM_ID", "TEAM-12345"),
    ("MOWDECK_NOTIFICATIONS_APNS_TEAM_ID", "TEAM1234567"),
  ])
  func anAppleIDThatAppleNeverIssuedIsRefused(variable: String, value: String) {
    expectOneLine(refusal([variable: value]), naming: variable)
  }

  @Test func realLookingAppleIDsAreRead() throws {
    let config = try Configuration.load(from: [
      "MOWDECK_NOTIFICATIONS_APNS_KEY_ID": "2X9R4HXF34",
      "MOWDECK_NOTIFICATIONS_APNS_TEAM_ID": "ABCDE12345",
    ])
    #expect(config.apnsKeyID == "2X9R4HXF34")
    #expect(config.apnsTeamID == "ABCDE12345")
  }

  @Test func anImageSecretUnder32BytesIsRefusedWithoutBeingRepeated() throws {
    let short = "abc"
    let error = refusal(["MOWDECK_NOTIFICATIONS_IMAGE_SECRET": short])
    expectOneLine(error, naming: "MOWDECK_NOTIFICATIONS_IMAGE_SECRET")
    #expect(error?.description.contains("32 bytes") == true)
    #expect(error?.description.contains(short) == false)
    let thirtyOne = String(repeating: "s", count: 31)
    #expect(refusal(["MOWDECK_NOTIFICATIONS_IMAGE_SECRET": thirtyOne]) != nil)
    let exact = String(repeating: "s", count: 32)
    #expect(
      try Configuration.load(from: ["MOWDECK_NOTIFICATIONS_IMAGE_SECRET": exact]).imageSecret
        == exact)
  }

  @Test func eachPreviousSecretMustBeAsLongAsACurrentOne() {
    let good = String(repeating: "p", count: 40)
    let error = refusal(["MOWDECK_NOTIFICATIONS_IMAGE_PREVIOUS_SECRETS": "\(good),short-one"])
    expectOneLine(error, naming: "MOWDECK_NOTIFICATIONS_IMAGE_PREVIOUS_SECRETS")
    #expect(error?.description.contains("secret 2") == true)
    #expect(error?.description.contains("short-one") == false)
  }

  @Test func trustedProxiesAreParsedAtStart() throws {
    let config = try Configuration.load(from: [
      "MOWDECK_NOTIFICATIONS_TRUSTED_PROXIES": " 127.0.0.1, 10.0.0.0/8 ,fd00::/8,::1"
    ])
    for address in ["127.0.0.1", "10.200.3.4", "fd12::7", "::1"] {
      #expect(
        config.trustedProxies.contains(try #require(ClientAddress(parsing: address))), "\(address)")
    }
    for address in ["127.0.0.2", "11.0.0.1", "fe80::1", "::2"] {
      #expect(
        !config.trustedProxies.contains(try #require(ClientAddress(parsing: address))), "\(address)"
      )
    }
    for bad in ["10.0.0.0/33", "proxy.example", "::1/129", "1.2.3.4/-1", "1.2.3", "10.0.0.1:80"] {
      expectOneLine(
        refusal(["MOWDECK_NOTIFICATIONS_TRUSTED_PROXIES": bad]),
        naming: "MOWDECK_NOTIFICATIONS_TRUSTED_PROXIES")
    }
  }

  // MARK: Secrets in files

  private func file(_ text: String) throws -> String {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("secret-\(UUID().uuidString.prefix(8))").path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test func everySecretCanBeReadFromAFileWithoutItsTrailingNewline() throws {
    let key = String(repeating: "f", count: 32)
    let config = try Configuration.load(from: [
      "MOWDECK_DATABASE_URL_FILE": try file("postgresql://u:pw@db:5432/x\n"),
      "MOWDECK_NOTIFICATIONS_IMAGE_SECRET_FILE": try file(key + "\n"),
      "MOWDECK_NOTIFICATIONS_IMAGE_PREVIOUS_SECRETS_FILE": try file("\(key)1,\(key)2\n"),
      "MOWDECK_NOTIFICATIONS_NTFY_TOKEN_FILE": try file("tk_fromafile\r\n"),
    ])
    #expect(config.databaseURL == "postgresql://u:pw@db:5432/x")
    #expect(config.imageSecret == key)
    #expect(config.imagePreviousSecrets == [key + "1", key + "2"])
    #expect(config.ntfyToken == "tk_fromafile")
  }

  @Test func aSecretFromAFileIsCheckedLikeOneFromTheEnvironment() throws {
    let error = refusal(["MOWDECK_NOTIFICATIONS_IMAGE_SECRET_FILE": try file("short\n")])
    expectOneLine(error, naming: "MOWDECK_NOTIFICATIONS_IMAGE_SECRET")
    #expect(error?.description.contains("short") == false)
  }

  @Test func aSecretSetBothWaysIsRefused() throws {
    let error = refusal([
      "MOWDECK_NOTIFICATIONS_NTFY_TOKEN": "tk_a",
      "MOWDECK_NOTIFICATIONS_NTFY_TOKEN_FILE": try file("tk_b"),
    ])
    expectOneLine(error, naming: "MOWDECK_NOTIFICATIONS_NTFY_TOKEN_FILE")
    #expect(error?.description.contains("MOWDECK_NOTIFICATIONS_NTFY_TOKEN ") == true)
    #expect(error?.description.contains("tk_") == false)
  }

  @Test func anUnreadableOrEmptySecretFileIsNamedWithoutItsContent() throws {
    let missing = "/nonexistent/mowdeck/db-url"
    let unreadable = refusal(["MOWDECK_DATABASE_URL_FILE": missing])
    expectOneLine(unreadable, naming: "MOWDECK_DATABASE_URL_FILE")
    #expect(unreadable?.description.contains(missing) == true)
    let empty = refusal(["MOWDECK_DATABASE_URL_FILE": try file("\n")])
    expectOneLine(empty, naming: "MOWDECK_DATABASE_URL_FILE")
    #expect(empty?.description.contains("empty") == true)
  }

  @Test func aSettingThatIsNoSecretIgnoresAFileVariable() throws {
    let config = try Configuration.load(from: [
      "MOWDECK_NOTIFICATIONS_APNS_TOPIC_FILE": try file("com.example.fromfile")
    ])
    #expect(config.apnsTopic == "app.mowdeck.mobile")
  }
}
