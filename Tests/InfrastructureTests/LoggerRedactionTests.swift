import Foundation
import Infrastructure
import Synchronization
import Testing

/// No log line holds a credential, whatever a call site passes (docs/interfaces.md#event-log).
@Suite struct LoggerRedactionTests {
  /// The lines a logger wrote.
  final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
  }

  /// An error whose description quotes the URL it could not use, as libraries' errors do.
  struct ConnectFailure: Error, CustomStringConvertible {
    let url: String
    var description: String { "cannot connect to \(url)" }
  }

  static let secrets = [
    "hunter2", "s3cr3tT0ken", "pgsecret", "eyJpc3MiOiJERUYxMjMi", "MHcCAQEEIBk7a1b2",
    "0a1b2c3d0a1b2c3d", "SiGnAtUrE42", "bearerValue9",
  ]

  @Test func aLineHoldsNoneOfTheSecretsInItsMessageOrFields() throws {
    let lines = Lines()
    let logger = Logger(component: "test", sink: { lines.append($0) })
    let deliveryID = UUID()
    let token = "8c2f6a4e1b9d3f7a" + String(repeating: "0a1b2c3d", count: 6)
    let maybeURL: String? = "postgresql://mowdeck:pgsecret@db/m"
    logger.warning(
      "NATS disconnected from nats://mowdeck:hunter2@nats.internal:4222, reconnecting",
      [
        "url": "nats://s3cr3tT0ken@nats.internal",
        "error": ConnectFailure(url: "postgresql://mowdeck:pgsecret@db/m"),
        "database": maybeURL,
        "jwt": "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJERUYxMjMiLCJpYXQiOjE3MDB9.MEUCIQDx4b7Tq9c4",
        "key": "-----BEGIN PRIVATE KEY-----\nMHcCAQEEIBk7a1b2\n-----END PRIVATE KEY-----",
        "headers": ["authorization": "Bearer bearerValue9"],
        "requests": ["/3/device/\(token)", "/i/x?e=1&s=SiGnAtUrE42"],
        "delivery_id": deliveryID, "attempt": 3,
      ])
    let line = try #require(lines.all.first)
    for secret in Self.secrets {
      #expect(!line.contains(secret), "\(secret) in \(line)")
    }
    // What an operator needs stays: hosts, ids, numbers, token prefixes, the JSON shape.
    let object = try #require(JSON.object(from: Array(line.utf8)))
    #expect(
      object["msg"]?.string
        == "NATS disconnected from nats://***@nats.internal:4222, reconnecting")
    #expect(object["url"]?.string == "nats://***@nats.internal")
    #expect(object["error"]?.string == "cannot connect to postgresql://***@db/m")
    #expect(object["database"]?.string == "postgresql://***@db/m")
    #expect(object["delivery_id"]?.string == deliveryID.uuidString.lowercased())
    #expect(object["attempt"]?.integer == 3)
    #expect((object["requests"]?.strings)?.first == "/3/device/8c2f6a4e…")
  }

  /// A field that is already JSON (what a client sent, say) is redacted all through: its
  /// strings at any depth and the keys of its objects, as a dictionary field's are.
  @Test func aJSONFieldIsRedactedInItsValuesAndKeys() throws {
    let lines = Lines()
    let logger = Logger(component: "test", sink: { lines.append($0) })
    let sent: JSONValue = [
      "endpoint": "https://push.example/?token=s3cr3tT0ken",
      "nested": ["list": ["nats://u:hunter2@nats.internal"], "n": 3],
      "postgresql://mowdeck:pgsecret@db/m": true,
    ]
    logger.info(
      "a client's body", ["body": sent, "headers": ["Bearer bearerValue9": "seen as a key"]])
    let line = try #require(lines.all.first)
    for secret in Self.secrets {
      #expect(!line.contains(secret), "\(secret) in \(line)")
    }
    let body = try #require(JSON.object(from: Array(line.utf8))?["body"])
    #expect(body["nested"]?["n"]?.integer == 3)
    #expect(body["nested"]?["list"]?.array?.first?.string == "nats://***@nats.internal")
  }
}
