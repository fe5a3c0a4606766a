import Infrastructure

/// The request on `gateway.mower.<mower_id>.photo` (docs/interfaces.md#the-camera): one
/// frame for error analysis, answered within `timeoutSeconds`.
public struct PhotoRequest: Codable, Sendable, Equatable {
  public let demand: String
  public let frames: Int
  public let timeoutSeconds: Int

  public init(timeoutSeconds: Int) {
    demand = "error_analysis"
    frames = 1
    self.timeoutSeconds = timeoutSeconds
  }

  enum CodingKeys: String, CodingKey {
    case demand, frames
    case timeoutSeconds = "timeout_s"
  }
}

/// A camera's JSON answer when it has no photo: `{"error": "asleep" | "no_camera" | "busy" |
/// "<other>"}`. Read leniently by the PhotoWorker: any other shape is a gateway error.
public struct CameraErrorReply: Codable, Sendable, Equatable {
  public let error: String

  public init(error: String) { self.error = error }
}
