#ifndef MOWDECK_MHD_SHIM_H
#define MOWDECK_MHD_SHIM_H
// Placeholder: typed wrappers around libmicrohttpd's variadic calls go here.
int mowdeck_mhd_shim_version(void);
#endif
