import COpenSSL
import Foundation

/// Why the server could not start, naming the file, address or call.
public struct HTTP2ServerError: Error, CustomStringConvertible {
  public enum Code: Sendable, Equatable {
    case badCertificate(path: String)
    case badPrivateKey(path: String)
    case cannotListen(address: String)
    case tls
    case http2
  }

  public let code: Code
  /// What the system, OpenSSL or nghttp2 said.
  public let detail: String

  public init(_ code: Code, detail: String = "") {
    self.code = code
    self.detail = detail
  }

  public var description: String {
    let what: String
    switch code {
    case .badCertificate(let path): what = "not a usable PEM certificate chain: \(path)"
    case .badPrivateKey(let path): what = "not a usable PEM private key: \(path)"
    case .cannotListen(let address): what = "cannot listen on \(address)"
    case .tls: what = "TLS setup failed"
    case .http2: what = "HTTP/2 setup failed"
    }
    return detail.isEmpty ? what : "\(what): \(detail)"
  }

  /// The text of `errno`, for failed system calls.
  public static func systemError(_ call: String) -> String {
    "\(call): \(String(cString: strerror(errno)))"
  }

  /// Drains OpenSSL's thread-local error queue into one line, so a later failure does not
  /// report an earlier one's cause.
  public static func openSSLErrors() -> String {
    var messages: [String] = []
    while case let code = ERR_get_error(), code != 0 {
      var buffer = [CChar](repeating: 0, count: 256)
      ERR_error_string_n(code, &buffer, buffer.count)
      messages.append(
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return messages.joined(separator: "; ")
  }
}
