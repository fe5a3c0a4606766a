#ifndef MOWDECK_CURL_SHIM_H
#define MOWDECK_CURL_SHIM_H
// Placeholder: typed wrappers around curl_easy_setopt / curl_multi_setopt go here.
int mowdeck_curl_shim_version(void);
#endif
