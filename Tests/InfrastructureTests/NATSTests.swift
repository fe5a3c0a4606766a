import Foundation
import Infrastructure
import Synchronization
import TestSupport
import Testing

@Suite struct NATSTests {
  /// A cluster's list with its first server down: the client connects to the next one.
  @Test func aServerListConnectsToTheServerThatAnswers() async throws {
    let listed = "nats://127.0.0.1:1, " + (try TestServers.natsURL())
    let client = try NATSClient.connect(url: listed, name: "list-test", logger: TestServers.logger)
    try await eventually(timeout: .seconds(10), "a connection to the second server") {
      client.isConnected
    }
    let subject = uniqueSubjectPrefix() + ".listed"
    let subscription = try client.subscribe(subject)
    try await client.flush()
    let inbox = Inbox()
    let reader = drain(subscription, into: inbox)
    try client.publish(subject, [42])
    try await eventually(timeout: .seconds(5), "the message back") { inbox.count == 1 }
    reader.cancel()
    client.close()
  }

  @Test func publishedBytesArriveIntact() async throws {
    let client = try connectNATS()
    let subject = uniqueSubjectPrefix() + ".bytes"
    let subscription = try client.subscribe(subject)
    try await client.flush()
    let inbox = Inbox()
    let reader = drain(subscription, into: inbox)
    let everyByte = (0...255).map { UInt8($0) }
    var generator = SystemRandomNumberGenerator()
    let large = (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let payloads: [[UInt8]] = [everyByte, [], [0], large]
    for payload in payloads { try client.publish(subject, payload) }
    try await eventually(timeout: .seconds(5), "four messages") { inbox.count >= 4 }
    reader.cancel()
    #expect(inbox.all.map(\.data) == payloads)
    #expect(inbox.all.allSatisfy { $0.subject == subject && $0.reply == nil })
    client.close()
  }

  @Test func contentTypeTravelsAsAHeader() async throws {
    let client = try connectNATS()
    let subject = uniqueSubjectPrefix() + ".typed"
    let subscription = try client.subscribe(subject)
    try await client.flush()
    let inbox = Inbox()
    let reader = drain(subscription, into: inbox)
    try client.publish(subject, [1, 2, 3], contentType: "image/jpeg")
    try client.publish(subject, [4])
    try await eventually(timeout: .seconds(5), "two messages") { inbox.count >= 2 }
    reader.cancel()
    #expect(inbox.all.map(\.contentType) == ["image/jpeg", nil])
    #expect(inbox.all.map(\.data) == [[1, 2, 3], [4]])
  }

  @Test func queueSubscribersSplitMessagesWithoutDuplicates() async throws {
    let publisher = try connectNATS("publisher")
    let first = try connectNATS("replica-1")
    let second = try connectNATS("replica-2")
    let subject = uniqueSubjectPrefix() + ".work"
    let firstInbox = Inbox()
    let secondInbox = Inbox()
    let firstSubscription = try first.subscribe(subject, queue: "workers")
    let secondSubscription = try second.subscribe(subject, queue: "workers")
    try await first.flush()
    try await second.flush()
    let readers = [
      drain(firstSubscription, into: firstInbox), drain(secondSubscription, into: secondInbox),
    ]
    for index in 0..<100 { try publisher.publish(subject, Array(String(index).utf8)) }
    try await publisher.flush()
    try await eventually(timeout: .seconds(5), "100 messages") {
      firstInbox.count + secondInbox.count >= 100
    }
    // A duplicate would arrive right behind the others.
    try await first.flush()
    try await second.flush()
    try await Task.sleep(for: .milliseconds(100))
    for reader in readers { reader.cancel() }
    let received = (firstInbox.all + secondInbox.all).map {
      String(decoding: $0.data, as: UTF8.self)
    }
    #expect(received.count == 100)
    #expect(Set(received) == Set((0..<100).map(String.init)))
    #expect(firstInbox.count > 0)
    #expect(secondInbox.count > 0)
  }

  @Test func requestGetsTheRespondersBodyAndContentType() async throws {
    let client = try connectNATS()
    let subject = uniqueSubjectPrefix() + ".camera"
    let subscription = try client.subscribe(subject)
    try await client.flush()
    let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 0x4A, 0x46, 0xFF, 0xD9]
    let responder = respond(on: subscription, client: client, contentType: "image/jpeg") {
      $0.data == Array("photo".utf8) ? jpeg : []
    }
    let reply = try await client.request(subject, Array("photo".utf8), timeout: .seconds(5))
    #expect(reply.data == jpeg)
    #expect(reply.contentType == "image/jpeg")
    #expect(!reply.isNoResponders)
    subscription.unsubscribe()
    await responder.value
  }

  @Test func aReplyTheAdmissionRefusesIsDroppedAndNamed() async throws {
    let client = try connectNATS()
    let subject = uniqueSubjectPrefix() + ".camera"
    let subscription = try client.subscribe(subject)
    try await client.flush()
    // The responder answers with as many bytes as asked for.
    let responder = respond(on: subscription, client: client, contentType: "image/jpeg") {
      [UInt8](repeating: 0xAB, count: Int(String(decoding: $0.data, as: UTF8.self)) ?? 0)
    }
    let asked = Mutex<[Int]>([])
    let upTo1000: @Sendable (Int) -> Bool = { bytes in
      asked.withLock { $0.append(bytes) }
      return bytes <= 1000
    }
    let small = try await client.request(
      subject, Array("1000".utf8), timeout: .seconds(5), admit: upTo1000)
    #expect(small.data.count == 1000)
    do throws(NATSError) {
      _ = try await client.request(
        subject, Array("1001".utf8), timeout: .seconds(5), admit: upTo1000)
      Issue.record("a reply over the admission's limit should be refused")
    } catch {
      guard case .replyRefused(let refused, let bytes) = error else {
        Issue.record("expected replyRefused, got \(error)")
        return
      }
      #expect(refused == subject)
      #expect(bytes == 1001)
    }
    // Asked once per reply, with its size, before the copy.
    #expect(asked.withLock { $0 } == [1000, 1001])
    subscription.unsubscribe()
    await responder.value
  }

  @Test func requestWithoutResponderFailsAsNoResponders() async throws {
    let client = try connectNATS()
    let subject = uniqueSubjectPrefix() + ".nobody"
    let started = ContinuousClock.now
    do throws(NATSError) {
      _ = try await client.request(subject, [1], timeout: .seconds(10))
      Issue.record("nobody listens, so there can be no reply")
    } catch {
      guard case .noResponders(let failed) = error else {
        Issue.record("expected noResponders, got \(error)")
        return
      }
      #expect(failed == subject)
    }
    // Answered by the server at once, not by the timeout.
    #expect(ContinuousClock.now - started < .seconds(5))
    // The server's status is no reply to admit: an admission refusing everything leaves it.
    do throws(NATSError) {
      _ = try await client.request(subject, [1], timeout: .seconds(10), admit: { _ in false })
      Issue.record("nobody listens, so there can be no reply")
    } catch {
      guard case .noResponders = error else {
        Issue.record("expected noResponders, got \(error)")
        return
      }
    }
  }

  @Test func requestToASilentResponderTimesOut() async throws {
    let client = try connectNATS()
    let subject = uniqueSubjectPrefix() + ".silent"
    let subscription = try client.subscribe(subject)
    try await client.flush()
    let started = ContinuousClock.now
    do throws(NATSError) {
      _ = try await client.request(subject, [1], timeout: .milliseconds(300))
      Issue.record("the responder never answers")
    } catch {
      guard case .timeout(let failed) = error else {
        Issue.record("expected timeout, got \(error)")
        return
      }
      #expect(failed == subject)
    }
    let elapsed = ContinuousClock.now - started
    #expect(elapsed >= .milliseconds(250))
    #expect(elapsed < .seconds(5))
    subscription.unsubscribe()
  }

  @Test func aLateReplyAfterTheTimeoutIsIgnored() async throws {
    let client = try connectNATS()
    let subject = uniqueSubjectPrefix() + ".late"
    let subscription = try client.subscribe(subject)
    try await client.flush()
    let inbox = Inbox()
    let reader = drain(subscription, into: inbox)
    let lateAsked = Mutex(0)
    await #expect(throws: NATSError.self) {
      _ = try await client.request(
        subject, [1], timeout: .milliseconds(200),
        admit: { _ in
          lateAsked.withLock { $0 += 1 }
          return true
        })
    }
    let late = try #require(inbox.all.first?.reply)
    try client.publish(late, [9])
    try await client.flush()
    // The client keeps working for the next request.
    let echo = respond(on: try client.subscribe(subject + ".echo"), client: client) { $0.data }
    try await client.flush()
    let reply = try await client.request(subject + ".echo", [7], timeout: .seconds(5))
    #expect(reply.data == [7])
    // Replies arrive in order on the inbox: the late one came before the echo, and nobody
    // was asked to admit it.
    #expect(lateAsked.withLock { $0 } == 0)
    reader.cancel()
    echo.cancel()
  }

  @Test func thousandConcurrentRequestsEachGetTheirOwnReply() async throws {
    let client = try connectNATS()
    let responderClient = try connectNATS("echo")
    let subject = uniqueSubjectPrefix() + ".echo"
    let subscription = try responderClient.subscribe(subject)
    try await responderClient.flush()
    let responder = respond(on: subscription, client: responderClient) { $0.data }
    let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
      for index in 0..<1_000 {
        group.addTask {
          let payload = Array("request-\(index)".utf8)
          let reply = try await client.request(subject, payload, timeout: .seconds(15))
          return reply.data == payload ? 0 : 1
        }
      }
      var mismatches = 0
      var replies = 0
      for try await mismatch in group {
        mismatches += mismatch
        replies += 1
      }
      #expect(replies == 1_000)
      return mismatches
    }
    #expect(mismatches == 0)
    subscription.unsubscribe()
    await responder.value
  }

  @Test func cancellingARequestEndsItAtOnce() async throws {
    let client = try connectNATS()
    let subject = uniqueSubjectPrefix() + ".cancel"
    let subscription = try client.subscribe(subject)
    try await client.flush()
    let started = ContinuousClock.now
    let request = Task { try await client.request(subject, [1], timeout: .seconds(30)) }
    try await Task.sleep(for: .milliseconds(50))
    request.cancel()
    await #expect(throws: (any Error).self) { try await request.value }
    #expect(ContinuousClock.now - started < .seconds(10))
    subscription.unsubscribe()
  }

  @Test func aRequestFromACancelledTaskDoesNotWaitForTheTimeout() async throws {
    let client = try connectNATS()
    let subject = uniqueSubjectPrefix() + ".cancelled"
    let subscription = try client.subscribe(subject)
    try await client.flush()
    let started = ContinuousClock.now
    let request = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await client.request(subject, [1], timeout: .seconds(3))
    }
    await #expect(throws: (any Error).self) { try await request.value }
    // Before the 3 s timeout, with room for a loaded machine.
    #expect(ContinuousClock.now - started < .milliseconds(2_800))
    subscription.unsubscribe()
  }

  @Test(arguments: [Duration.milliseconds(500), .seconds(2), .milliseconds(1_500)])
  func flushWorksWithAnyTimeout(timeout: Duration) async throws {
    let client = try connectNATS()
    try client.publish(uniqueSubjectPrefix() + ".flush", [1])
    try await client.flush(timeout: timeout)
  }
}
