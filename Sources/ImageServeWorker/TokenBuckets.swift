/// Token buckets by key: each key may take `limit` requests per `period`, refilled
/// smoothly, so a burst of `limit` is allowed and then one request every `period / limit`.
/// Not thread-safe by itself; `ServeLimits` guards it. Plain Swift (no imports), tested
/// with made-up times.
///
/// A key whose bucket is full again is forgotten, so memory follows the keys active in the
/// last period; `capacity` bounds it regardless.
struct TokenBuckets<Key: Hashable> {
  let limit: Double
  /// Tokens per second.
  let rate: Double
  /// Most keys tracked at once.
  let capacity: Int

  private struct Bucket {
    var tokens: Double
    var updated: Double
  }
  private var buckets: [Key: Bucket] = [:]
  private var lastSweep = 0.0

  init(limit: Int, periodSeconds: Double = 60, capacity: Int = 100_000) {
    self.limit = Double(limit)
    self.rate = Double(limit) / periodSeconds
    self.capacity = capacity
  }

  /// Seconds until `key` may take a request; 0 when it may now. Takes nothing.
  mutating func wait(_ key: Key, now: Double) -> Double {
    let tokens = available(key, now: now)
    return tokens >= 1 ? 0 : (1 - tokens) / rate
  }

  /// Takes one token for `key` (call after `wait` returned 0). False when the table is
  /// full of keys that are all still refilling: the caller refuses the request.
  @discardableResult
  mutating func take(_ key: Key, now: Double) -> Bool {
    if buckets[key] == nil, buckets.count >= capacity {
      sweep(now: now)
      guard buckets.count < capacity else { return false }
    }
    buckets[key] = Bucket(tokens: available(key, now: now) - 1, updated: now)
    if now - lastSweep > 60 { sweep(now: now) }
    return true
  }

  var trackedKeys: Int { buckets.count }

  private func available(_ key: Key, now: Double) -> Double {
    guard let bucket = buckets[key] else { return limit }
    return min(limit, bucket.tokens + max(0, now - bucket.updated) * rate)
  }

  /// Forgets every key whose bucket has refilled.
  private mutating func sweep(now: Double) {
    lastSweep = now
    buckets = buckets.filter { _, bucket in
      bucket.tokens + max(0, now - bucket.updated) * rate < limit
    }
  }
}
