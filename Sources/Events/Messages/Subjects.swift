import Infrastructure

/// Every NATS subject and JetStream name the pipeline uses, in one place (ADR 0004).
///
/// `prefix` is empty in a deployment. Tests set it (`MOWDECK_NATS_SUBJECT_PREFIX`) so that
/// tests sharing one nats-server never see each other's alarms, streams or wake-ups.
public struct Subjects: Sendable {
  public let prefix: String

  public init(prefix: String = "") {
    self.prefix = prefix.isEmpty || prefix.hasSuffix(".") ? prefix : prefix + "."
  }

  /// Ingress (docs/interfaces.md#ingress-alarm): `notifications.alarms.<mower_id>`.
  public func alarm(mowerID: String) -> String { prefix + "notifications.alarms." + mowerID }
  public var alarmsWildcard: String { prefix + "notifications.alarms.*" }
  /// Where an alarm's mower id sits in its subject.
  public var alarmSubjectPrefix: String { prefix + "notifications.alarms." }

  /// The JetStream stream that captures ingress, and the fan-out's shared durable consumer.
  public var alarmsStream: String {
    "MOWDECK_ALARMS" + (prefix.isEmpty ? "" : "_" + sanitized(prefix))
  }
  public let fanoutConsumer = "fanout"

  /// The camera (docs/interfaces.md#camera-request-and-replies).
  public func photoRequest(mowerID: String) -> String { prefix + "gateway.mower.\(mowerID).photo" }
  public var photoRequestWildcard: String { prefix + "gateway.mower.*.photo" }

  /// Doorbells rung after a commit; each stage also sweeps its table every second.
  public var wakePhotos: String { prefix + "mowdeck.wake.photos" }
  public var wakeDeliveries: String { prefix + "mowdeck.wake.deliveries" }
  /// The fan-out offers each decision's leased deliveries to one APNs worker (request/reply,
  /// queue group "APNsWorker"; `DeliveryHandoff`, ADR 0016).
  public var deliveryHandoff: String { prefix + "mowdeck.handoff.deliveries" }
  /// Published by the fan-out after each ingress message is committed (JSON: stream_seq,
  /// event_id, outcome); `mowdeck replay` and the benchmarks wait on it.
  public var alarmDecided: String { prefix + "mowdeck.fanout.decided" }

  private func sanitized(_ text: String) -> String {
    String(text.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
      .trimming { $0 == "_" }
  }
}
