#ifndef ANIMPLAY_CGIF_SHIM_H
#define ANIMPLAY_CGIF_SHIM_H
#include <gif_lib.h>
#endif
