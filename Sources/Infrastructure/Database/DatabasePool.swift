/// A small pool of PostgreSQL connections. Broken connections are dropped on release (or,
/// when the server closed them while idle, on the next acquire) and replaced on demand, so a database that restarts costs failed units of work, which the
/// caller retries, never a stuck pool.
public actor DatabasePool {
  private let url: String
  private let applicationName: String
  private let maxConnections: Int
  private var idle: [PostgresConnection] = []
  private var openCount = 0
  private var waiters: [CheckedContinuation<Void, Never>] = []
  private var closed = false

  public init(url: String, applicationName: String, maxConnections: Int = 4) {
    self.url = url
    self.applicationName = applicationName
    self.maxConnections = max(1, maxConnections)
  }

  private func acquire() async throws(DatabaseError) -> PostgresConnection {
    while true {
      if closed { throw .poolClosed }
      if let connection = idle.popLast() {
        // After a database restart, idle connections are dead: replace them here rather
        // than fail the next unit of work (a 503 to a phone, a retried decision).
        if connection.isAliveAfterIdling() { return connection }
        connection.close()
        openCount -= 1
        continue
      }
      if openCount < maxConnections {
        openCount += 1
        do {
          return try await PostgresConnection.connect(url: url, applicationName: applicationName)
        } catch {
          openCount -= 1
          wakeOne()
          throw error
        }
      }
      await withCheckedContinuation { waiters.append($0) }
    }
  }

  private func release(_ connection: PostgresConnection) {
    if connection.isBroken || closed {
      connection.close()
      openCount -= 1
    } else {
      idle.append(connection)
    }
    wakeOne()
  }

  private func wakeOne() {
    if !waiters.isEmpty { waiters.removeFirst().resume() }
  }

  /// Closes idle connections and refuses new work; connections in use close on release.
  public func close() {
    closed = true
    for item in idle { item.close() }
    openCount -= idle.count
    idle.removeAll()
    for item in waiters { item.resume() }
    waiters.removeAll()
  }

  /// Lends a connection for `body`, outside any transaction.
  public nonisolated func withConnection<T: Sendable>(
    _ body: (PostgresConnection) async throws -> T
  ) async throws -> T {
    let connection = try await acquire()
    do {
      let value = try await body(connection)
      await release(connection)
      return value
    } catch {
      await release(connection)
      throw error
    }
  }

  /// Runs `body` in one transaction on the connection's own thread: committed when it
  /// returns, rolled back when it throws. `body` is synchronous on purpose: a transaction
  /// never waits for anything but its own statements (no camera, no APNs inside).
  ///
  /// With `lockTimeout`, a statement of the transaction that waits longer than that for a
  /// lock fails (SQLSTATE 55P03, an outage to retry) instead of waiting for as long as the
  /// holder keeps it; it is set with the BEGIN, in the same round trip.
  public nonisolated func withTransaction<T: Sendable>(
    lockTimeout: Duration? = nil, _ body: @escaping @Sendable (Transaction) throws -> T
  ) async throws -> T {
    let begin =
      lockTimeout.map {
        "BEGIN; SET LOCAL lock_timeout = '\(max(1, Int(($0.seconds * 1000).rounded())))ms'"
      } ?? "BEGIN"
    return try await withConnection { connection in
      try await connection.perform { tx in
        try tx.connection.executeOnQueue(begin)
        do {
          let value = try body(tx)
          try tx.connection.executeOnQueue("COMMIT")
          return value
        } catch {
          if !tx.connection.isBroken { try? tx.connection.executeOnQueue("ROLLBACK") }
          throw error
        }
      }
    }
  }

  /// The first column of the first row of one statement, as raw bytes (a `bytea`).
  public nonisolated func firstBytes(_ sql: SQL) async throws -> [UInt8]? {
    try await withConnection { try await $0.firstBytes(sql) }
  }

  /// Runs one statement on a pooled connection.
  @discardableResult
  public nonisolated func query(_ sql: SQL) async throws -> [Row] {
    try await withConnection { try await $0.query(sql) }
  }
}

/// The connection inside `withTransaction` (or `perform`), on its own thread: statements
/// run synchronously. Valid only inside that closure.
public struct Transaction: Sendable {
  let connection: PostgresConnection

  @discardableResult
  public func query(_ sql: SQL) throws(DatabaseError) -> [Row] {
    try connection.queryOnQueue(sql)
  }

  /// Statements without parameters, several separated by semicolons (migrations).
  public func execute(_ statements: String) throws(DatabaseError) {
    try connection.executeOnQueue(statements)
  }
}
