#ifndef MOWDECK_CURL_SHIM_H
#define MOWDECK_CURL_SHIM_H
// Typed wrappers for libcurl's variadic calls, which Swift cannot make (as
// swift-corelibs-foundation does with CFURLSession_easy_setopt_long and friends).
#include <curl/curl.h>

CURLcode mowdeck_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode mowdeck_curl_easy_setopt_ptr(CURL *handle, CURLoption option, void *value);
CURLcode mowdeck_curl_easy_setopt_str(CURL *handle, CURLoption option, const char *value);
CURLcode mowdeck_curl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode mowdeck_curl_easy_setopt_write(CURL *handle,
    size_t (*callback)(char *data, size_t size, size_t count, void *context));
CURLcode mowdeck_curl_easy_setopt_header(CURL *handle,
    size_t (*callback)(char *data, size_t size, size_t count, void *context));
CURLcode mowdeck_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode mowdeck_curl_easy_getinfo_ptr(CURL *handle, CURLINFO info, void **value);
CURLMcode mowdeck_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value);

// Names the calling thread (at most 15 characters), so the curl loop shows in `top -H` and
// gdb. pthread_setname_np is a GNU extension that Swift's Glibc module does not declare.
void mowdeck_curl_name_loop_thread(const char *name);

#endif
