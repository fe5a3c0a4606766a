import Events
import Foundation
import Infrastructure
import Synchronization
import TestSupport
import Testing

/// The libmicrohttpd wrapper of `Infrastructure/HTTP` on its own: routing, suspended requests,
/// keep-alive, bodies, and stopping with work in flight.
@Suite struct HTTPServerTests {
  private static func start(_ router: HTTPRouter, threads: Int = 2) throws -> HTTPServer {
    try HTTPServer.start(
      listen: "127.0.0.1:0", router: router, logger: TestServers.logger, metrics: Metrics(),
      options: HTTPServer.Options(threads: threads, maxBodyBytes: 1024))
  }

  @Test func routesAnswerNowOrLaterAndUnknownPathsAndMethodsArePlain() async throws {
    var router = HTTPRouter()
    router.get("/now") { _ in .now(.json(200, ["when": "now"])) }
    router.get("/later/{name}") { request in
      let name = String(request.parameters[0])
      return .later {
        try? await Task.sleep(for: .milliseconds(20))
        return .json(200, ["name": name])
      }
    }
    router.add("POST", "/echo") { request in .now(HTTPResponse(status: 200, body: request.body)) }
    let server = try Self.start(router)
    #expect(try await RawHTTP.get(server.port, "/now").json?["when"]?.string == "now")
    #expect(try await RawHTTP.get(server.port, "/later/rex").json?["name"]?.string == "rex")
    #expect(try await RawHTTP.get(server.port, "/later/%72ex").json?["name"]?.string == "%72ex")
    #expect(try await RawHTTP.get(server.port, "/later/").status == 404)
    #expect(try await RawHTTP.get(server.port, "/later/a/b").status == 404)
    #expect(try await RawHTTP.get(server.port, "/now/").status == 404)
    #expect(try await RawHTTP.get(server.port, "*").status == 404)
    let wrong = try await RawHTTP.request(server.port, method: "DELETE", target: "/now")
    #expect(wrong.status == 405)
    #expect(wrong.headers["allow"] == "GET, HEAD")
    let echoed = try await RawHTTP.request(
      server.port, method: "POST", target: "/echo", body: Array("hello".utf8))
    #expect(echoed.text == "hello")
    let head = try await RawHTTP.exchange(
      server.port, Array("HEAD /now HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
    let headText = String(decoding: head, as: UTF8.self)
    #expect(headText.hasPrefix("HTTP/1.1 200"))
    #expect(headText.hasSuffix("\r\n\r\n"), "HEAD has no body")
    await server.stop()
  }

  @Test func aSuspendedRequestHoldsNoPoolThread() async throws {
    var router = HTTPRouter()
    router.get("/slow") { _ in
      .later {
        try? await Task.sleep(for: .milliseconds(300))
        return .plain(200)
      }
    }
    router.get("/fast") { _ in .now(.plain(200)) }
    let server = try Self.start(router, threads: 1)
    let start = ContinuousClock.now
    // One pool thread, 64 requests waiting 300 ms each: together, not one after another.
    let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
      for _ in 0..<64 { group.addTask { try await RawHTTP.get(server.port, "/slow").status } }
      // Meanwhile the same thread answers others at once.
      try await Task.sleep(for: .milliseconds(50))
      let fastStart = ContinuousClock.now
      #expect(try await RawHTTP.get(server.port, "/fast").status == 200)
      #expect(ContinuousClock.now - fastStart < .seconds(1))
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(statuses == Array(repeating: 200, count: 64))
    // One after another would take 19.2 s; the bound leaves room for a loaded machine.
    #expect(ContinuousClock.now - start < .seconds(14))
    await server.stop()
  }

  @Test func aConnectionIsKeptAliveAcrossRequests() async throws {
    var router = HTTPRouter()
    router.get("/a") { _ in .now(.plain(404)) }
    router.get("/b") { _ in .later { .json(200, ["b": true]) } }
    let server = try Self.start(router)
    // Three requests pipelined on one connection: all three answered on it, in order.
    let requests =
      "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n"
      + "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    let reply = String(
      decoding: try await RawHTTP.exchange(server.port, Array(requests.utf8)), as: UTF8.self)
    // A body does not end in CRLF, so the next status line may follow it directly.
    let statuses = reply.components(separatedBy: "HTTP/1.1 ").dropFirst().map {
      "HTTP/1.1 " + $0.components(separatedBy: "\r\n")[0]
    }
    #expect(statuses == ["HTTP/1.1 404 Not Found", "HTTP/1.1 200 OK", "HTTP/1.1 404 Not Found"])
    await server.stop()
  }

  @Test func aBodyOverTheLimitIs413() async throws {
    var router = HTTPRouter()
    router.add("POST", "/echo") { request in .now(HTTPResponse(status: 200, body: request.body)) }
    let server = try Self.start(router)
    let declared = try await RawHTTP.request(
      server.port, method: "POST", target: "/echo", body: Array(repeating: 65, count: 2000))
    #expect(declared.status == 413)
    // Chunked, so the size shows only while reading.
    let chunk = String(repeating: "A", count: 700)
    let chunked =
      "POST /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
      + "2bc\r\n\(chunk)\r\n2bc\r\n\(chunk)\r\n0\r\n\r\n"
    #expect(try await RawHTTP.send(server.port, Array(chunked.utf8)).status == 413)
    let small = try await RawHTTP.request(
      server.port, method: "POST", target: "/echo", body: Array(repeating: 66, count: 1024))
    #expect(small.body.count == 1024)
    await server.stop()
  }

  @Test func stoppingLetsRunningWorkFinishAndThenRefusesConnections() async throws {
    let started = Mutex(false)
    var router = HTTPRouter()
    router.get("/slow") { _ in
      .later {
        started.withLock { $0 = true }
        try? await Task.sleep(for: .milliseconds(400))
        return .plain(200)
      }
    }
    let server = try Self.start(router)
    let port = server.port
    let request = Task { try await RawHTTP.get(port, "/slow").status }
    try await eventually(timeout: .seconds(5), "the request to start") { started.withLock { $0 } }
    await server.stop()
    #expect(try await request.value == 200)
    await #expect(throws: RawHTTPError.self) { try await RawHTTP.get(port, "/slow") }
  }

  @Test func workPastTheDeadlineIs503AndItsLateAnswerIsDropped() async throws {
    let finished = Mutex(false)
    let released = Mutex(false)
    var router = HTTPRouter()
    router.get("/stuck") { _ in
      .later {
        // Ignores cancellation, as a blocked libpq call would, until the test lets it end:
        // no bet on when a sleep ends on a loaded machine's thread pool.
        while !released.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(10)) }
        finished.withLock { $0 = true }
        return .plain(200)
      }
    }
    let server = try HTTPServer.start(
      listen: "127.0.0.1:0", router: router, logger: TestServers.logger, metrics: Metrics(),
      options: HTTPServer.Options(threads: 1, workDeadline: .milliseconds(200)))
    let start = ContinuousClock.now
    let response = try await RawHTTP.get(server.port, "/stuck")
    #expect(response.status == 503)
    // The deadline is 200 ms; room for a loaded machine.
    #expect(ContinuousClock.now - start < .seconds(6))
    #expect(!finished.withLock { $0 })
    // The late answer goes nowhere, and the server keeps serving.
    released.withLock { $0 = true }
    try await eventually(timeout: .seconds(60), "the work to end") { finished.withLock { $0 } }
    #expect(try await RawHTTP.get(server.port, "/nothing").status == 404)
    await server.stop()
  }

  @Test func aListenSettingThatCannotBeUsedIsATypedError() async throws {
    #expect(throws: HTTPServerError.badAddress("nowhere")) {
      try HTTPServer.start(
        listen: "nowhere", router: HTTPRouter(), logger: TestServers.logger, metrics: Metrics())
    }
    let first = try Self.start(HTTPRouter())
    #expect(throws: HTTPServerError.cannotListen("127.0.0.1:\(first.port)")) {
      try HTTPServer.start(
        listen: "127.0.0.1:\(first.port)", router: HTTPRouter(), logger: TestServers.logger,
        metrics: Metrics())
    }
    await first.stop()
  }
}
