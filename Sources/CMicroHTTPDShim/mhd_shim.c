#include "mhd_shim.h"

#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// libmicrohttpd hands its logger a printf format and a va_list, which Swift cannot take:
// format here, pass on the text. `cls` is the daemon's settings, which the caller keeps
// alive until the daemon has stopped.
static void format_log(void *cls, const char *format, va_list arguments) {
  const struct mowdeck_mhd_settings *settings = cls;
  if (settings == NULL || settings->log == NULL) return;
  char message[512];
  vsnprintf(message, sizeof message, format, arguments);
  size_t length = strlen(message);
  while (length > 0 && (message[length - 1] == '\n' || message[length - 1] == '\r')) {
    message[--length] = '\0';
  }
  settings->log(settings->log_cls, message);
}

struct MHD_Daemon *mowdeck_mhd_start(const struct mowdeck_mhd_settings *settings) {
  unsigned int flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME |
                       MHD_USE_ERROR_LOG;
  if (settings->address->sa_family == AF_INET6) flags |= MHD_USE_IPv6;
  int tls = settings->tls_certificate != NULL && settings->tls_key != NULL;
  if (tls) flags |= MHD_USE_TLS;
  // One thread is no pool, and libmicrohttpd warns at every start when told a pool size of
  // 1 or 0; an array whose first item ends it passes no size at all.
  struct MHD_OptionItem thread_pool[] = {
      {settings->threads > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END,
       (intptr_t)settings->threads, NULL},
      {MHD_OPTION_END, 0, NULL},
  };
  // The same trick for TLS: without a certificate the array ends at once.
  struct MHD_OptionItem tls_options[] = {
      {tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, (void *)settings->tls_key},
      {MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)settings->tls_certificate},
      {MHD_OPTION_END, 0, NULL},
  };
  return MHD_start_daemon(
      flags, 0, NULL, NULL, settings->handler, settings->handler_cls,
      // First, so that every message from the other options reaches it.
      MHD_OPTION_EXTERNAL_LOGGER, format_log, (void *)settings,
      MHD_OPTION_SOCK_ADDR, settings->address,
      MHD_OPTION_ARRAY, thread_pool,
      MHD_OPTION_ARRAY, tls_options,
      MHD_OPTION_CONNECTION_LIMIT, settings->connection_limit,
      MHD_OPTION_CONNECTION_TIMEOUT, settings->connection_timeout,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, settings->connection_memory_limit,
      MHD_OPTION_URI_LOG_CALLBACK, settings->uri, settings->uri_cls,
      MHD_OPTION_NOTIFY_COMPLETED, settings->completed, settings->completed_cls,
      // Refuse requests that bend HTTP/1.1 (spaces in the target, a missing Host) with 400.
      MHD_OPTION_STRICT_FOR_CLIENT, (int)1,
      MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)1024,
      MHD_OPTION_END);
}

uint16_t mowdeck_mhd_bound_port(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info == NULL ? 0 : info->port;
}

int mowdeck_mhd_client_address(struct MHD_Connection *connection, uint8_t out[16]) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (info == NULL || info->client_addr == NULL) return 0;
  const struct sockaddr *address = info->client_addr;
  if (address->sa_family == AF_INET) {
    const struct sockaddr_in *v4 = (const struct sockaddr_in *)address;
    memset(out, 0, 10);
    out[10] = 0xff;
    out[11] = 0xff;
    memcpy(out + 12, &v4->sin_addr, 4);
    return 1;
  }
  if (address->sa_family == AF_INET6) {
    memcpy(out, &((const struct sockaddr_in6 *)address)->sin6_addr, 16);
    return 1;
  }
  return 0;
}
