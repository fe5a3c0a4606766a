import Infrastructure

/// The contract fields of an ingress payload (docs/interfaces.md#ingress-alarm), each as it
/// came: nil when missing, else what it holds. Other fields are ignored. `IngressAlarm`
/// checks them in the contract's order. `AlarmMessage` cannot serve: its decoding stops at
/// the first field that is not what it wants, so a wrong `occurred_at` would hide a subject
/// mismatch or an unknown kind, which the contract names first.
struct IngressPayload: Decodable, Sendable, Equatable {
  let eventID: IngressField?
  let mowerID: IngressField?
  let kind: IngressField?
  let occurredAt: IngressField?
  let mowerName: IngressField?
  let reason: IngressField?

  enum CodingKeys: String, CodingKey {
    case eventID = "event_id"
    case mowerID = "mower_id"
    case kind
    case occurredAt = "occurred_at"
    case mowerName = "mower_name"
    case reason
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    // Not `decodeIfPresent`, which reads `null` as missing: a null `event_id` is
    // `invalid_event_id`, a missing one `missing_event_id`.
    func field(_ key: CodingKeys) throws -> IngressField? {
      container.contains(key) ? try container.decode(IngressField.self, forKey: key) : nil
    }
    eventID = try field(.eventID)
    mowerID = try field(.mowerID)
    kind = try field(.kind)
    occurredAt = try field(.occurredAt)
    mowerName = try field(.mowerName)
    reason = try field(.reason)
  }

  /// Reads a payload within the contract's limits on hostile input, checked in this order
  /// before anything else: size, then RFC 8259 JSON of one object nesting at most 32 levels
  /// (`nested_too_deep` when the brackets nest deeper, `invalid_json` otherwise).
  ///
  /// The check comes before `JSONDecoder` sees the bytes, so that a 30,000-deep array never
  /// reaches its recursive parser, and because the decoder checks a string or a number only
  /// where it reads one: in an ignored field it would take a lone surrogate, invalid UTF-8
  /// or a trailing comma, which the contract's `invalid_json` refuses (`JSON.isObject`).
  static func read(_ payload: [UInt8]) -> Result<IngressPayload, IngressAlarm.Rejection> {
    typealias Limits = IngressAlarm.Limits
    guard payload.count <= Limits.payloadBytes else { return .failure(.payloadTooLarge) }
    guard JSON.isObject(payload, maximumDepth: Limits.nestingDepth) else {
      return .failure(
        JSON.nestingExceeds(Limits.nestingDepth, in: payload) ? .nestedTooDeep : .invalidJSON)
    }
    do {
      return .success(try WireCoding.decode(IngressPayload.self, from: payload))
    } catch {
      return .failure(.invalidJSON)
    }
  }
}
