import Events
import Foundation
import Infrastructure

/// Which behaviour a device token gets: from `--behaviour` flags, and from a JSON file
/// (token → spec) that is read again whenever it changes, so that the local stack and tests
/// can change the sandbox's mind while it runs. `*` stands for every token without an
/// entry of its own. A token's own entry wins over `*`; at each level the file wins over
/// the flags.
///
/// Owned by the event loop's thread, like everything it calls.
final class BehaviourTable {
  private let flags: [String: Behaviour]
  private let filePath: String?
  private let logger: Logger
  private var fromFile: [String: Behaviour] = [:]
  private var fileStamp: FileStamp?
  /// Requests that already got a counted (`xN`) behaviour, by token and spec. File entries
  /// start counting afresh whenever the file changes: writing the file arms them.
  private var uses: [UseKey: Int] = [:]

  private enum Source {
    case file
    case flag
  }

  private struct UseKey: Hashable {
    let source: Source
    let token: String
    let spec: String
  }

  init(flags: [String: Behaviour], filePath: String?, logger: Logger) throws(SandboxError) {
    self.flags = flags
    self.filePath = filePath
    self.logger = logger
    // A file that exists but does not parse is a mistake worth stopping for at start;
    // a missing one may be written later.
    if let filePath, let stamp = FileStamp(path: filePath) {
      fromFile = try Self.load(filePath)
      fileStamp = stamp
    }
  }

  /// The behaviour for this request, counting it against an `xN` limit; nil for normal.
  func take(for token: String) -> Behaviour? {
    reloadIfChanged()
    let key = token.lowercased()
    // The token's own entry before `*`; at each level the file before the flags.
    let found: (behaviour: Behaviour, source: Source)
    if let behaviour = fromFile[key] {
      found = (behaviour, .file)
    } else if let behaviour = flags[key] {
      found = (behaviour, .flag)
    } else if let behaviour = fromFile["*"] {
      found = (behaviour, .file)
    } else if let behaviour = flags["*"] {
      found = (behaviour, .flag)
    } else {
      return nil
    }
    guard let times = found.behaviour.times else { return found.behaviour }
    let useKey = UseKey(source: found.source, token: key, spec: found.behaviour.spec)
    let used = uses[useKey, default: 0]
    guard used < times else { return nil }
    uses[useKey] = used + 1
    return found.behaviour
  }

  private func reloadIfChanged() {
    guard let filePath else { return }
    let stamp = FileStamp(path: filePath)
    guard stamp != fileStamp else { return }
    fileStamp = stamp
    guard stamp != nil else {
      logger.info("behaviour file gone, no file behaviours", ["path": filePath])
      resetFileBehaviours([:])
      return
    }
    do {
      let loaded = try Self.load(filePath)
      resetFileBehaviours(loaded)
      logger.info("behaviour file read", ["path": filePath, "entries": loaded.count])
    } catch {
      // Keep the last good table: a half-written file must not flip answers at random.
      logger.warning("behaviour file ignored", ["error": error.description])
    }
  }

  private func resetFileBehaviours(_ behaviours: [String: Behaviour]) {
    fromFile = behaviours
    uses = uses.filter { $0.key.source != .file }
  }

  static func load(_ path: String) throws(SandboxError) -> [String: Behaviour] {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw SandboxError(.unreadableFile(path: path))
    }
    guard let object = try? WireCoding.decode([String: JSONValue].self, from: Array(data)) else {
      throw SandboxError(.badBehaviourFile(path: path), detail: "not a JSON object")
    }
    var table: [String: Behaviour] = [:]
    for (token, value) in object {
      guard case .string(let spec) = value else {
        throw SandboxError(
          .badBehaviourFile(path: path), detail: "the value for \(token) is not a string")
      }
      let key: String
      do throws(InvalidToken) {
        key = try validToken(token)
      } catch {
        throw SandboxError(.badBehaviourFile(path: path), detail: error.description)
      }
      do throws(Behaviour.Invalid) {
        table[key] = try Behaviour(parsing: spec)
      } catch {
        throw SandboxError(.badBehaviourFile(path: path), detail: error.description)
      }
    }
    return table
  }

  struct InvalidToken: Error, CustomStringConvertible {
    let token: String
    var description: String { "a behaviour's token must be 64 hex digits or *, got \"\(token)\"" }
  }

  /// 64 hex digits (lowercased) or `*`.
  static func validToken(_ token: String) throws(InvalidToken) -> String {
    guard token == "*" || DeviceToken.isValid(token) else { throw InvalidToken(token: token) }
    return token.lowercased()
  }
}

/// Enough of `stat` to notice a rewritten file: a rename gives a new inode, an edit in place
/// a new mtime (nanoseconds) or size.
private struct FileStamp: Equatable {
  let inode: UInt64
  let size: Int64
  let seconds: Int
  let nanoseconds: Int

  init?(path: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    inode = UInt64(info.st_ino)
    size = Int64(info.st_size)
    seconds = Int(info.st_mtim.tv_sec)
    nanoseconds = Int(info.st_mtim.tv_nsec)
  }
}

/// An APNs device token as the path carries it: 64 hex digits.
enum DeviceToken {
  static func isValid(_ text: some StringProtocol) -> Bool {
    text.utf8.count == 64 && text.utf8.allSatisfy { Hex.isDigitASCII($0) }
  }
}

extension Hex {
  static func isDigitASCII(_ c: UInt8) -> Bool {
    (48...57).contains(c) || (97...102).contains(c) || (65...70).contains(c)
  }
}
