#ifndef ANIMPLAY_CWEBP_SHIM_H
#define ANIMPLAY_CWEBP_SHIM_H
#include <webp/decode.h>
#include <webp/demux.h>
#endif
