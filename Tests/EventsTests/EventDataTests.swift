import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// Every event type's data against its golden JSON in `Tests/Fixtures/wire/events`: what
/// `NewEvent` stores is byte for byte the file, and the file reads back as the same value.
/// The files are what the untyped writer stored before the types (docs/interfaces.md), but
/// for whole milliseconds and seconds, written `1840` where it wrote `1840.0`: ids in lower
/// case, `null` for an absent optional, dates as `Timestamp` writes them.
@Suite struct EventDataTests {
  static let eventID = UUID(uuidString: "7D7C3B0E-1111-4222-8333-444455556666")!
  static let imageID = UUID(uuidString: "44444444-2222-4333-8444-555555555555")!
  static let deliveryID = UUID(uuidString: "11111111-2222-4333-8444-555555555555")!
  static let notificationID = UUID(uuidString: "22222222-2222-4333-8444-555555555555")!
  static let deviceID = UUID(uuidString: "33333333-2222-4333-8444-555555555555")!
  static let attempt = DeliveryAttempt(
    deliveryID: deliveryID, notificationID: notificationID, deviceID: deviceID,
    tokenPrefix: "abababab", environment: "sandbox", attempt: 2)

  static func golden(_ name: String) throws -> String {
    try String(contentsOfFile: TestServers.fixture("wire/events/\(name).json"), encoding: .utf8)
      .trimmingCharacters(in: .newlines)
  }

  func check<Fields: EventData>(_ data: Fields, _ name: String) throws {
    let golden = try Self.golden(name)
    let event = NewEvent(data, correlationID: Self.eventID)
    #expect(event.type == Fields.type)
    // The file is named after the type: `delivery.retry_scheduled`, delivery-retry-scheduled.
    #expect(
      name
        == event.type.rawValue.replacingOccurrences(of: ".", with: "-")
        .replacingOccurrences(of: "_", with: "-"))
    #expect(event.dataJSON == golden, "\(name)")
    #expect(try WireCoding.decode(Fields.self, from: Array(golden.utf8)) == data, "\(name)")
  }

  @Test func theFanoutsFacts() throws {
    try check(
      AlarmReceived(
        mowerID: "m-4711", kind: "mower_lifted", alarmClass: "theft",
        occurredAt: Timestamp.parse("2026-11-29T10:15:00Z")!,
        decidedOn: Timestamp.parse("2026-11-29T10:15:00.123456Z")!,
        mowerName: "Robbie \"the\" mower/é", reason: nil, streamSequence: 42),
      "alarm-received")
    try check(
      AlarmRejected(
        reason: "refused_by_database", subject: "notifications.alarms.m-4711", mowerID: nil,
        streamSequence: 42, payloadBytes: 123, payloadSHA256: String(repeating: "0f", count: 32),
        errorClass: "23", sqlState: "23514", constraint: "alarms_kind_check"),
      "alarm-rejected")
    try check(
      AlarmSuppressed(
        alarmClass: "theft", cooldownSeconds: 600,
        lastPushOn: Timestamp.parse("2026-11-29T10:05:00.5Z")!, secondsSinceLastPush: 599),
      "alarm-suppressed")
    try check(
      NotificationCreated(notificationID: Self.notificationID, userID: "u-1", hasImage: true),
      "notification-created")
    try check(
      DeliveryQueued(
        deliveryID: Self.deliveryID, notificationID: Self.notificationID,
        deviceID: Self.deviceID, platform: .apns, environment: "sandbox",
        tokenPrefix: "abababab"),
      "delivery-queued")
    // Only an APNs device has an environment: the other platforms' events leave it out.
    let webPush = DeliveryQueued(
      deliveryID: Self.deliveryID, notificationID: Self.notificationID, deviceID: Self.deviceID,
      platform: .webpush, environment: nil, tokenPrefix: "https://")
    #expect(
      NewEvent(webPush, correlationID: Self.eventID).dataJSON
        == #"{"delivery_id":"11111111-2222-4333-8444-555555555555","#
        + #""device_id":"33333333-2222-4333-8444-555555555555","#
        + #""notification_id":"22222222-2222-4333-8444-555555555555","#
        + #""platform":"webpush","token_prefix":"https://"}"#)
    try check(ImageReserved(imageID: Self.imageID, mowerID: "m-4711"), "image-reserved")
    try check(PhotoSkipped(reason: "daily_limit", mowerID: "m-4711"), "photo-skipped")
  }

  @Test func thePhotoWorkersFacts() throws {
    try check(
      PhotoRequested(imageID: Self.imageID, mowerID: "m-4711", attempt: 1, timeoutSeconds: 17),
      "photo-requested")
    try check(
      PhotoCaptured(imageID: Self.imageID, bytes: 48213, captureMilliseconds: 1840, attempt: 1),
      "photo-captured")
    try check(
      PhotoFailed(
        imageID: Self.imageID, reason: "gateway_error", detail: "camera said \u{1}no",
        afterMilliseconds: 250, attempt: 2),
      "photo-failed")
  }

  @Test func theAPNsWorkersFacts() throws {
    try check(
      DeliverySent(
        Self.attempt, apnsID: "A1B2C3D4-0000-1111-2222-333344445555", status: 200,
        latencyMilliseconds: 12, hasImage: true),
      "delivery-sent")
    try check(
      DeliveryRetryScheduled(
        Self.attempt, status: nil, reason: "network", retryInMilliseconds: 2500),
      "delivery-retry-scheduled")
    try check(
      DeliveryFailed(
        Self.attempt, status: 410, reason: "Unregistered", apnsTimestamp: 1_795_947_300_000),
      "delivery-failed")
    try check(
      DeviceDeactivated(
        deviceID: Self.deviceID, tokenPrefix: "abababab", reason: "BadDeviceToken",
        apnsTimestamp: nil),
      "device-deactivated")
  }

  @Test func theStoredPhotosFacts() throws {
    try check(
      ImageServed(
        notificationID: Self.notificationID, imageID: Self.imageID, bytes: 48213, route: "push"),
      "image-served")
    try check(
      ImageExpired(imageID: Self.imageID, state: "captured", bytes: 48213), "image-expired")
    try check(ImagePruned(imageID: Self.imageID, state: "failed", bytes: 0), "image-pruned")
  }

  @Test func everyEventTypeHasItsGoldenFile() throws {
    let files = try FileManager.default.contentsOfDirectory(
      atPath: TestServers.fixture("wire/events"))
    #expect(
      Set(files)
        == Set(
          EventType.allCases.map {
            $0.rawValue.replacingOccurrences(of: ".", with: "-")
              .replacingOccurrences(of: "_", with: "-") + ".json"
          }))
  }

  /// Whole numbers the untyped writer stored as `1840.0`, a missing optional, and ids in
  /// upper case all read back.
  @Test func rowsWrittenBeforeTheTypesReadBack() throws {
    let captured = try WireCoding.decode(
      PhotoCaptured.self,
      from: Array(
        #"{"attempt":1,"bytes":48213,"capture_ms":1840.0,"image_id":"44444444-2222-4333-8444-555555555555"}"#
          .utf8))
    #expect(captured.captureMilliseconds == 1840)
    let served = try WireCoding.decode(
      ImageServed.self,
      from: Array(
        #"{"bytes":1,"notification_id":"22222222-2222-4333-8444-555555555555","route":"inbox"}"#
          .utf8))
    #expect(served.imageID == nil)
    #expect(served.notificationID == Self.notificationID)
    let failed = try WireCoding.decode(
      PhotoFailed.self,
      from: Array(
        #"{"after_ms":250,"attempt":2,"image_id":"44444444-2222-4333-8444-555555555555","reason":"timeout"}"#
          .utf8))
    #expect(failed.detail == nil)
  }

  /// An absent optional the docs list is `null`; one only present "when known" is left out.
  @Test func absentOptionalsAreNullUnlessOnlyWrittenWhenKnown() {
    let served = NewEvent(
      ImageServed(notificationID: Self.notificationID, imageID: nil, bytes: 1, route: "inbox"),
      correlationID: Self.eventID)
    #expect(served.dataJSON.contains(#""image_id":null"#))
    let rejected = NewEvent(
      AlarmRejected(
        reason: "invalid_json", subject: "s", mowerID: "m-1", streamSequence: 1,
        payloadBytes: 1, payloadSHA256: "00"),
      correlationID: Self.eventID)
    #expect(
      rejected.dataJSON
        == #"{"mower_id":"m-1","payload_bytes":1,"payload_sha256":"00","reason":"invalid_json","stream_seq":1,"subject":"s"}"#
    )
  }
}
