import Events
import FoundationEssentials
import Infrastructure

/// The web inbox API for a signed-in user
/// (docs/interfaces.md#the-serving-process-imageserveworker): the list of their items and the photo
/// of one of their own items. Another user's item answers 404, exactly as one that does not exist.
struct InboxRoutes: Sendable {
  static let listPattern = "/api/v1/notifications/inbox"
  static let imagePattern = "/api/v1/notifications/inbox/{item}/image"

  let auth: SessionAuth
  let inbox: InboxStore
  let responder: PhotoResponder
  let logger: Logger

  func register(in router: inout HTTPRouter) {
    router.get(Self.listPattern) { request in .later { await list(request) } }
    router.get(Self.imagePattern) { request in .later { await image(request) } }
  }

  private func list(_ request: HTTPRequest) async -> HTTPResponse {
    await databaseWork(Self.listPattern, logger: logger) {
      guard let user = try await auth.user(of: request) else { return SessionAuth.unauthorized }
      guard let query = InboxQuery(request.query) else { return .plain(400) }
      let page = try await inbox.page(userID: user, query: query)
      return .json(200, InboxAnswer(page: page.items, more: page.more))
        .adding("Cache-Control", "private, no-store")
    }
  }

  private func image(_ request: HTTPRequest) async -> HTTPResponse {
    await databaseWork(Self.imagePattern, logger: logger) {
      guard let user = try await auth.user(of: request) else { return SessionAuth.unauthorized }
      // Only ids as the inbox hands them out; anything else cannot be an item.
      guard request.query == nil, let text = request.parameters.first,
        CanonicalUUID.isCanonical(text), let item = UUID(uuidString: String(text))
      else { return .plain(404) }
      let store = responder.store
      return await responder.respond(route: "inbox") {
        try await store.record(itemID: item, userID: user)
      }
    }
  }
}
