import FoundationEssentials

/// An OAuth 2 access token and the times that matter for reusing it, on the token
/// source's clock.
public struct AccessToken: Equatable, Sendable {
  public let value: String
  /// When the request for it was sent: `expires_in` counts from about then.
  public let obtainedAt: Date
  /// When the token endpoint says it stops working.
  public let expiresAt: Date
  /// When the source asks for the next one: shortly before `expiresAt`, so no message is
  /// sent with a token that expires on its way.
  public let renewAt: Date

  /// `margin` before expiry, but never later than half the token's life from now: a token
  /// endpoint that grants tokens shorter than the margin must not be asked at every call.
  public init(value: String, obtainedAt: Date, expiresIn: Int, margin: TimeInterval) {
    self.value = value
    self.obtainedAt = obtainedAt
    let lifetime = TimeInterval(expiresIn)
    expiresAt = obtainedAt.addingTimeInterval(lifetime)
    renewAt = obtainedAt.addingTimeInterval(max(lifetime - margin, lifetime / 2))
  }
}
