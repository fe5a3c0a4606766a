import FoundationEssentials

/// The query of `GET /api/v1/notifications/inbox`: `limit` (1 to 100, default 50) and
/// `before` (the `item_id` of the last item of the previous page), each at most once,
/// nothing else, nothing percent-encoded. Plain Swift, fuzzed with the push-URL parser.
struct InboxQuery: Equatable {
  static let defaultLimit = 50
  static let maxLimit = 100

  var limit = defaultLimit
  var before: UUID?

  /// Nil for a query that is not exactly that (the route answers 400).
  init?(_ query: Substring?) {
    guard let query, !query.isEmpty else { return }
    guard query.utf8.count <= 128 else { return nil }
    var seenLimit = false
    for pair in query.split(separator: "&", omittingEmptySubsequences: false) {
      guard let equals = pair.firstIndex(of: "=") else { return nil }
      let value = pair[pair.index(after: equals)...]
      switch pair[..<equals] {
      case "limit":
        guard !seenLimit, value.utf8.count <= 3, value.utf8.allSatisfy({ (48...57).contains($0) }),
          let limit = Int(value), (1...Self.maxLimit).contains(limit)
        else { return nil }
        seenLimit = true
        self.limit = limit
      case "before":
        guard before == nil, CanonicalUUID.isCanonical(value),
          let id = UUID(uuidString: String(value))
        else { return nil }
        before = id
      default:
        return nil
      }
    }
  }

  init(limit: Int = defaultLimit, before: UUID? = nil) {
    self.limit = limit
    self.before = before
  }
}
