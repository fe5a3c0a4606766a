import Infrastructure

/// The metric families each worker exports (docs/interfaces.md#metrics), handed to its
/// registry when it is created so that every one has `# HELP` and `# TYPE` and shows from
/// the first scrape, before anything has counted it. Families whose owner
/// describes them itself are not repeated here: the HTTP server's (`HTTPServerCore`), a
/// stage's backlog gauges (`StageProgress`), the photo worker's held bytes
/// (`HeldBytesBudget`), the serving process's rate limit (`ServeLimits`) and the FCM
/// channel's token counters (`FCMMetrics`).
public enum PipelineMetrics {
  public static let fanout: [MetricFamily] = [
    MetricFamily(
      "mowdeck_fanout_alarms_total", .counter,
      "Ingress messages handled, by outcome (as in the decision notice)."),
    MetricFamily(
      "mowdeck_fanout_decision_seconds", .histogram,
      "From the first try at an ingress message to its acknowledgement."),
    MetricFamily(
      "mowdeck_fanout_failures_total", .counter,
      "Failed tries at an ingress message, by class (outage, content, unknown)."),
    MetricFamily(
      "mowdeck_fanout_rejected_total", .counter,
      "Ingress messages given up after a failure, by reason."),
    MetricFamily(
      "mowdeck_fanout_batch_alarms", .histogram, "Alarms decided in one transaction."),
    MetricFamily(
      "mowdeck_fanout_batches_failed_total", .counter,
      "Batches of several alarms that failed; their alarms were then decided alone."),
    MetricFamily(
      "mowdeck_fanout_handoffs_total", .counter,
      "How each decision's deliveries reached the APNs stage, by answer."),
    MetricFamily(
      "mowdeck_fanout_consumer_pending", .gauge,
      "Messages of the JetStream consumer not yet delivered."),
    MetricFamily(
      "mowdeck_fanout_consumer_ack_pending", .gauge,
      "Messages delivered to the fan-out, not yet acknowledged."),
    MetricFamily(
      "mowdeck_fanout_consumer_recreated_total", .counter,
      "Times the stream and consumer were created again."),
  ]

  public static let photo: [MetricFamily] = [
    MetricFamily(
      "mowdeck_photo_capture_seconds", .histogram,
      "From a photo's claim to the camera's answer or failure."),
    MetricFamily(
      "mowdeck_photo_store_seconds", .histogram,
      "From the camera's answer to the committed row."),
    MetricFamily(
      "mowdeck_photo_store_group_photos", .histogram,
      "Photo outcomes written in one transaction."),
    MetricFamily(
      "mowdeck_photo_store_groups_failed_total", .counter,
      "Groups of several photo outcomes that failed, whose outcomes were then written alone."),
    MetricFamily(
      "mowdeck_photo_outcomes_total", .counter,
      "Captures ended, by outcome (captured, a photo.failed reason, stale, given_up)."),
  ]

  /// The APNs worker's; its backlog gauges are its `StageProgress`'s.
  public static let apns: [MetricFamily] = [
    AlarmToPush.family,
    MetricFamily("mowdeck_apns_request_seconds", .histogram, "One HTTP/2 exchange with APNs."),
    MetricFamily(
      "mowdeck_apns_responses_total", .counter,
      "What each APNs attempt led to, by action (sent, retry, renew_token, failed)."),
    MetricFamily(
      "mowdeck_apns_refusals_total", .counter,
      "APNs answers other than 200, by HTTP status and Apple's reason (other when not one "
        + "of Apple's documented reasons)."),
    MetricFamily(
      "mowdeck_apns_handoffs_total", .counter, "Delivery handoffs answered, by answer."),
    MetricFamily(
      "mowdeck_apns_stale_total", .counter,
      "Outcomes not written because the lease had passed to another worker."),
    MetricFamily(
      "mowdeck_apns_outcomes_given_up_total", .counter,
      "Outcomes PostgreSQL kept refusing; the delivery is sent again when its lease lapses."),
  ]

  /// A channel worker's (Web Push, FCM, ntfy): `mowdeck_<platform>_...`, named as the shared
  /// loop (`ChannelService`) counts them.
  public static func channel(_ device: DevicePlatform) -> [MetricFamily] {
    let platform = device.rawValue
    return [
      AlarmToPush.family,
      MetricFamily(
        "mowdeck_\(platform)_request_seconds", .histogram,
        "One attempt: the message built and exchanged with the push service."),
      MetricFamily(
        "mowdeck_\(platform)_responses_total", .counter,
        "What each attempt led to, by action (sent, retry, failed, deactivated)."),
      MetricFamily(
        "mowdeck_\(platform)_refusals_total", .counter,
        "Push service answers other than 2xx, by HTTP status (401 and 403: credentials)."),
      MetricFamily(
        "mowdeck_\(platform)_stale_total", .counter,
        "Outcomes not written because the lease had passed to another worker."),
      MetricFamily(
        "mowdeck_\(platform)_outcomes_given_up_total", .counter,
        "Outcomes PostgreSQL kept refusing; sent again when the lease lapses."),
    ]
  }

  public static let imageServe: [MetricFamily] = [
    MetricFamily(
      "mowdeck_images_served_total", .counter, "Photos answered 200, by route (push, inbox).")
  ]

  public static let prune: [MetricFamily] = [
    MetricFamily(
      "mowdeck_prune_images_total", .counter,
      "Photos and markers removed, by why (expired, pruned)."),
    MetricFamily("mowdeck_prune_events_total", .counter, "Events removed."),
    MetricFamily("mowdeck_prune_alarms_total", .counter, "Old alarms removed."),
    MetricFamily(
      "mowdeck_prune_inbox_items_total", .counter, "Inbox items removed with their alarms."),
    MetricFamily(
      "mowdeck_prune_unfinished_total", .counter,
      "Removed alarms whose deliveries or photo never finished."),
    MetricFamily(
      "mowdeck_prune_ingress_messages_total", .counter, "Handled-message rows removed."),
  ]
}
