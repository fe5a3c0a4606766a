/// Why a capture failed: the `reason` of `photo.failed`
/// (docs/interfaces.md#camera-request-and-replies).
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
  /// PostgreSQL refused to store the outcome for what it held (a data or constraint error,
  /// or one no retry cleared): the reservation ends failed so that its URL answers "never".
  /// The detail names the SQLSTATE and the outcome refused.
  case storeRejected = "store_rejected"
}

/// What one camera request came to.
enum PhotoResult: Sendable, Equatable {
  case captured([UInt8])
  case failed(PhotoFailure, detail: String?)
}
