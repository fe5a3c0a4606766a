#define _GNU_SOURCE
#include "curl_shim.h"

#include <pthread.h>

CURLcode mowdeck_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
  return curl_easy_setopt(handle, option, value);
}

CURLcode mowdeck_curl_easy_setopt_ptr(CURL *handle, CURLoption option, void *value) {
  return curl_easy_setopt(handle, option, value);
}

CURLcode mowdeck_curl_easy_setopt_str(CURL *handle, CURLoption option, const char *value) {
  return curl_easy_setopt(handle, option, value);
}

CURLcode mowdeck_curl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
  return curl_easy_setopt(handle, option, value);
}

CURLcode mowdeck_curl_easy_setopt_write(CURL *handle,
    size_t (*callback)(char *data, size_t size, size_t count, void *context)) {
  return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

CURLcode mowdeck_curl_easy_setopt_header(CURL *handle,
    size_t (*callback)(char *data, size_t size, size_t count, void *context)) {
  return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
}

CURLcode mowdeck_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
  return curl_easy_getinfo(handle, info, value);
}

CURLcode mowdeck_curl_easy_getinfo_ptr(CURL *handle, CURLINFO info, void **value) {
  return curl_easy_getinfo(handle, info, value);
}

CURLMcode mowdeck_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
  return curl_multi_setopt(handle, option, value);
}

void mowdeck_curl_name_loop_thread(const char *name) {
  pthread_setname_np(pthread_self(), name);
}
