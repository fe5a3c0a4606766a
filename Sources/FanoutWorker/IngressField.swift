/// What one contract field of an ingress alarm holds, as far as its checks need to know
/// (docs/interfaces.md#ingress-alarm): text, JSON `null`, or another JSON value (a number,
/// a boolean, an array, an object), whose content is never read. A missing field is no
/// `IngressField` at all (`IngressPayload` holds an optional).
enum IngressField: Decodable, Sendable, Equatable {
  case text(String)
  case null
  case other

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
      return
    }
    // A type mismatch is another JSON value. Any other error is a string the decoder
    // cannot read, which the check before decoding rules out (`IngressPayload.read`); were
    // it to happen, it is thrown and the payload is `invalid_json`.
    do {
      self = .text(try container.decode(String.self))
    } catch DecodingError.typeMismatch {
      self = .other
    }
  }

  /// The text, when the field holds one.
  var text: String? {
    if case .text(let text) = self { return text }
    return nil
  }
}
