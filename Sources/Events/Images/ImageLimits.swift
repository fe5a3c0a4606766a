import Infrastructure

/// How long stored photos and failure markers live, and how many rows are kept
/// (docs/interfaces.md#tables).
public struct ImageLimits: Sendable {
  /// The largest photo a camera may answer with (docs/interfaces.md#camera-request-and-replies).
  public static let largestPhotoBytes = 524_288

  public var retentionSeconds: Int
  public var failedRetentionSeconds: Int
  public var keep: Int

  public init(retentionSeconds: Int, failedRetentionSeconds: Int, keep: Int) {
    self.retentionSeconds = retentionSeconds
    self.failedRetentionSeconds = failedRetentionSeconds
    self.keep = keep
  }

  public init(configuration: Configuration) {
    self.init(
      retentionSeconds: configuration.imageRetentionHours * 3600,
      failedRetentionSeconds: configuration.imageFailedRetentionSeconds,
      keep: configuration.imageKeep)
  }
}
