import COpenSSL
import CSandboxShim

/// The server side of TLS: the sandbox's certificate chain and key, TLS 1.2 or newer, and
/// ALPN that accepts only "h2" (the services these doubles stand for speak HTTP/2).
final class TLSContext {
  private let context: OpaquePointer

  init(certificateChain: String, privateKey: String) throws(HTTP2ServerError) {
    guard let context = SSL_CTX_new(TLS_server_method()) else {
      throw HTTP2ServerError(.tls, detail: HTTP2ServerError.openSSLErrors())
    }
    self.context = context
    guard mowdeck_sandbox_tls_configure(context) == 1 else {
      throw HTTP2ServerError(.tls, detail: HTTP2ServerError.openSSLErrors())
    }
    guard SSL_CTX_use_certificate_chain_file(context, certificateChain) == 1 else {
      throw HTTP2ServerError(
        .badCertificate(path: certificateChain), detail: HTTP2ServerError.openSSLErrors())
    }
    guard SSL_CTX_use_PrivateKey_file(context, privateKey, SSL_FILETYPE_PEM) == 1,
      SSL_CTX_check_private_key(context) == 1
    else {
      throw HTTP2ServerError(
        .badPrivateKey(path: privateKey), detail: HTTP2ServerError.openSSLErrors())
    }
  }

  deinit { SSL_CTX_free(context) }

  /// A new server-side TLS session on a connected socket; the caller owns it (`SSL_free`).
  func session(socket: Int32) -> OpaquePointer? {
    guard let ssl = SSL_new(context) else { return nil }
    guard SSL_set_fd(ssl, socket) == 1 else {
      SSL_free(ssl)
      return nil
    }
    SSL_set_accept_state(ssl)
    return ssl
  }
}
