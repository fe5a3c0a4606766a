import Foundation
import Infrastructure
import TestSupport
import Testing

/// The double speaks HTTP/2 only, as the FCM API is reached, and records each request's
/// connection and stream, so that a client's multiplexing can be seen.
@Suite struct HTTP2Tests {
  @Test func theAPIIsServedOverHTTP2AndEachRequestsStreamIsRecorded() async throws {
    try await SandboxClient.with { client in
      let curl =
        "curl -sS --cacert \(client.sandbox.caFile) -o /dev/null -w '%{http_version} %{http_code}'"
      let url = "\(client.sandbox.fcmURL)/tokens"
      #expect(try await runShellOffThePool("\(curl) -X POST \(url)") == "2 201")
      // A client that offers only HTTP/1.1 is refused in the TLS handshake (ALPN).
      let refused = try await runShellOffThePool(
        "\(curl) --http1.1 -X POST \(url) || printf ' exit %s' $?")
      #expect(refused.hasSuffix(" exit 35"), "\(refused)")  // CURLE_SSL_CONNECT_ERROR

      _ = try await client.requestToken()
      let line = try #require(try client.sandbox.recordLines().last)
      #expect(line.route == "token" && line.status == 200)
      #expect(line.connection != nil && line.stream.map { $0 % 2 == 1 } == true)
    }
  }
}
