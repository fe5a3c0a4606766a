import Foundation

/// The listening TCP socket: non-blocking, IPv4, on the address of `--listen`.
final class Listener {
  let descriptor: Int32
  /// The port actually bound (the kernel's choice for port 0).
  let port: UInt16

  init(host: String, port requested: UInt16) throws(HTTP2ServerError) {
    let address = "\(host):\(requested)"
    var ipv4 = in_addr()
    let numericHost = host == "localhost" ? "127.0.0.1" : host
    guard inet_pton(AF_INET, numericHost, &ipv4) == 1 else {
      throw HTTP2ServerError(.cannotListen(address: address), detail: "not an IPv4 address")
    }
    let socketType =
      Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
      | Int32(SOCK_CLOEXEC.rawValue)
    let descriptor = socket(AF_INET, socketType, 0)
    guard descriptor >= 0 else {
      throw HTTP2ServerError(
        .cannotListen(address: address), detail: HTTP2ServerError.systemError("socket"))
    }
    var yes: Int32 = 1
    setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var bind = sockaddr_in()
    bind.sin_family = sa_family_t(AF_INET)
    bind.sin_port = requested.bigEndian
    bind.sin_addr = ipv4
    let bound = withUnsafePointer(to: &bind) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Foundation.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(descriptor, 512) == 0 else {
      let detail = HTTP2ServerError.systemError("bind/listen")
      close(descriptor)
      throw HTTP2ServerError(.cannotListen(address: address), detail: detail)
    }
    var actual = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &actual) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(descriptor, $0, &length)
      }
    }
    self.descriptor = descriptor
    port = UInt16(bigEndian: actual.sin_port)
  }

  deinit { close(descriptor) }

  /// The next waiting connection, non-blocking and without Nagle's delay (answers are
  /// small and a test measures their latency); nil when none is waiting.
  func accept() -> Int32? {
    while true {
      let client = Foundation.accept(descriptor, nil, nil)
      if client >= 0 {
        _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        var yes: Int32 = 1
        setsockopt(
          client, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        return client
      }
      // ECONNABORTED and friends concern one client that already left; try the next one.
      if errno == EINTR || errno == ECONNABORTED || errno == EPROTO { continue }
      return nil
    }
  }
}
