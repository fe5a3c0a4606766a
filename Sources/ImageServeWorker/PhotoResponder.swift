import Events
import FoundationEssentials
import Infrastructure

/// Answers a photo fetch, from the push URL or the inbox, once the route knows which
/// notification it is for: 200 with the JPEG, 404 "not yet", 410 "never", or 503 while
/// PostgreSQL cannot be reached (or, from the server's work deadline, does not answer).
struct PhotoResponder: Sendable {
  let store: PhotoStore
  let cache: PhotoCache
  let served: ServedLog
  let metrics: Metrics
  let logger: Logger

  /// `load` reads the record (nil: no such notification, or not this user's).
  func respond(route: String, load: () async throws -> PhotoRecord?) async
    -> HTTPResponse
  {
    do {
      return try await answer(route: route, load: load)
    } catch {
      logger.warning("photo fetch failed", ["route": route, "error": String(describing: error)])
      return .plain(503)
    }
  }

  private func answer(route: String, load: () async throws -> PhotoRecord?)
    async throws -> HTTPResponse
  {
    guard let record = try await load() else { return .plain(404) }
    guard record.availability == .ready, let imageID = record.imageID else {
      if let imageID = record.imageID, record.availability == .gone { cache.forget(imageID) }
      return .plain(record.availability.status)
    }
    let jpeg: [UInt8]
    if let cached = cache.jpeg(imageID) {
      jpeg = cached
    } else {
      // Pruned between the two reads: as gone as if the first had seen it.
      guard let stored = try await store.jpeg(imageID: imageID) else { return .plain(410) }
      cache.store(imageID, stored)
      jpeg = stored
    }
    if !record.served {
      do {
        try await served.recordFirst(record, route: route, bytes: jpeg.count)
      } catch {
        // The phone still gets its photo; a later fetch writes the event.
        logger.warning("writing image.served failed", ["error": String(describing: error)])
      }
    }
    metrics.increment("mowdeck_images_served_total", labels: ["route": route])
    return HTTPResponse(
      status: 200,
      headers: [
        ("Content-Type", "image/jpeg"), ("Cache-Control", "private, no-store"),
        ("X-Content-Type-Options", "nosniff"),
      ],
      body: jpeg)
  }
}
