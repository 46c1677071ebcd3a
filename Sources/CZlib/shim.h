#ifndef ANIMPLAY_CZLIB_SHIM_H
#define ANIMPLAY_CZLIB_SHIM_H
#include <zlib.h>
#endif
