import FoundationEssentials
import Glibc

/// A `host:port` setting (`0.0.0.0:8080`, `[::1]:0`, `localhost:8080`) resolved to the
/// socket address libmicrohttpd binds.
struct ListenAddress {
  let storage: sockaddr_storage

  init(_ text: String) throws(HTTPServerError) {
    guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...])
    else { throw .badAddress(text) }
    var host = String(text[..<colon])
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    var storage = sockaddr_storage()
    var v4 = in_addr()
    var v6 = in6_addr()
    if inet_pton(AF_INET, host, &v4) == 1 {
      withUnsafeMutableBytes(of: &storage) { raw in
        let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
        address.pointee.sin_family = sa_family_t(AF_INET)
        address.pointee.sin_port = port.bigEndian
        address.pointee.sin_addr = v4
      }
    } else if inet_pton(AF_INET6, host, &v6) == 1 {
      withUnsafeMutableBytes(of: &storage) { raw in
        let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
        address.pointee.sin6_family = sa_family_t(AF_INET6)
        address.pointee.sin6_port = port.bigEndian
        address.pointee.sin6_addr = v6
      }
    } else {
      storage = try Self.resolve(host, port: port, text: text)
    }
    self.storage = storage
  }

  /// A host name (`localhost`): its first IPv4 address, else its first IPv6 address.
  private static func resolve(_ host: String, port: UInt16, text: String) throws(HTTPServerError)
    -> sockaddr_storage
  {
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, String(port), &hints, &list) == 0, let list else {
      throw .badAddress(text)
    }
    defer { freeaddrinfo(list) }
    var chosen: UnsafeMutablePointer<addrinfo>? = nil
    var cursor: UnsafeMutablePointer<addrinfo>? = list
    while let entry = cursor {
      if entry.pointee.ai_family == AF_INET {
        chosen = entry
        break
      }
      if chosen == nil, entry.pointee.ai_family == AF_INET6 { chosen = entry }
      cursor = entry.pointee.ai_next
    }
    guard let chosen, let address = chosen.pointee.ai_addr else { throw .badAddress(text) }
    var storage = sockaddr_storage()
    withUnsafeMutableBytes(of: &storage) { raw in
      raw.copyMemory(
        from: UnsafeRawBufferPointer(start: address, count: Int(chosen.pointee.ai_addrlen)))
    }
    return storage
  }
}
