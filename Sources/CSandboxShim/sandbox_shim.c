#include "sandbox_shim.h"

#include <string.h>

// The client offers its protocols; APNs and FCM endpoints speak HTTP/2, so anything
// without "h2" ends the handshake with a no_application_protocol alert.
static int select_h2(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                     const unsigned char *in, unsigned int inlen, void *arg) {
  (void)ssl;
  (void)arg;
  unsigned char *selected = NULL;
  if (nghttp2_select_next_protocol(&selected, outlen, in, inlen) != 1) {
    return SSL_TLSEXT_ERR_ALERT_FATAL;
  }
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

int mowdeck_sandbox_tls_configure(SSL_CTX *ctx) {
  if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) return 0;
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                               SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_alpn_select_cb(ctx, select_h2, NULL);
  return 1;
}

static ssize_t read_body(nghttp2_session *session, int32_t stream_id, uint8_t *buf,
                         size_t length, uint32_t *data_flags, nghttp2_data_source *source,
                         void *user_data) {
  (void)session;
  (void)stream_id;
  (void)user_data;
  mowdeck_sandbox_body *body = source->ptr;
  size_t left = body->length - body->offset;
  size_t count = left < length ? left : length;
  if (count > 0) memcpy(buf, body->data + body->offset, count);
  body->offset += count;
  if (body->offset == body->length) *data_flags |= NGHTTP2_DATA_FLAG_EOF;
  return (ssize_t)count;
}

int mowdeck_sandbox_submit_response(nghttp2_session *session, int32_t stream_id,
                                    const nghttp2_nv *headers, size_t header_count,
                                    mowdeck_sandbox_body *body) {
  if (body == NULL || body->length == 0) {
    return nghttp2_submit_response(session, stream_id, headers, header_count, NULL);
  }
  nghttp2_data_provider provider;
  provider.source.ptr = body;
  provider.read_callback = read_body;
  return nghttp2_submit_response(session, stream_id, headers, header_count, &provider);
}
