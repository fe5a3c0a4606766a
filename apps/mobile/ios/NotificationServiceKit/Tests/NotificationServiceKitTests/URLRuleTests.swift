import Foundation
import NotificationServiceKit
import Testing

private let id = "3f2b8c1e-9d4a-4b7e-8f21-6c5d0e9a7b13"
private let path = "/api/v1/notifications/push-images/\(id)"
private let query = "?e=1767225600&s=Zm9vYmFy-_0"
private let origin = "https://mowdeck.example"

/// Each form with the first rule it breaks. Typed up front so the compiler checks the list fast.
private let rejectedForms: [(String, PushImage.URLRejection)] = [
  // Scheme: https only, spelled exactly.
  ("http://mowdeck.example" + path + query, .notHTTPS),
  ("HTTPS://mowdeck.example" + path + query, .notHTTPS),
  ("ftp://mowdeck.example" + path + query, .notHTTPS),
  ("//mowdeck.example" + path + query, .notHTTPS),
  ("mowdeck.example" + path + query, .notHTTPS),
  ("https:mowdeck.example" + path + query, .notHTTPS),
  ("https:/mowdeck.example" + path + query, .notHTTPS),
  ("", .notHTTPS),
  // Credentials, in every spelling.
  ("https://user:pass@mowdeck.example" + path + query, .hasCredentials),
  ("https://user@mowdeck.example" + path + query, .hasCredentials),
  ("https://:@mowdeck.example" + path + query, .hasCredentials),
  ("https://mowdeck.example@evil.example" + path + query, .hasCredentials),
  ("https://user%40x@mowdeck.example" + path + query, .hasCredentials),
  // Fragments.
  (validURL + "#", .hasFragment),
  (validURL + "#photo", .hasFragment),
  (origin + path + "#x" + query, .hasFragment),
  // Hosts.
  ("https://" + path + query, .badHost),
  ("https://:8443" + path + query, .badHost),
  ("https://xn--mwdeck-5va.example" + path + query, .badHost),
  ("https://mowdeck.XN--p1ai" + path + query, .badHost),
  ("https://mowdeck%2Eexample" + path + query, .badHost),
  ("https://mowdeck.example." + path + query, .badHost),
  ("https://.mowdeck.example" + path + query, .badHost),
  ("https://mowdeck..example" + path + query, .badHost),
  ("https://-mowdeck.example" + path + query, .badHost),
  ("https://mowdeck-.example" + path + query, .badHost),
  ("https://mow_deck.example" + path + query, .badHost),
  ("https://[::1]" + path + query, .badHost),
  ("https://[2001:db8::1]:8443" + path + query, .badHost),
  ("https://2130706433" + path + query, .badHost),
  ("https://127.1" + path + query, .badHost),
  ("https://0177.0.0.1" + path + query, .badHost),
  ("https://256.0.0.1" + path + query, .badHost),
  ("https://1.2.3.4.5" + path + query, .badHost),
  ("https://0x7f.0.0.1" + path + query, .badHost),
  ("https://evil.example\\.mowdeck.example" + path + query, .badHost),
  ("https://" + String(repeating: "a", count: 64) + ".example" + path + query, .badHost),
  // Ports.
  ("https://mowdeck.example:" + path + query, .badPort),
  ("https://mowdeck.example:0" + path + query, .badPort),
  ("https://mowdeck.example:65536" + path + query, .badPort),
  ("https://mowdeck.example:08443" + path + query, .badPort),
  ("https://mowdeck.example:+443" + path + query, .badPort),
  ("https://mowdeck.example:443:443" + path + query, .badPort),
  ("https://mowdeck.example:https" + path + query, .badPort),
  // Paths, including encoded and dot-segment tricks.
  (origin + query, .wrongPath),
  (origin + "/" + query, .wrongPath),
  (origin + "/api/v1/notifications/push-image/\(id)" + query, .wrongPath),
  (origin + "/api/v1/notifications/\(id)" + query, .wrongPath),
  (origin + "/API/v1/notifications/push-images/\(id)" + query, .wrongPath),
  (origin + "/" + path + query, .wrongPath),
  (origin + "/api/v1//notifications/push-images/\(id)" + query, .wrongPath),
  (origin + "/api/v1/x/../notifications/push-images/\(id)" + query, .wrongPath),
  (origin + "/api/v1/./notifications/push-images/\(id)" + query, .wrongPath),
  (origin + "/api/v1/notifications/push-images%2F\(id)" + query, .wrongPath),
  (origin + "/api%2Fv1/notifications/push-images/\(id)" + query, .wrongPath),
  (origin + "/api/v1/notifications/push-images/../push-images/\(id)" + query, .wrongPath),
  (origin + path + "/" + query, .wrongPath),
  (origin + path + "/photo.jpg" + query, .wrongPath),
  (origin + path + "/.." + query, .wrongPath),
  (origin + path + ";x" + query, .badNotificationID),
  (origin + "/api/v1/notifications/push-images/" + query, .badNotificationID),
  // Notification ids.
  (origin + "/api/v1/notifications/push-images/3f2b8c1e" + query, .badNotificationID),
  (origin + String(path.dropLast()) + query, .badNotificationID),
  (origin + path + "0" + query, .badNotificationID),
  (
    origin + "/api/v1/notifications/push-images/" + id.replacingOccurrences(of: "-", with: "")
      + query, .badNotificationID
  ),
  (origin + path.replacingOccurrences(of: "3f2b", with: "3g2b") + query, .badNotificationID),
  (origin + "/api/v1/notifications/push-images/{\(id)}" + query, .badNotificationID),
  (origin + path.replacingOccurrences(of: "-9d4a", with: "%2D9d4a") + query, .badNotificationID),
  (origin + path.replacingOccurrences(of: "3f2b", with: "%33f2b") + query, .badNotificationID),
  (origin + path.replacingOccurrences(of: "-9d4a-", with: "9-d4a-") + query, .badNotificationID),
  (origin + "/api/v1/notifications/push-images/..%2F\(id)" + query, .badNotificationID),
  // Query parameters.
  (origin + path, .missingParameter("e")),
  (origin + path + "?", .unexpectedParameter),
  (origin + path + "?s=Zm9v", .missingParameter("e")),
  (origin + path + "?e=1767225600", .missingParameter("s")),
  (origin + path + "?e=1&e=2&s=Zm9v", .repeatedParameter("e")),
  (origin + path + "?e=1&s=Zm9v&s=YmFy", .repeatedParameter("s")),
  (origin + path + query + "&x=1", .unexpectedParameter),
  (origin + path + query + "&", .unexpectedParameter),
  (origin + path + "?e=1&&s=Zm9v", .unexpectedParameter),
  (origin + path + "?E=1&s=Zm9v", .unexpectedParameter),
  (origin + path + "?e=1&s", .unexpectedParameter),
  (origin + path + "?e%3D1&s=Zm9v", .unexpectedParameter),
  (origin + path + "?%65=1&s=Zm9v", .unexpectedParameter),
  (origin + path + "?e=&s=Zm9v", .badExpiry),
  (origin + path + "?e=12a&s=Zm9v", .badExpiry),
  (origin + path + "?e=+1&s=Zm9v", .badExpiry),
  (origin + path + "?e=-1&s=Zm9v", .badExpiry),
  (origin + path + "?e=01&s=Zm9v", .badExpiry),
  (origin + path + "?e=1000000000000&s=Zm9v", .badExpiry),
  (origin + path + "?e=%31&s=Zm9v", .badExpiry),
  (origin + path + "?e=1&s=", .badSignature),
  (origin + path + "?e=1&s=Zm9vYg==", .badSignature),
  (origin + path + "?e=1&s=Zm9v+Yg", .badSignature),
  (origin + path + "?e=1&s=Zm9v/Yg", .badSignature),
  (origin + path + "?e=1&s=Zm9v%2DYg", .badSignature),
  (origin + path + "?e=1&s=Zm9v?", .badSignature),
  (origin + path + "?e=1&s=" + String(repeating: "A", count: 513), .badSignature),
  // Characters: non-ASCII (IDN), spaces and controls, anywhere.
  ("https://mówdeck.example" + path + query, .notPrintableASCII),
  ("https://mowdeck.example" + path + query + "\u{0}", .notPrintableASCII),
  ("https://mowdeck.example" + path + " " + query, .notPrintableASCII),
  (" " + validURL, .notPrintableASCII),
  (validURL + "\n", .notPrintableASCII),
  ("https://mowdeck.example\t" + path + query, .notPrintableASCII),
  ("https://mowdeck。example" + path + query, .notPrintableASCII),
  (
    "https://mowdeck.example" + path.replacingOccurrences(of: "3f2b", with: "３f2b") + query,
    .notPrintableASCII
  ),
  // Length.
  (validURL + String(repeating: "A", count: 2048), .tooLong),
]

@Suite("Which image_url values are accepted")
struct URLRuleTests {
  @Test(
    "Accepted forms",
    arguments: [
      validURL,
      origin + "/api/v1/notifications/push-images/" + id.uppercased() + query,
      origin + path + "?s=Zm9vYmFy-_0&e=1767225600",
      "https://mowdeck.example:8443" + path + query,
      "https://mowdeck.example:443" + path + query,
      "https://192.0.2.10" + path + query,
      "https://192.0.2.10:8443" + path + query,
      "https://mowdeck" + path + query,
      "https://Mowdeck.Example" + path + query,
      "https://a-b.c-d.example" + path + query,
      origin + path + "?e=0&s=A",
      origin + path + "?e=999999999999&s=" + String(repeating: "A", count: 512),
    ])
  func accepted(_ url: String) throws {
    let request = try PushImage.accept(url)
    #expect(request.url.absoluteString == url)
    #expect(request.notificationID == UUID(uuidString: id))
  }

  @Test("The parts are read out")
  func parts() throws {
    let request = try PushImage.accept("https://mowdeck.example:8443" + path + query)
    #expect(request.host == "mowdeck.example")
    #expect(request.port == 8443)
    #expect(request.expiry == 1_767_225_600)
    #expect(try PushImage.accept(validURL).port == nil)
  }

  @Test("Rejected forms", arguments: rejectedForms)
  func rejected(_ url: String, _ reason: PushImage.URLRejection) {
    #expect(throws: reason) { try PushImage.accept(url) }
  }

  @Test("A rejected URL is never asked for")
  func rejectedIsNotFetched() async throws {
    let (outcome, requests) = try await run("http://mowdeck.example" + path + query) { _, _ in
      .jpeg()
    }
    #expect(outcome == .rejectedURL(.notHTTPS))
    #expect(requests.isEmpty)
  }

  @Test("What is fetched is exactly the accepted URL")
  func fetchesTheAcceptedURL() async throws {
    let (_, requests) = try await run { _, _ in .jpeg() }
    #expect(requests.map(\.url.absoluteString) == [validURL])
  }
}
