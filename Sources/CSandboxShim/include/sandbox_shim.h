#ifndef MOWDECK_SANDBOX_SHIM_H
#define MOWDECK_SANDBOX_SHIM_H
// What the test doubles' HTTP/2 server (SandboxHTTP2) needs from OpenSSL and nghttp2 but Swift cannot call directly:
// OpenSSL's function-like macros (SSL_CTX_set_mode, SSL_CTX_set_min_proto_version), the
// ALPN selection callback, and nghttp2_submit_response with a data provider (a struct
// holding a union and a callback that reads from memory the caller owns).
#include <stddef.h>
#include <stdint.h>
#include <nghttp2/nghttp2.h>
#include <openssl/ssl.h>

/// TLS 1.2 or newer, partial writes with a movable buffer (the event loop retries a
/// short SSL_write with whatever is still pending), no renegotiation, and ALPN that
/// selects "h2" or refuses the handshake. Returns 1 on success, 0 on failure.
int mowdeck_sandbox_tls_configure(SSL_CTX *ctx);

/// A response body the caller owns: `data` must stay valid until the stream is closed
/// (nghttp2 reports that through its on_stream_close callback); `offset` is advanced by
/// the read callback as nghttp2 pulls DATA frames.
typedef struct mowdeck_sandbox_body {
  const uint8_t *data;
  size_t length;
  size_t offset;
} mowdeck_sandbox_body;

/// Submits response headers, then `body` as DATA ending the stream; with a NULL (or empty)
/// body the HEADERS frame ends the stream. Returns nghttp2's result (0 or a negative code).
int mowdeck_sandbox_submit_response(nghttp2_session *session, int32_t stream_id,
                                    const nghttp2_nv *headers, size_t header_count,
                                    mowdeck_sandbox_body *body);

#endif
