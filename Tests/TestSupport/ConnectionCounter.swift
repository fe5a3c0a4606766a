import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A TCP listener on 127.0.0.1 that only counts the connections made to it, closing each at
/// once: the address a redirect names, in the tests that no push follows one. Counting at
/// the TCP level catches any follow, whatever its method, scheme or TLS.
public final class ConnectionCounter: Sendable {
  public let port: Int
  private let socket: Int32
  private let accepted = Mutex(0)
  private let ended = DispatchSemaphore(value: 0)

  public struct CannotListen: Error, CustomStringConvertible {
    public let step: String
    public var description: String { "cannot listen on 127.0.0.1: \(step) failed" }
  }

  public init() throws {
    let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw CannotListen(step: "socket") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard bound else {
      close(fd)
      throw CannotListen(step: "bind, listen or getsockname")
    }
    socket = fd
    port = Int(UInt16(bigEndian: address.sin_port))
    // accept(2) blocks: its own thread, never the cooperative pool. `stop` ends it by
    // shutting the socket down, which makes a waiting accept fail; until then the loop
    // holds the counter.
    DispatchQueue(label: "connection-counter").async { self.acceptUntilStopped() }
  }

  private func acceptUntilStopped() {
    while true {
      let connection = accept(socket, nil, nil)
      if connection < 0 && errno == EINTR { continue }
      guard connection >= 0 else { break }
      accepted.withLock { $0 += 1 }
      close(connection)
    }
    ended.signal()
  }

  /// Connections accepted so far.
  public var connections: Int { accepted.withLock { $0 } }

  /// Stops listening; the count stays readable.
  public func stop() {
    shutdown(socket, Int32(SHUT_RDWR))
    ended.wait()
    close(socket)
  }
}
