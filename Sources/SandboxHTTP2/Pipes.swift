import Foundation
import Infrastructure
import Synchronization

/// A non-blocking pipe whose write end wakes the loop's poll(2) from another thread. Closed
/// when the last holder lets go, so a late writer never writes to a descriptor closed and
/// reused.
final class WakePipe: Sendable {
  let readEnd: Int32
  let writeEnd: Int32

  init() throws(HTTP2ServerError) {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else {
      throw HTTP2ServerError(
        .cannotListen(address: "wake pipe"), detail: HTTP2ServerError.systemError("pipe"))
    }
    readEnd = ends[0]
    writeEnd = ends[1]
    for end in ends {
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
    }
  }

  func wake() {
    var byte: UInt8 = 1
    _ = write(writeEnd, &byte, 1)
  }

  /// Empties the pipe, so that poll(2) waits again.
  func drain() {
    var bytes = [UInt8](repeating: 0, count: 256)
    while read(readEnd, &bytes, bytes.count) > 0 {}
  }

  deinit {
    close(readEnd)
    close(writeEnd)
  }
}

/// The answers tasks have worked out (`HTTP2Reply.Action.later`), on their way back to the
/// loop's thread: a task posts one and wakes the loop, which takes them all. Tasks keep it
/// alive, so one finishing after the loop has stopped still writes to an open pipe.
final class Completions: Sendable {
  struct Done: Sendable {
    let connection: Int
    let stream: Int32
    let response: HTTPResponse
  }

  private let pipe: WakePipe
  private let waiting = Mutex<[Done]>([])

  init() throws(HTTP2ServerError) { pipe = try WakePipe() }

  var readEnd: Int32 { pipe.readEnd }

  func post(connection: Int, stream: Int32, response: HTTPResponse) {
    waiting.withLock {
      $0.append(Done(connection: connection, stream: stream, response: response))
    }
    pipe.wake()
  }

  func take() -> [Done] {
    pipe.drain()
    return waiting.withLock { done in
      defer { done.removeAll() }
      return done
    }
  }
}
