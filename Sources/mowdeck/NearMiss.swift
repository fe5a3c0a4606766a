/// The known word a misspelt one most likely meant: `--enviroment` → `--environment`.
enum NearMiss {
  /// Further than this, a suggestion is more confusing than helpful.
  static let maximumDistance = 2

  /// The closest of `candidates` within `maximumDistance` edits, the first of equals; nil when
  /// none is that close.
  static func closest(to word: String, among candidates: [String]) -> String? {
    let scored = candidates.map { (candidate: $0, distance: distance(word, $0)) }
    guard let best = scored.min(by: { $0.distance < $1.distance }),
      best.distance <= maximumDistance
    else { return nil }
    return best.candidate
  }

  /// Levenshtein distance: insertions, deletions and substitutions of one character.
  static func distance(_ left: String, _ right: String) -> Int {
    let (a, b) = (Array(left), Array(right))
    var previous = Array(0...b.count)
    for i in a.indices {
      var current = [i + 1] + Array(repeating: 0, count: b.count)
      for j in b.indices {
        let substitution = previous[j] + (a[i] == b[j] ? 0 : 1)
        current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, substitution)
      }
      previous = current
    }
    return previous[b.count]
  }
}
