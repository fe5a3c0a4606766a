#include "mhd_shim.h"
int mowdeck_mhd_shim_version(void) { return 1; }
