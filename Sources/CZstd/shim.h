#ifndef ANIMPLAY_CZSTD_SHIM_H
#define ANIMPLAY_CZSTD_SHIM_H
#include <zstd.h>
#endif
