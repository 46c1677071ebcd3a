#ifndef ANIMPLAY_CSIXEL_SHIM_H
#define ANIMPLAY_CSIXEL_SHIM_H
/* libsixel (Debian libsixel-dev installs the header under include/sixel/, which pkg-config's
 * Cflags name). Swift calls its API directly: nothing here is variadic or setjmp-based; only
 * the SIXEL_FAILED function-like macro, which Swift does not import, needs a wrapper. */
#include <sixel.h>

static inline int animplay_sixel_failed(SIXELSTATUS status) { return SIXEL_FAILED(status) ? 1 : 0; }
#endif
