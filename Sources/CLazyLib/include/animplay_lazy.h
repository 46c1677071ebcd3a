#ifndef ANIMPLAY_LAZY_H
#define ANIMPLAY_LAZY_H
/* A C library loaded with dlopen on first use instead of linked: every library linked is loaded,
 * relocated and initialised at each start of animplay, also when the run never needs it (a GIF
 * played needs neither libpng, libjpeg nor libwebp: 0.4-1.0 ms of each start, measured with an
 * empty program linked to them and without).
 *
 * A library's C target lists the functions it calls, one pointer each typed from the library's
 * own declaration, calls them through the pointers, and loads them once (pthread_once) at each
 * entry point before the first call, turning a failure into the entry point's error. */
#include <stddef.h>

typedef struct animplay_lazy_symbol {
    const char *name;
    void **slot;
    /* 1: the library may lack it (its slot is then left NULL): a function of a dependency that
     * only some builds bring (libimagequant's libgomp). */
    int optional;
} animplay_lazy_symbol;

/* The entry of a required function `name` whose pointer is `p_name` (every lazily loaded C
 * target names its pointers so), for a target's X-macro list of functions. */
#define ANIMPLAY_LAZY_SYMBOL(name) { #name, (void **)&p_##name, 0 },

/* Opens the first of `sonames` (NULL-terminated) that loads and fills every slot of `symbols`.
 * NULL when all are there; else why not, as text kept in `message` (`library` names it for the
 * user: "libwebp is not installed (libwebp.so.7)"). Meant to run once, under pthread_once. */
const char *animplay_lazy_load(const char *library, const char *const *sonames,
                               const animplay_lazy_symbol *symbols, size_t count,
                               char *message, size_t message_size);

#endif
