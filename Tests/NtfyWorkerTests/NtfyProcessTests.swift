import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import NtfyWorker

/// The NtfyWorker as a process against the ntfy double over HTTPS, with real PostgreSQL and
/// NATS: each topic gets its alarm with the token, the photo's follow-up replaces it on the
/// phone, and neither the token nor a topic reaches the log.
@Suite(.serialized) struct NtfyProcessTests {
  static let token = "tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2"

  @Test func eachTopicGetsItsAlarmWithTheToken() async throws {
    let stack = try await NtfyStack(token: Self.token)
    defer { stack.stop() }
    let topic = try await stack.phone()
    let eventID = try await stack.alarm()
    let worker = try WorkerProcess("NtfyWorker", environment: stack.environment)
    defer { worker.stop() }
    let line = try #require(try await stack.sandbox.records.waitForLines(1).first)
    #expect(line.topic == topic)
    #expect(line.status == 200 && line.error == nil)
    #expect(line.token == Self.token)
    #expect(line.title == "Robbie was lifted")
    #expect(line.message == "Someone lifted the mower. Check on it now.")
    #expect(line.priority == 5)
    #expect(line.tags == ["rotating_light", "mower_lifted"])
    #expect(line.click == "\(NtfyStack.imageBaseURL)/inbox")
    #expect(line.sequenceID == (try await stack.sequenceID(eventID)))
    #expect(line.attach == nil && line.filename == nil)

    try await eventually(timeout: .seconds(20), "the outcome recorded") {
      try await stack.count("SELECT count(*) AS n FROM deliveries WHERE state = 'sent'") == 1
    }
    let sent = try #require(
      try await stack.story(eventID).first { $0.type == "delivery.sent" }?
        .decode(DeliverySent.self))
    #expect(sent.platform == .ntfy && sent.status == 200 && sent.followup == nil)
    #expect(sent.tokenPrefix == String(topic.prefix(8)))
    // Neither the token nor the secret part of a topic is ever logged.
    #expect(!worker.log.contains(Self.token))
    #expect(!worker.log.contains(String(topic.dropFirst(8))))
  }

  @Test func thePhotosFollowUpReplacesTheAlarmOnThePhone() async throws {
    let stack = try await NtfyStack()
    defer { stack.stop() }
    let topic = try await stack.phone()
    let eventID = try await stack.alarm(photo: true)
    let worker = try WorkerProcess("NtfyWorker", environment: stack.environment)
    defer { worker.stop() }
    try await eventually(timeout: .seconds(20), "the alarm's message sent") {
      try await stack.count("SELECT count(*) AS n FROM deliveries WHERE state = 'sent'") == 1
    }
    try await stack.followUp(eventID)
    let lines = try await stack.sandbox.records.waitForLines(2)
    let sequenceID = try await stack.sequenceID(eventID)
    #expect(lines.map(\.sequenceID) == [sequenceID, sequenceID])
    #expect(lines[1].status == 200)
    #expect(lines[1].filename == "\(sequenceID).jpg")
    let attach = try #require(lines[1].attach)
    #expect(attach.hasPrefix("\(NtfyStack.imageBaseURL)/api/v1/notifications/push-images/"))
    #expect(lines[1].title == lines[0].title && lines[1].priority == lines[0].priority)

    // ntfy's cache keeps both; the phone shows one notification, the photo's.
    #expect(try await stack.sandbox.poll(topic).count == 2)
    let shown = try await stack.sandbox.view(topic)
    #expect(shown.count == 1)
    #expect(shown.first?.attachment?.url == attach)
    #expect(shown.first?.attachment?.name == "\(sequenceID).jpg")
    #expect(shown.first?.title == "Robbie was lifted")

    try await eventually(timeout: .seconds(20), "the follow-up's outcome recorded") {
      try await stack.count("SELECT count(*) AS n FROM deliveries WHERE state = 'sent'") == 2
    }
    let followUp = try #require(
      try await stack.story(eventID).filter { $0.type == "delivery.sent" }
        .map { try $0.decode(DeliverySent.self) }.first { $0.followup == true })
    #expect(followUp.hasImage && followUp.platform == .ntfy)
  }

  @Test func aWorkerWithoutAnNtfyURLRefusesToStartWithOneLine() async throws {
    let db = try await TestDatabase.make()
    let environment = try WorkerProcess.environment(
      database: db, subjectPrefix: uniqueSubjectPrefix())
    let result = try await runCommand("NtfyWorker", [], environment: environment)
    #expect(result.status == 2)
    #expect(
      result.output
        == "NtfyWorker: configuration error: MOWDECK_NOTIFICATIONS_NTFY_URL is not set\n",
      "\(result.output)")
  }
}
