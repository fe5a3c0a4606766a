import CLibPQ
import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// One libpq connection. libpq blocks, so every call runs on this connection's own serial
/// queue and the awaiting task is resumed from there: the cooperative pool never blocks.
/// A whole unit of work (`perform`, used by `DatabasePool.withTransaction`) runs on that
/// queue in one hop, so a transaction of five statements costs one thread hand-off, not ten
/// (ADR 0002).
public final class PostgresConnection: @unchecked Sendable {
  // `handle` is only read or written on `queue`; that is what makes the class Sendable.
  private var handle: OpaquePointer?
  /// Statement texts prepared on this connection and their names; only touched on `queue`.
  private var prepared: [String: String] = [:]
  private let queue: DispatchQueue
  private let broken = Mutex(false)

  private init(handle: OpaquePointer, label: String) {
    self.handle = handle
    self.queue = DispatchQueue(label: label)
  }

  deinit {
    if let handle { PQfinish(handle) }
  }

  /// Opens a connection with the session settings every component relies on: UTC output,
  /// a bound on idle transactions so that a stalled worker cannot stall every reader, and
  /// each prepared statement planned once (ADR 0047): our statements take their rows as
  /// arrays, whose values PostgreSQL's default would plan anew at every execution, which
  /// cost 13% of its statement time under load for no better plan.
  public static func connect(url: String, applicationName: String) async throws(DatabaseError)
    -> PostgresConnection
  {
    let result: Result<PostgresConnection, DatabaseError> = await withCheckedContinuation {
      continuation in
      DispatchQueue.global().async {
        continuation.resume(returning: openBlocking(url: url, applicationName: applicationName))
      }
    }
    let connection = try result.get()
    try await connection.execute(
      """
      SET TimeZone = 'UTC';
      SET idle_in_transaction_session_timeout = '60s';
      SET client_min_messages = 'warning';
      SET plan_cache_mode = 'force_generic_plan';
      """)
    return connection
  }

  private static func openBlocking(url: String, applicationName: String) -> Result<
    PostgresConnection, DatabaseError
  > {
    // The component's name unless the URL gives one (`?application_name=...`): an operator
    // can tell replicas apart in pg_stat_activity, and a test can cut only its own.
    let keywords = ["dbname", "connect_timeout", "fallback_application_name"]
    let values = [url, "5", applicationName]
    let handle: OpaquePointer? = withCStrings(keywords) { keywordPointers in
      withCStrings(values) { valuePointers in
        PQconnectdbParams(keywordPointers, valuePointers, 1)
      }
    }
    guard let handle else { return .failure(.connectionFailed("out of memory")) }
    guard PQstatus(handle) == CONNECTION_OK else {
      let message = String(cString: PQerrorMessage(handle))
        .trimmingWhitespace()
      PQfinish(handle)
      return .failure(.connectionFailed(message))
    }
    return .success(PostgresConnection(handle: handle, label: "postgres.\(applicationName)"))
  }

  /// True once the connection has failed; the pool then drops it instead of reusing it.
  public var isBroken: Bool { broken.withLock { $0 } }

  /// Runs one statement with bound parameters and returns its rows.
  @discardableResult
  public func query(_ sql: SQL) async throws(DatabaseError) -> [Row] {
    let result: Result<[Row], DatabaseError> = await withCheckedContinuation { continuation in
      queue.async {
        continuation.resume(returning: self.runBlocking(sql))
      }
    }
    return try result.get()
  }

  /// Runs one statement and returns the first column of its first row as raw bytes (nil
  /// for no row or NULL). The result comes in PostgreSQL's binary format: a `bytea` of half
  /// a megabyte arrives as itself, not as a megabyte of hex text to copy and decode.
  public func firstBytes(_ sql: SQL) async throws(DatabaseError) -> [UInt8]? {
    let result: Result<[UInt8]?, DatabaseError> = await withCheckedContinuation { continuation in
      queue.async {
        continuation.resume(
          returning: self.runBlocking(sql, binaryResults: true) { result in
            guard let result, PQntuples(result) > 0, PQnfields(result) > 0,
              PQgetisnull(result, 0, 0) == 0
            else { return nil }
            let length = Int(PQgetlength(result, 0, 0))
            guard length > 0, let value = PQgetvalue(result, 0, 0) else { return [] }
            return value.withMemoryRebound(to: UInt8.self, capacity: length) {
              Array(UnsafeBufferPointer(start: $0, count: length))
            }
          })
      }
    }
    return try result.get()
  }

  /// Runs statements without parameters (several may be separated by semicolons).
  public func execute(_ statements: String) async throws(DatabaseError) {
    let result: Result<Void, DatabaseError> = await withCheckedContinuation { continuation in
      queue.async {
        continuation.resume(returning: self.executeBlocking(statements))
      }
    }
    try result.get()
  }

  /// Runs `body` on this connection's queue; its statements run there without further hops.
  public func perform<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T)
    async throws -> T
  {
    let result: Result<T, any Error> = await withCheckedContinuation { continuation in
      queue.async {
        continuation.resume(returning: Result { try body(Transaction(connection: self)) })
      }
    }
    return try result.get()
  }

  /// Runs one statement; only on this connection's queue (inside `perform`).
  func queryOnQueue(_ sql: SQL) throws(DatabaseError) -> [Row] {
    try runBlocking(sql).get()
  }

  /// Runs statements without parameters; only on this connection's queue.
  func executeOnQueue(_ statements: String) throws(DatabaseError) {
    try executeBlocking(statements).get()
  }

  /// The server's process id, so tests can terminate this very session.
  public func backendPID() async throws(DatabaseError) -> Int {
    try await query("SELECT pg_backend_pid() AS pid")[0].int("pid")
  }

  private func executeBlocking(_ statements: String) -> Result<Void, DatabaseError> {
    guard let handle else { return .failure(.connectionFailed("connection closed")) }
    let result = PQexec(handle, statements)
    defer { PQclear(result) }
    return check(result, statement: statements).map { _ in () }
  }

  private func runBlocking(_ sql: SQL) -> Result<[Row], DatabaseError> {
    runBlocking(sql, binaryResults: false) { Self.rows(of: $0) }
  }

  /// Runs one statement and hands its result to `read` before the result is freed.
  private func runBlocking<T>(
    _ sql: SQL, binaryResults: Bool, read: (OpaquePointer?) -> T
  ) -> Result<T, DatabaseError> {
    guard let handle else { return .failure(.connectionFailed("connection closed")) }
    let count = sql.binds.count
    var pointers = [UnsafeMutablePointer<CChar>?](repeating: nil, count: count)
    var lengths = [Int32](repeating: 0, count: count)
    var formats = [Int32](repeating: 0, count: count)
    defer { for pointer in pointers { pointer?.deallocate() } }
    for (index, bind) in sql.binds.enumerated() {
      switch bind {
      case .null:
        break
      case .text(let text):
        let utf8 = Array(text.utf8CString)
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
        buffer.initialize(from: utf8, count: utf8.count)
        pointers[index] = buffer
      case .binary(let bytes):
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(bytes.count, 1))
        bytes.withUnsafeBufferPointer { source in
          source.withMemoryRebound(to: CChar.self) { chars in
            if let base = chars.baseAddress { buffer.initialize(from: base, count: bytes.count) }
          }
        }
        pointers[index] = buffer
        lengths[index] = Int32(bytes.count)
        formats[index] = 1
      }
    }
    let name: String?
    switch prepare(sql, count: count, handle: handle) {
    case .success(let prepared): name = prepared
    case .failure(let error): return .failure(error)
    }
    let result: OpaquePointer? = pointers.withUnsafeBufferPointer { values in
      values.withMemoryRebound(to: UnsafePointer<CChar>?.self) { constValues in
        if let name {
          return PQexecPrepared(
            handle, name, Int32(count), constValues.baseAddress, lengths, formats,
            binaryResults ? 1 : 0)
        }
        return PQexecParams(
          handle, sql.text, Int32(count), nil, constValues.baseAddress, lengths, formats,
          binaryResults ? 1 : 0)
      }
    }
    defer { PQclear(result) }
    let checked = check(result, statement: sql.text)
    if name != nil, case .failure(let error) = checked, error.isStalePreparedStatement {
      broken.withLock { $0 = true }  // dropped on release; the retry prepares anew
    }
    return checked.map(read)
  }

  /// Statements prepared per connection at most; any further run unprepared, as before.
  static let maxPreparedStatements = 200

  /// The name under which `sql`'s text is prepared on this connection, preparing it on
  /// first use: PostgreSQL then parses and analyses each statement once per connection
  /// instead of at every execution (ADR 0002). Nil when the cache is full. A statement
  /// that cannot be prepared fails with the server's error, as it would have run.
  private func prepare(_ sql: SQL, count: Int, handle: OpaquePointer) -> Result<
    String?, DatabaseError
  > {
    if let name = prepared[sql.text] { return .success(name) }
    guard prepared.count < Self.maxPreparedStatements else { return .success(nil) }
    let name = "mowdeck_\(prepared.count)"
    let result = PQprepare(handle, name, sql.text, Int32(count), nil)
    defer { PQclear(result) }
    return check(result, statement: sql.text).map { _ in
      prepared[sql.text] = name
      return name
    }
  }

  private func check(_ result: OpaquePointer?, statement: String) -> Result<
    OpaquePointer?, DatabaseError
  > {
    let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
    if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK { return .success(result) }
    guard let handle, PQstatus(handle) == CONNECTION_OK else {
      broken.withLock { $0 = true }
      let message = handle.map { String(cString: PQerrorMessage($0)) } ?? "connection closed"
      return .failure(.connectionFailed(message.trimmingWhitespace()))
    }
    let state =
      result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }
      .map { String(cString: $0) } ?? "XX000"
    let message =
      result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "M"))) }
      .map { String(cString: $0) } ?? String(cString: PQerrorMessage(handle))
    let constraint =
      result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "n"))) }
      .map { String(cString: $0) }
    let failure = DatabaseError.statementFailed(
      sqlState: state, message: Self.withoutValues(message, sqlState: state),
      statement: statement, constraint: constraint)
    if failure.isConnectionProblem { broken.withLock { $0 = true } }
    return .failure(failure)
  }

  /// Data errors (class 22) quote the offending input, which may be a bound value: keep
  /// the server's words, drop the quote.
  static func withoutValues(_ message: String, sqlState: String) -> String {
    guard sqlState.hasPrefix("22"), let quote = message.firstRange(of: ": \"") else {
      return message
    }
    return String(message[..<quote.lowerBound]) + ": (value withheld)"
  }

  private static func rows(of result: OpaquePointer?) -> [Row] {
    guard let result else { return [] }
    let rowCount = PQntuples(result)
    let columnCount = PQnfields(result)
    let names = (0..<columnCount).map { String(cString: PQfname(result, $0)) }
    var rows = [Row]()
    rows.reserveCapacity(Int(rowCount))
    for row in 0..<rowCount {
      var values = [String?]()
      values.reserveCapacity(Int(columnCount))
      for column in 0..<columnCount {
        if PQgetisnull(result, row, column) == 1 {
          values.append(nil)
        } else {
          values.append(String(cString: PQgetvalue(result, row, column)))
        }
      }
      rows.append(Row(columns: names, values: values))
    }
    return rows
  }

  /// For a connection that sat idle in the pool: false when the server has closed it
  /// meanwhile (a restart, `pg_terminate_backend`, an idle timeout). We never LISTEN, so an
  /// idle connection has nothing to read: anything readable is the server's goodbye (a
  /// FATAL message) or the end of the stream. No round trip: a poll with no wait.
  func isAliveAfterIdling() -> Bool {
    queue.sync {
      guard let handle, PQstatus(handle) == CONNECTION_OK else { return false }
      var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
      let alive = poll(&descriptor, 1, 0) == 0
      if !alive { broken.withLock { $0 = true } }
      return alive
    }
  }

  /// Closes the connection; later calls fail with `connectionFailed`.
  public func close() {
    queue.sync {
      if let handle { PQfinish(handle) }
      handle = nil
    }
    broken.withLock { $0 = true }
  }
}

private func withCStrings<R>(
  _ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R
) -> R {
  let buffers = strings.map { strdup($0) }
  defer { for item in buffers { free(item) } }
  var pointers: [UnsafePointer<CChar>?] = buffers.map { UnsafePointer($0) }
  pointers.append(nil)
  return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
