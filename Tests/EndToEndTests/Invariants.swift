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
    for push in stack.pushes() where push["status"] as? Int == 200 {
      guard let token = push["token"] as? String,
        let collapse = (push["headers"] as? [String: Any])?["apns-collapse-id"] as? String,
        let payload = push["payload"] as? [String: Any],
        let notification = payload["notification_id"] as? String
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
    try await checkWebPush()

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
      if let payload = push["payload"] as? [String: Any], let url = payload["image_url"] as? String,
        let notification = payload["notification_id"] as? String
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

    // 5. The inbox says has_image exactly for the captured photos still stored.
    let token = try await Directory(pool: db.pool).createSession(userID: "u-7-0003-0")
    let inbox = try runShell(
      "curl -s -H 'Authorization: Bearer \(token)' 'http://127.0.0.1:\(port)/api/v1/notifications/inbox?limit=100'"
    )
    let items = (JSON.object(from: Array(inbox.utf8))?["items"] as? [[String: Any]]) ?? []
    #expect(!items.isEmpty)
    for item in items {
      guard let id = (item["notification_id"] as? String).flatMap(UUID.init(uuidString:)) else {
        continue
      }
      let stored = try await db.count(
        """
        SELECT count(*) AS n FROM notifications n JOIN notification_images i USING (image_id)
        WHERE n.notification_id = \(id) AND i.state = 'captured'
        """)
      #expect((item["has_image"] as? Bool) == (stored == 1), "\(id)")
    }
  }

  /// Every user's browser got each alarm once (a repeat only under the same `Topic`), and a
  /// follow-up with the photo exactly for the captured photos, none for a failed one.
  private func checkWebPush() async throws {
    let db = stack.db
    // The follow-ups queued are exactly one per captured photo and browser of its recipients.
    let followUpsWanted = try await db.count(
      """
      SELECT count(*) AS n FROM notifications n
      JOIN photo_reservations r ON r.image_id = n.image_id AND r.state = 'captured'
      JOIN deliveries d ON d.notification_id = n.notification_id AND d.platform = 'webpush'
        AND NOT d.followup
      """)
    let followUps = try await db.count(
      "SELECT count(*) AS n FROM deliveries WHERE platform = 'webpush' AND followup")
    #expect(followUps == followUpsWanted && followUps > 0, "\(followUps) of \(followUpsWanted)")
    let afterAFailure = try await db.count(
      """
      SELECT count(*) AS n FROM deliveries d JOIN notifications n USING (notification_id)
      JOIN photo_reservations r ON r.image_id = n.image_id
      WHERE d.followup AND r.state <> 'captured'
      """)
    #expect(afterAFailure == 0)

    // What the browsers got, decrypted by the double.
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
    var got: Set<String> = []
    for line in try stack.webPush.recordLines() where line.status == 201 {
      let message = try WireCoding.decode(Message.self, from: Array((line.payload ?? "").utf8))
      #expect(message.tag == message.notificationID)
      let topic = message.notificationID.replacingOccurrences(of: "-", with: "")
      #expect(line.topic == topic, "the Topic names the notification")
      #expect(stack.browsers[line.subscription] != nil, "a push to an unknown subscription")
      if let url = message.imageURL {
        #expect(url.contains("/api/v1/notifications/push-images/\(message.notificationID)?"))
      }
      got.insert(
        "\(line.subscription) \(message.notificationID) \(message.imageURL != nil)")
    }
    let wanted = try await db.count(
      "SELECT count(*) AS n FROM deliveries WHERE platform = 'webpush'")
    #expect(got.count == wanted, "every Web Push delivery reached its browser once or more")
  }
}
