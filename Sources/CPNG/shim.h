#ifndef ANIMPLAY_CPNG_SHIM_H
#define ANIMPLAY_CPNG_SHIM_H
#include <png.h>
#endif
