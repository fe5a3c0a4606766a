import FoundationEssentials
import Glibc

/// The address a request came from, as 16 bytes (IPv4 as an IPv4-mapped IPv6 address):
/// a cheap, hashable key for per-client limits.
public struct ClientAddress: Sendable, Hashable, CustomStringConvertible {
  public let high: UInt64
  public let low: UInt64

  public static let unknown = ClientAddress(high: 0, low: 0)

  public init(high: UInt64, low: UInt64) {
    self.high = high
    self.low = low
  }

  /// From 16 bytes in network order.
  public init(bytes: some Collection<UInt8>) {
    precondition(bytes.count == 16)
    var high: UInt64 = 0
    var low: UInt64 = 0
    for (index, byte) in bytes.enumerated() {
      if index < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
    }
    self.init(high: high, low: low)
  }

  /// `203.0.113.7` or `2001:db8::1` (an IPv4-mapped IPv6 address is the IPv4 address);
  /// nil for anything else, a zone suffix (`fe80::1%eth0`) or a port included.
  public init?(parsing text: some StringProtocol) {
    var bytes = [UInt8](repeating: 0, count: 16)
    let text = String(text)
    if text.contains(":") {
      guard inet_pton(AF_INET6, text, &bytes) == 1 else { return nil }
    } else {
      bytes[10] = 0xff
      bytes[11] = 0xff
      let parsed = bytes.withUnsafeMutableBufferPointer {
        inet_pton(AF_INET, text, $0.baseAddress! + 12)
      }
      guard parsed == 1 else { return nil }
    }
    self.init(bytes: bytes)
  }

  public var isIPv4: Bool { high == 0 && low >> 32 == 0xffff }

  /// `203.0.113.7` or `2001:db8::1`, for logs.
  public var description: String {
    var bytes = [UInt8](repeating: 0, count: 16)
    for index in 0..<8 {
      bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
      bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
    }
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    let family = isIPv4 ? AF_INET : AF_INET6
    let source = isIPv4 ? Array(bytes[12...]) : bytes
    guard inet_ntop(family, source, &text, socklen_t(text.count)) != nil else { return "?" }
    let length = text.firstIndex(of: 0) ?? text.count
    return String(decoding: text[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
