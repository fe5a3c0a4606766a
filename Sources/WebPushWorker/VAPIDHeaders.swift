import FoundationEssentials
import Infrastructure
import Synchronization

/// The VAPID `Authorization` value per push service origin, signed once and reused for an
/// hour (its token is valid for 12): an ES256 signature per message would cost each push a
/// signing for nothing, as the APNs provider token is reused too.
final class VAPIDHeaders: Sendable {
  static let reuseSeconds: TimeInterval = 3600

  private struct Signed {
    let value: String
    let signedAt: Date
  }

  private let vapid: VAPIDAuthorization
  private let cache = Mutex<[String: Signed]>([:])

  init(vapid: VAPIDAuthorization) { self.vapid = vapid }

  func value(endpoint: String, now: Date) throws(VAPIDError) -> String {
    guard let origin = VAPIDAuthorization.audience(ofEndpoint: endpoint) else {
      throw .badEndpoint(endpoint)
    }
    if let cached = cache.withLock({ $0[origin] }),
      now.timeIntervalSince(cached.signedAt) < Self.reuseSeconds, now >= cached.signedAt
    {
      return cached.value
    }
    let value = try vapid.headerValue(endpoint: endpoint, now: now)
    cache.withLock { $0[origin] = Signed(value: value, signedAt: now) }
    return value
  }
}
