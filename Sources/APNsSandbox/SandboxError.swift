import COpenSSL
import Foundation

/// Why the sandbox could not start or keep serving, naming the file, address or call.
struct SandboxError: Error, CustomStringConvertible {
  enum Code: Sendable, Equatable {
    case unreadableFile(path: String)
    case badCertificate(path: String)
    case badPrivateKey(path: String)
    case badPublicKey(path: String)
    case badBehaviourFile(path: String)
    case cannotListen(address: String)
    case tls
    case http2
  }

  let code: Code
  /// What the system, OpenSSL or nghttp2 said.
  let detail: String

  init(_ code: Code, detail: String = "") {
    self.code = code
    self.detail = detail
  }

  var description: String {
    let what: String
    switch code {
    case .unreadableFile(let path): what = "cannot read \(path)"
    case .badCertificate(let path): what = "not a usable PEM certificate chain: \(path)"
    case .badPrivateKey(let path): what = "not a usable PEM private key: \(path)"
    case .badPublicKey(let path): what = "not a P-256 public key in PEM: \(path)"
    case .badBehaviourFile(let path): what = "bad behaviour file \(path)"
    case .cannotListen(let address): what = "cannot listen on \(address)"
    case .tls: what = "TLS setup failed"
    case .http2: what = "HTTP/2 setup failed"
    }
    return detail.isEmpty ? what : "\(what): \(detail)"
  }

  /// The text of `errno`, for failed system calls.
  static func systemError(_ call: String) -> String {
    "\(call): \(String(cString: strerror(errno)))"
  }

  /// Drains OpenSSL's thread-local error queue into one line, so a later failure does not
  /// report an earlier one's cause.
  static func openSSLErrors() -> String {
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
