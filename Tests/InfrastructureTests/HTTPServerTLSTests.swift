import Foundation
import Infrastructure
import TestSupport
import Testing

/// `HTTPServer` with `Options.tls`: HTTPS on libmicrohttpd (GnuTLS), as the Web Push
/// sandbox serves it, reached with the workers' `HTTPClient` trusting the test CA.
@Suite struct HTTPServerTLSTests {
  private static func identity() throws -> (HTTPServer.TLSIdentity, caFile: String) {
    let pki = try APNsSandboxHarness.pki()
    let identity = HTTPServer.TLSIdentity(
      certificateChainPEM: try String(
        contentsOf: pki.appendingPathComponent("server.pem"), encoding: .utf8),
      privateKeyPEM: try String(
        contentsOf: pki.appendingPathComponent("server.key"), encoding: .utf8))
    return (identity, pki.appendingPathComponent("ca.pem").path)
  }

  private static func router() -> HTTPRouter {
    var router = HTTPRouter()
    router.add("POST", "/echo/{name}") { request in
      .now(
        HTTPResponse(status: 201, body: Array(request.parameters[0].utf8) + [0x20] + request.body)
          .adding("X-Seen", request.headers["X-Probe"] ?? "none"))
    }
    return router
  }

  @Test func aTLSServerAnswersAnHTTPSRequestFromHTTPClient() async throws {
    let (identity, caFile) = try Self.identity()
    let server = try HTTPServer.start(
      listen: "127.0.0.1:0", router: Self.router(), logger: TestServers.logger, metrics: Metrics(),
      options: HTTPServer.Options(threads: 1, tls: identity))
    let client = HTTPClient(caFile: caFile, threadName: "tls-test")
    for host in ["localhost", "127.0.0.1"] {
      let result = await client.send(
        HTTPClientRequest(
          url: "https://\(host):\(server.port)/echo/rex", headers: [("X-Probe", "yes")],
          body: Array("hello".utf8), timeoutSeconds: 10))
      guard case .response(let status, let headers, let body) = result else {
        Issue.record("no response from \(host): \(result)")
        continue
      }
      #expect(status == 201)
      #expect(headers["x-seen"] == "yes")
      #expect(String(decoding: body, as: UTF8.self) == "rex hello")
    }
    client.shutdown()
    await server.stop()
  }

  @Test func aClientThatDoesNotTrustTheCertificateGetsNoAnswer() async throws {
    let (identity, _) = try Self.identity()
    let server = try HTTPServer.start(
      listen: "127.0.0.1:0", router: Self.router(), logger: TestServers.logger, metrics: Metrics(),
      options: HTTPServer.Options(threads: 1, tls: identity))
    // The system's trust store does not hold the test CA.
    let client = HTTPClient(caFile: nil, threadName: "tls-test-untrust")
    let result = await client.send(
      HTTPClientRequest(
        url: "https://localhost:\(server.port)/echo/rex", headers: [], body: [],
        timeoutSeconds: 10))
    if case .response = result { Issue.record("an untrusted certificate was accepted") }
    client.shutdown()
    await server.stop()
  }

  @Test func aPlainClientIsNotServedByATLSServer() async throws {
    let (identity, caFile) = try Self.identity()
    let server = try HTTPServer.start(
      listen: "127.0.0.1:0", router: Self.router(), logger: TestServers.logger, metrics: Metrics(),
      options: HTTPServer.Options(threads: 1, tls: identity))
    let client = HTTPClient(caFile: caFile, threadName: "tls-test-plain")
    let result = await client.send(
      HTTPClientRequest(
        url: "http://127.0.0.1:\(server.port)/echo/rex", headers: [], body: [],
        timeoutSeconds: 10))
    if case .response(let status, _, _) = result, status == 201 {
      Issue.record("plain HTTP was served by a TLS server")
    }
    client.shutdown()
    await server.stop()
  }

  @Test func aKeyThatIsNotPEMMakesStartFail() throws {
    let (identity, _) = try Self.identity()
    let broken = HTTPServer.TLSIdentity(
      certificateChainPEM: identity.certificateChainPEM, privateKeyPEM: "not a key")
    #expect(throws: HTTPServerError.self) {
      try HTTPServer.start(
        listen: "127.0.0.1:0", router: Self.router(), logger: TestServers.logger,
        metrics: Metrics(), options: HTTPServer.Options(threads: 1, tls: broken))
    }
  }
}
