import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A child process started with `posix_spawn` and reaped with `waitpid` on its own pid.
///
/// Why not Foundation's `Process`: on Linux it learns that a child ended from a SIGCHLD
/// source on a helper thread, and the chaos test caught `waitUntilExit` waiting forever on
/// a child that had already exited (a zombie nobody reaped). Waiting on the pid itself
/// cannot miss the exit.
public final class ChildProcess: @unchecked Sendable {
  public let pid: pid_t
  private let lock = NSLock()
  private var exitStatus: Int32?

  public struct SpawnFailed: Error, CustomStringConvertible {
    public let executable: String
    public let code: Int32
    public var description: String {
      "could not start \(executable): \(String(cString: strerror(code)))"
    }
  }

  /// Starts `executable` with standard input from /dev/null and standard output and error
  /// appended to `output` and `errors` (both to /dev/null when nil). No other descriptor of
  /// the test process is inherited, every signal is at its default and none is blocked.
  public init(
    executable: String, arguments: [String], environment: [String: String],
    output: String?, errors: String?
  ) throws {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    let flags = O_WRONLY | O_CREAT | O_APPEND
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", flags, 0o644)
    if let errors, errors != output {
      posix_spawn_file_actions_addopen(&actions, 2, errors, flags, 0o644)
    } else {
      posix_spawn_file_actions_adddup2(&actions, 1, 2)
    }
    Self.closeFrom(&actions, 3)

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // Dispatch's threads block signals; a child must not inherit that mask, or SIGTERM
    // would never reach it.
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var all = sigset_t()
    sigfillset(&all)
    sigdelset(&all, SIGKILL)
    sigdelset(&all, SIGSTOP)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(
      &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for item in argv { free(item) }
      for item in envp { free(item) }
    }
    var child: pid_t = 0
    let code = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
    guard code == 0 else { throw SpawnFailed(executable: executable, code: code) }
    pid = child
  }

  /// Whether the child still runs; reaps it when it has ended.
  public var isRunning: Bool {
    lock.withLock {
      if exitStatus != nil { return false }
      var status: Int32 = 0
      let result = waitpid(pid, &status, WNOHANG)
      if result == pid { exitStatus = Self.decode(status) }
      return exitStatus == nil && result == 0
    }
  }

  /// Blocks until the child ends; its exit status, or 128 + the signal that ended it.
  @discardableResult
  public func waitUntilExit() -> Int32 {
    while true {
      if let known = lock.withLock({ exitStatus }) { return known }
      var status: Int32 = 0
      let result = waitpid(pid, &status, 0)
      if result == pid {
        let decoded = Self.decode(status)
        lock.withLock { exitStatus = decoded }
        return decoded
      }
      if result == -1 && errno == EINTR { continue }
      // Another thread reaped it (ECHILD): its status lands in a moment.
      usleep(1000)
    }
  }

  /// Waits for the child to end without holding a thread of the cooperative pool.
  public func exitStatus() async -> Int32 {
    while isRunning { try? await Task.sleep(for: .milliseconds(10)) }
    return waitUntilExit()
  }

  /// Sends `signal` unless the child has already ended.
  public func send(_ signal: Int32) {
    if isRunning { Glibc.kill(pid, signal) }
  }

  /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's
  /// Glibc module does not export; looked up by name, skipped where it does not exist.
  private static func closeFrom(
    _ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32
  ) {
    typealias AddCloseFrom =
      @convention(c) (
        UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32
      ) -> Int32
    guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return }
    _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(actions, lowest)
  }

  private static func decode(_ status: Int32) -> Int32 {
    let signal = status & 0x7f
    return signal == 0 ? (status >> 8) & 0xff : 128 + signal
  }
}
