#ifndef ANIMPLAY_CWEBP_SHIM_H
#define ANIMPLAY_CWEBP_SHIM_H
#include <webp/decode.h>
#include <webp/demux.h>
/* Encoding: WebPAnimEncoder (libwebpmux) over libwebp's encoder. The *Init functions are
 * static inline wrappers that pass the header's ABI version; Swift imports them as they are. */
#include <webp/encode.h>
#include <webp/mux.h>
#endif
