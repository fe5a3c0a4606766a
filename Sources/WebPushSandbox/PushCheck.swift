import Foundation
import Infrastructure

/// What a push service checks of a push (RFC 8030 section 5, RFC 8291, RFC 8292), and the
/// answer: the checks that fail give 400 (401 or 403 for VAPID, 413 for size), the
/// ones that pass give the subscription's configured answer.
struct PushCheck {
  /// `https://<endpoint host>:<port>`: what VAPID's `aud` must be.
  let origin: String
  /// RFC 8030 section 7.2 lets a push service refuse larger bodies; every browser's does
  /// above 4096 bytes.
  static let maximumBodyBytes = 4096
  static let urgencies: Set<String> = ["very-low", "low", "normal", "high"]

  struct Outcome {
    var response: HTTPResponse
    var line: RecordLine
  }

  /// The answer to `request` for `subscription` (nil: unknown id), and its record line.
  func check(_ request: HTTPRequest, id: String, subscription: Subscription?, now: Date)
    -> Outcome
  {
    var line = RecordLine(
      time: now, subscription: id, status: 0, error: nil, ttl: nil,
      urgency: request.headers["Urgency"], topic: request.headers["Topic"], vapidSub: nil,
      vapidAud: nil, vapidJWT: nil, payload: nil, payloadBytes: request.body.count)
    if let text = request.headers["TTL"] { line.ttl = Self.ttl(text) }
    func refuse(_ status: Int, _ error: String) -> Outcome {
      line.status = status
      line.error = error
      return Outcome(response: .json(status, ErrorBody(error: error)), line: line)
    }
    guard let subscription else { return refuse(404, "unknown subscription") }
    guard let authorization = request.headers["Authorization"] else {
      return refuse(401, "no Authorization header")
    }
    let vapid: VerifiedVAPID
    do {
      vapid = try VAPIDVerifier.verify(headerValue: authorization, now: now)
    } catch {
      return refuse(401, error.description)
    }
    line.vapidSub = vapid.claims.sub
    line.vapidAud = vapid.claims.aud
    line.vapidJWT = vapid.token
    guard vapid.claims.aud == origin else {
      return refuse(401, "VAPID aud \(vapid.claims.aud) is not this service's origin \(origin)")
    }
    if let expected = subscription.behaviour.applicationServerKey, expected != vapid.publicKey {
      return refuse(403, "VAPID key is not the subscription's application server key")
    }
    guard let ttlText = request.headers["TTL"] else { return refuse(400, "no TTL header") }
    guard line.ttl != nil else {
      return refuse(400, "TTL \(ttlText) is not a non-negative integer")
    }
    if let urgency = line.urgency, !Self.urgencies.contains(urgency) {
      return refuse(400, "Urgency \(urgency) is not very-low, low, normal or high")
    }
    if let topic = line.topic, !Self.isValidTopic(topic) {
      return refuse(400, "Topic is not 1 to 32 characters of the base64url alphabet")
    }
    if !request.body.isEmpty {
      let encoding = request.headers["Content-Encoding"]
      guard encoding?.lowercased() == "aes128gcm" else {
        return refuse(400, "Content-Encoding \(encoding ?? "missing") is not aes128gcm")
      }
      guard request.body.count <= Self.maximumBodyBytes else {
        return refuse(
          413, "body of \(request.body.count) bytes is over \(Self.maximumBodyBytes)")
      }
      do {
        let plaintext = try WebPushCipher.decrypt(
          body: request.body, userAgentKey: subscription.keyPair,
          authSecret: subscription.authSecret)
        line.payload = String(decoding: plaintext, as: UTF8.self)
      } catch {
        return refuse(400, "cannot decrypt: \(error.description)")
      }
    }
    return answer(subscription.behaviour, line: line)
  }

  private func answer(_ behaviour: Behaviour, line: RecordLine) -> Outcome {
    var line = line
    line.status = behaviour.status
    var response: HTTPResponse
    if behaviour.status == 201 {
      response = HTTPResponse(status: 201).adding(
        "Location", "\(origin)/message/\(Base64URL.encode(randomBytes(16)))")
      if let ttl = line.ttl { response = response.adding("TTL", String(ttl)) }
    } else {
      line.error = nil
      response = .json(
        behaviour.status, ErrorBody(error: HTTPStatus.reason(behaviour.status)))
      if let seconds = behaviour.retryAfter {
        response = response.adding("Retry-After", String(seconds))
      }
      if let location = behaviour.location { response = response.adding("Location", location) }
    }
    return Outcome(response: response, line: line)
  }

  /// Digits only, no sign, and fits an Int.
  static func ttl(_ text: String) -> Int? {
    guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
    return Int(text)
  }

  static func isValidTopic(_ topic: String) -> Bool {
    (1...32).contains(topic.utf8.count)
      && topic.utf8.allSatisfy { c in
        (65...90).contains(c) || (97...122).contains(c) || (48...57).contains(c) || c == 45
          || c == 95
      }
  }
}
