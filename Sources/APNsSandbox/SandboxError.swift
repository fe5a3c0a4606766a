import Foundation
import SandboxHTTP2

/// Why the sandbox could not start, naming the file (the server's own troubles, with its
/// certificate, address or TLS, are `HTTP2ServerError`s).
struct SandboxError: Error, CustomStringConvertible {
  enum Code: Sendable, Equatable {
    case unreadableFile(path: String)
    case badPrivateKey(path: String)
    case badPublicKey(path: String)
    case badBehaviourFile(path: String)
  }

  let code: Code
  /// What OpenSSL or the file's parser said.
  let detail: String

  init(_ code: Code, detail: String = "") {
    self.code = code
    self.detail = detail
  }

  var description: String {
    let what: String
    switch code {
    case .unreadableFile(let path): what = "cannot read \(path)"
    case .badPrivateKey(let path): what = "not a usable PEM private key: \(path)"
    case .badPublicKey(let path): what = "not a P-256 public key in PEM: \(path)"
    case .badBehaviourFile(let path): what = "bad behaviour file \(path)"
    }
    return detail.isEmpty ? what : "\(what): \(detail)"
  }

  /// What OpenSSL said (`HTTP2ServerError.openSSLErrors`).
  static func openSSLErrors() -> String { HTTP2ServerError.openSSLErrors() }
}
