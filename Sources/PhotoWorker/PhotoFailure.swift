/// Why a capture failed: the `reason` of `photo.failed` (CONTRACT.md section 5).
enum PhotoFailure: String, Sendable, CaseIterable {
  case timeout
  case noResponders = "no_responders"
  case asleep
  case noCamera = "no_camera"
  case busy
  case gatewayError = "gateway_error"
  case notJPEG = "not_jpeg"
  case tooLarge = "too_large"
  /// The worker that held the reservation died and the photo's window passed before
  /// another could take it over.
  case workerLost = "worker_lost"
  /// The camera answered, but the photos already waiting for PostgreSQL filled the
  /// worker's held-bytes budget: the photo was not kept (ADR 0019).
  case storeOverloaded = "store_overloaded"
}

/// What one camera request came to.
enum PhotoResult: Sendable, Equatable {
  case captured([UInt8])
  case failed(PhotoFailure, detail: String?)
}
