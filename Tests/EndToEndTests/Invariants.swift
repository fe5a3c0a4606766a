import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// What must hold once a replay is over, whatever happened during it.
struct Invariants {
  let stack: PipelineStack

  func check(alarms: String, expected: String) async throws {
    let db = stack.db
    // 1. Exactly the expected decisions.
    let decisions = try await stack.mowdeck("check-decisions", alarms, expected)
    #expect(decisions.status == 0, "\(decisions.output.suffix(2000))")

    // 2. Every delivery ends sent (the sandbox accepts every token), once per device.
    try await eventually(timeout: .seconds(90), "every delivery to be sent") {
      try await db.count("SELECT count(*) AS n FROM deliveries WHERE state <> 'sent'") == 0
    }
    var collapseByToken: [String: Set<String>] = [:]
    var notificationsPushed: Set<String> = []
    for push in stack.pushes() where push["status"]?.integer == 200 {
      guard let token = push["token"]?.string,
        let collapse = (push["headers"]?.object)?["apns-collapse-id"]?.string,
        let payload = push["payload"]?.object,
        let notification = payload["notification_id"]?.string
      else { continue }
      #expect(collapse == notification)
      collapseByToken[token + " " + notification, default: []].insert(collapse)
      notificationsPushed.insert(notification)
    }
    let deliveries = try await db.count(
      "SELECT count(*) AS n FROM deliveries WHERE platform = 'apns'")
    #expect(collapseByToken.count == deliveries, "every (device, notification) reached APNs")
    let withDevices = try await db.count(
      "SELECT count(DISTINCT notification_id) AS n FROM deliveries WHERE platform = 'apns'")
    #expect(notificationsPushed.count == withDevices)

    // 3. Every reserved photo ended, within the photo timeout plus a margin of its reservation.
    try await eventually(timeout: .seconds(60), "every photo to end") {
      try await db.count("SELECT count(*) AS n FROM photo_reservations WHERE state = 'pending'")
        == 0
    }
    let late = try await db.count(
      """
      SELECT count(*) AS n FROM photo_reservations
      WHERE finished_at > created_at + make_interval(secs => \(PipelineStack.photoTimeout + 15))
      """)
    #expect(late == 0)

    // 4. The phone (push-image-fetch, over TLS) attaches each captured photo through its
    //    signed URL and gives up at once on each failed one (410).
    let serve = stack.workers["ImageServeWorker"]!.first { $0.isRunning }!
    let port = try await listeningPort(of: serve)
    var urls: [String: String] = [:]
    for push in stack.pushes() {
      if let payload = push["payload"]?.object, let url = payload["image_url"]?.string,
        let notification = payload["notification_id"]?.string
      {
        urls[notification] = url  // the latest URL of each notification
      }
    }
    let states = try await db.pool.query(
      """
      SELECT n.notification_id::text AS id, r.state FROM notifications n
      JOIN photo_reservations r ON r.image_id = n.image_id
      WHERE EXISTS (
        SELECT 1 FROM deliveries d
        WHERE d.notification_id = n.notification_id AND d.platform = 'apns')
      """)
    let tls = try TLSFront(to: port)
    defer { tls.stop() }
    var wanted: [String: (id: String, captured: Bool)] = [:]
    for row in states {
      let id = try row.string("id")
      guard let url = urls[id] else {
        Issue.record("notification \(id) with a photo and devices had no image_url")
        continue
      }
      let local = url.replacingOccurrences(
        of: "https://localhost/", with: "https://localhost:\(tls.port)/")
      wanted[local] = (id, try row.string("state") == "captured")
    }
    let fetched = try tls.phoneFetch(Array(wanted.keys))
    #expect(fetched.count == wanted.count)
    for (url, status) in fetched {
      guard let want = wanted[url] else { continue }
      if want.captured && status == 0 || !want.captured && status == 1 { continue }
      // A photo captured 24 h ago or pruned beyond the newest 200 is gone too.
      let kept = try await db.count(
        "SELECT count(*) AS n FROM notification_images i JOIN notifications n USING (image_id) WHERE n.notification_id = \(UUID(uuidString: want.id)!)"
      )
      #expect(
        want.captured && kept == 0 && status == 1,
        "\(want.id): push-image-fetch exit \(status), captured \(want.captured)")
    }
    #expect(fetched.count > 100)
    #expect(fetched.contains { $0.status == 0 } && fetched.contains { $0.status == 1 })
    try await checkChannels(tls: tls)

    // 5. The inbox says has_image exactly for the captured photos still stored.
    let token = try await Directory(pool: db.pool).createSession(userID: "u-7-0003-0")
    let inbox = try runShell(
      "curl -s -H 'Authorization: Bearer \(token)' 'http://127.0.0.1:\(port)/api/v1/notifications/inbox?limit=100'"
    )
    let items = (JSON.object(from: Array(inbox.utf8))?["items"]?.objects) ?? []
    #expect(!items.isEmpty)
    for item in items {
      guard let id = (item["notification_id"]?.string).flatMap(UUID.init(uuidString:)) else {
        continue
      }
      let stored = try await db.count(
        """
        SELECT count(*) AS n FROM notifications n JOIN notification_images i USING (image_id)
        WHERE n.notification_id = \(id) AND i.state = 'captured'
        """)
      #expect((item["has_image"]?.bool) == (stored == 1), "\(id)")
    }
  }

  /// What one channel's double got: each (device, notification, photo or not) once or more,
  /// and the follow-ups' photo URLs by notification.
  struct ChannelReceipts {
    var got: Set<String> = []
    var photoURLs: [String: String] = [:]

    mutating func add(device: String, notification: String, imageURL: String?) {
      got.insert("\(device) \(notification) \(imageURL != nil)")
      if let imageURL {
        #expect(imageURL.contains("/api/v1/notifications/push-images/\(notification)?"))
        photoURLs[notification] = imageURL
      }
    }
  }

  /// Every user's browser, Android phone and ntfy topic got each alarm once (a repeat only
  /// under the same `Topic`, tag or sequence id), and a follow-up with the photo exactly for
  /// the captured photos, none for a failed one; each follow-up's URL gives the photo.
  private func checkChannels(tls: TLSFront) async throws {
    let db = stack.db
    let afterAFailure = try await db.count(
      """
      SELECT count(*) AS n FROM deliveries d JOIN notifications n USING (notification_id)
      JOIN photo_reservations r ON r.image_id = n.image_id
      WHERE d.followup AND r.state <> 'captured'
      """)
    #expect(afterAFailure == 0)
    let receipts: [(platform: String, receipts: ChannelReceipts)] = [
      ("webpush", try webPushReceipts()), ("fcm", try fcmReceipts()), ("ntfy", try ntfyReceipts()),
    ]
    var photoURLs: [String: String] = [:]
    for (platform, receipt) in receipts {
      // One follow-up per captured photo and device of its recipients on this platform.
      let followUpsWanted = try await db.count(
        """
        SELECT count(*) AS n FROM notifications n
        JOIN photo_reservations r ON r.image_id = n.image_id AND r.state = 'captured'
        JOIN deliveries d ON d.notification_id = n.notification_id AND d.platform = \(platform)
          AND NOT d.followup
        """)
      let followUps = try await db.count(
        "SELECT count(*) AS n FROM deliveries WHERE platform = \(platform) AND followup")
      #expect(
        followUps == followUpsWanted && followUps > 0,
        "\(platform): \(followUps) follow-ups of \(followUpsWanted)")
      let wanted = try await db.count(
        "SELECT count(*) AS n FROM deliveries WHERE platform = \(platform)")
      #expect(receipt.got.count == wanted, "\(platform): every delivery reached its device")
      for (notification, url) in receipt.photoURLs {
        photoURLs["\(platform) \(notification)"] = url
      }
    }
    // The follow-ups' URLs, as the browser, the Android app and ntfy fetch them.
    var byURL: [String: String] = [:]
    for (key, url) in photoURLs {
      byURL[
        url.replacingOccurrences(of: "https://localhost/", with: "https://localhost:\(tls.port)/")] =
        key
    }
    for (url, status) in try tls.phoneFetch(Array(byURL.keys)) where status != 0 {
      let notification = UUID(uuidString: String(byURL[url]?.split(separator: " ").last ?? ""))
      // Pruned meanwhile (beyond the newest 200 of a mower) is the only excuse.
      let kept = try await db.count(
        """
        SELECT count(*) AS n FROM notification_images i JOIN notifications n USING (image_id)
        WHERE n.notification_id = \(notification)
        """)
      #expect(kept == 0, "\(byURL[url] ?? url): the follow-up's photo URL failed (\(status))")
    }
    #expect(photoURLs.count > 100)
  }

  private func webPushReceipts() throws -> ChannelReceipts {
    struct Message: Decodable {
      let notificationID: String
      let tag: String
      let imageURL: String?
      enum CodingKeys: String, CodingKey {
        case notificationID = "notification_id"
        case tag
        case imageURL = "image_url"
      }
    }
    var receipts = ChannelReceipts()
    for line in try stack.webPush.recordLines() where line.status == 201 {
      let message = try WireCoding.decode(Message.self, from: Array((line.payload ?? "").utf8))
      #expect(message.tag == message.notificationID)
      let topic = message.notificationID.replacingOccurrences(of: "-", with: "")
      #expect(line.topic == topic, "the Topic names the notification")
      #expect(stack.browsers[line.subscription] != nil, "a push to an unknown subscription")
      receipts.add(
        device: line.subscription, notification: message.notificationID,
        imageURL: message.imageURL)
    }
    return receipts
  }

  private func fcmReceipts() throws -> ChannelReceipts {
    struct Message: Decodable {
      struct Android: Decodable {
        struct Notification: Decodable { let tag: String }
        let notification: Notification
      }
      let data: [String: String]
      let android: Android
    }
    var receipts = ChannelReceipts()
    for line in try stack.fcm.recordLines() where line.route == "send" && line.status == 200 {
      let message = try WireCoding.decode(
        Message.self, from: WireCoding.encode(line.message ?? .null))
      let notification = message.data["notification_id"] ?? ""
      #expect(message.android.notification.tag == notification, "the tag names the notification")
      receipts.add(
        device: line.registrationToken ?? "", notification: notification,
        imageURL: message.data["image_url"])
    }
    return receipts
  }

  private func ntfyReceipts() throws -> ChannelReceipts {
    var receipts = ChannelReceipts()
    for line in try stack.ntfy.records.lines() where line.status == 200 {
      receipts.add(
        device: line.topic, notification: line.sequenceID ?? "", imageURL: line.attach)
    }
    return receipts
  }
}
