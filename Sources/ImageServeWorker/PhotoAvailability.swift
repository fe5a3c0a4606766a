/// Where a notification's photo stands, from its rows
/// (docs/interfaces.md#the-serving-process-imageserveworker): the one place that maps the tables to
/// "here it is", "not yet" (404, the phone asks again) and "never" (410, the phone stops).
enum PhotoAvailability: Equatable, Sendable {
  /// Stored and not expired.
  case ready
  /// Reserved, the camera not answered yet.
  case notReady
  /// The capture failed, or the photo expired or was pruned.
  case gone
  /// The alarm took no photo (routine kind, over budget, no camera asked).
  case none

  /// - Parameters:
  ///   - hasImage: the notification has an `image_id` (a photo was reserved).
  ///   - reservation: `photo_reservations.state`, nil without a row.
  ///   - stored: `notification_images.state`, nil without a row.
  ///   - fresh: the stored row's `expires_at` is still ahead.
  static func decide(hasImage: Bool, reservation: String?, stored: String?, fresh: Bool) -> Self {
    guard hasImage else { return .none }
    switch stored {
    case "captured": return fresh ? .ready : .gone
    case "failed": return .gone
    default:
      // No stored row: still waiting for the camera, or the row is gone (the failure marker
      // or the photo pruned, or the reservation itself removed by retention).
      return reservation == "pending" ? .notReady : .gone
    }
  }

  /// The status a fetch of the photo answers when it is not `ready`.
  var status: Int {
    switch self {
    case .ready: return 200
    case .notReady, .none: return 404
    case .gone: return 410
    }
  }
}
