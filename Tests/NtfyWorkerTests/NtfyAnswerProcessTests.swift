import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import NtfyWorker

/// The NtfyWorker as a process meeting each kind of refusal at the double: retried not
/// before `Retry-After`, retried until the server answers, failed for good, and refused
/// credentials retried after a minute with an error for the operator.
@Suite(.serialized) struct NtfyAnswerProcessTests {
  /// The first `delivery.retry_scheduled` of `eventID`, once there is one.
  static func firstRetry(_ stack: NtfyStack, _ eventID: UUID) async throws
    -> DeliveryRetryScheduled?
  {
    var retry: DeliveryRetryScheduled?
    try await eventually(timeout: .seconds(20), "the retry to be scheduled") {
      retry = try await stack.story(eventID).first { $0.type == "delivery.retry_scheduled" }
        .map { try $0.decode(DeliveryRetryScheduled.self) }
      return retry != nil
    }
    return retry
  }

  @Test func aTooManyRequestsAnswerIsRetriedNotBeforeItsRetryAfter() async throws {
    let stack = try await NtfyStack()
    defer { stack.stop() }
    _ = try await stack.phone(answer: 429, retryAfter: 90)
    let eventID = try await stack.alarm()
    let worker = try WorkerProcess("NtfyWorker", environment: stack.environment)
    defer { worker.stop() }
    let retry = try await Self.firstRetry(stack, eventID)
    #expect(retry?.status == 429 && retry?.reason == "too_many_requests")
    #expect(retry?.platform == .ntfy)
    #expect((retry?.retryInMilliseconds ?? 0) >= 90_000)
    #expect(
      try await stack.count(
        """
        SELECT count(*) AS n FROM deliveries
        WHERE state = 'queued' AND next_attempt_at > now() + interval '80 seconds'
        """) == 1)
  }

  @Test func aServerErrorIsRetriedUntilTheServerAnswers() async throws {
    let stack = try await NtfyStack()
    defer { stack.stop() }
    let topic = try await stack.phone(answer: 503)
    let eventID = try await stack.alarm()
    let worker = try WorkerProcess("NtfyWorker", environment: stack.environment)
    defer { worker.stop() }
    let retry = try await Self.firstRetry(stack, eventID)
    #expect(retry?.status == 503 && retry?.reason == "ntfy_server_error")
    try await stack.sandbox.program(topic: topic, answer: 200)
    try await eventually(timeout: .seconds(30), "the message sent once the server answers") {
      try await stack.count("SELECT count(*) AS n FROM deliveries WHERE state = 'sent'") == 1
    }
    let lines = try stack.sandbox.records.lines()
    #expect(lines.first?.status == 503 && lines.last?.status == 200)
    #expect(Set(lines.map(\.sequenceID)).count == 1)
    #expect(try await stack.sandbox.view(topic).count == 1)
  }

  @Test func anotherRefusalFailsForGoodAndKeepsTheDevice() async throws {
    let stack = try await NtfyStack()
    defer { stack.stop() }
    _ = try await stack.phone(answer: 413)
    let eventID = try await stack.alarm()
    let worker = try WorkerProcess("NtfyWorker", environment: stack.environment)
    defer { worker.stop() }
    try await eventually(timeout: .seconds(20), "the delivery failed") {
      try await stack.count("SELECT count(*) AS n FROM deliveries WHERE state = 'failed'") == 1
    }
    let story = try await stack.story(eventID)
    let failed = try #require(
      try story.first { $0.type == "delivery.failed" }?.decode(DeliveryFailed.self))
    #expect(failed.status == 413 && failed.reason == "payload_too_large")
    #expect(!story.contains { $0.type == "device.deactivated" })
    #expect(try await stack.count("SELECT count(*) AS n FROM devices WHERE active") == 1)
    #expect(try stack.sandbox.records.lines().count == 1)
  }

  @Test func refusedCredentialsAreRetriedLaterWithAnErrorAndNoToken() async throws {
    let stack = try await NtfyStack(token: NtfyProcessTests.token)
    defer { stack.stop() }
    _ = try await stack.phone()
    let eventID = try await stack.alarm()
    var environment = stack.environment
    let wrong = "tk_WrongWrongWrongWrongWrongWro"
    environment["MOWDECK_NOTIFICATIONS_NTFY_TOKEN"] = wrong
    let worker = try WorkerProcess("NtfyWorker", environment: environment)
    defer { worker.stop() }
    let retry = try await Self.firstRetry(stack, eventID)
    #expect(retry?.status == 401 && retry?.reason == "credentials_refused")
    #expect((retry?.retryInMilliseconds ?? 0) >= 60_000)
    #expect(try stack.sandbox.records.lines().map(\.token) == [wrong])
    try await eventually(timeout: .seconds(10), "the error for the operator") {
      worker.log.contains(#""level":"error""#)
        && worker.log.contains("MOWDECK_NOTIFICATIONS_NTFY_TOKEN")
    }
    #expect(!worker.log.contains(wrong) && !worker.log.contains(NtfyProcessTests.token))
  }
}
