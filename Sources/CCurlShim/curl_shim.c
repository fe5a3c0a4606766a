#include "curl_shim.h"
int mowdeck_curl_shim_version(void) { return 1; }
