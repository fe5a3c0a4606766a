#ifndef MOWDECK_MHD_SHIM_H
#define MOWDECK_MHD_SHIM_H
// Typed, non-variadic wrappers for the libmicrohttpd calls Swift cannot make
// (MHD_start_daemon, MHD_get_daemon_info and MHD_get_connection_info are variadic),
// and a formatted logger so that libmicrohttpd's messages reach the JSON log.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <microhttpd.h>

/// Receives each libmicrohttpd error message, already formatted.
typedef void (*mowdeck_mhd_log_callback)(void *cls, const char *message);

/// Called once per request with its raw request target (path and query, not decoded);
/// the returned pointer becomes the request's `*req_cls`.
typedef void *(*mowdeck_mhd_uri_callback)(void *cls, const char *uri,
                                           struct MHD_Connection *connection);

struct mowdeck_mhd_settings {
  /// Where to listen: an IPv4 or IPv6 socket address (port 0 picks a free one).
  const struct sockaddr *address;
  /// Threads of the pool; each runs its own epoll loop.
  unsigned int threads;
  unsigned int connection_limit;
  /// Seconds an idle connection is kept.
  unsigned int connection_timeout;
  /// Bytes of memory per connection for the request line and headers; larger requests
  /// are refused by libmicrohttpd itself (414 or 431).
  size_t connection_memory_limit;
  MHD_AccessHandlerCallback handler;
  void *handler_cls;
  mowdeck_mhd_uri_callback uri;
  void *uri_cls;
  MHD_RequestCompletedCallback completed;
  void *completed_cls;
  mowdeck_mhd_log_callback log;
  void *log_cls;
  /// HTTPS: the PEM certificate chain and private key, NUL-terminated, both or neither;
  /// NULL serves plain HTTP. They must stay valid until MHD_stop_daemon has returned.
  const char *tls_certificate;
  const char *tls_key;
};

/// Starts a daemon with an epoll thread pool and suspend/resume; NULL on failure.
/// `settings` must stay valid until MHD_stop_daemon has returned (the logger reads it).
struct MHD_Daemon *mowdeck_mhd_start(const struct mowdeck_mhd_settings *settings);

/// The port the daemon listens on (the chosen one when asked for port 0), or 0.
uint16_t mowdeck_mhd_bound_port(struct MHD_Daemon *daemon);

/// Writes the client's address as 16 bytes (IPv4 as an IPv4-mapped IPv6 address) and
/// returns 1, or returns 0 when it is unknown.
int mowdeck_mhd_client_address(struct MHD_Connection *connection, uint8_t out[16]);

#endif
