#ifndef ANIMPLAY_PNG_WRITE_H
#define ANIMPLAY_PNG_WRITE_H
/* PNG encoding into memory (iTerm2 inline images). libpng reports errors by longjmp, so the
 * whole encode, setjmp included, stays in animplay_png_write.c. */
#include <stddef.h>
#include <stdint.h>

/* A growing output buffer; the caller frees it with animplay_png_buffer_free. */
typedef struct animplay_png_buffer {
    unsigned char *data;
    size_t length;
    size_t capacity;
    int failed;
} animplay_png_buffer;

void animplay_png_buffer_free(animplay_png_buffer *b);

/* Encodes 8-bit RGB rows (row y at rgb + y * stride) as a PNG appended to `out`, with zlib
 * `level` (0-9) and the "up" row filter (cheap, and good on frames that are mostly flat or
 * vertically smooth). Returns 0, or -1 (out of memory, libpng error, libpng not loaded:
 * animplay_png_load says why). */
int animplay_png_encode_rgb(const unsigned char *rgb, uint32_t width, uint32_t height, size_t stride,
                            int level, animplay_png_buffer *out);

/* Encodes 8-bit RGB (`channels` 3) or straight-alpha RGBA (`channels` 4) rows as a PNG appended
 * to `out`, with zlib `level` (0-9); `adaptive` lets libpng pick a row filter per row (smaller,
 * slower: files), otherwise "up" (fast: terminal payloads). Returns 0, or -1. The APNG encoder
 * takes the IDAT data of this output as a frame's fdAT data (Debian's libpng has no APNG). */
int animplay_png_encode(const unsigned char *pixels, uint32_t width, uint32_t height, size_t stride,
                        int channels, int level, int adaptive, animplay_png_buffer *out);
#endif
