#ifndef ANIMPLAY_PNG_H
#define ANIMPLAY_PNG_H
/* What Swift calls of libpng and zlib. libpng reports errors by longjmp, so everything between
 * its setjmp and a possible longjmp stays in animplay_png.c and no Swift frame is ever skipped by
 * the jump; this header needs neither png.h nor setjmp.h. */
#include <stddef.h>
#include <stdint.h>

/* Where libpng's bytes come from: `read` fills exactly `count` bytes at `out` and returns 0, or
 * returns non-zero after writing a message (up to 127 bytes) to `message`. It must not longjmp:
 * the error is raised in animplay_png.c, after it has returned. */
typedef int (*animplay_png_read_fn)(void *context, unsigned char *out, size_t count, char *message);

/* Memory for libpng (and zlib through it) while one image is decoded: a block handed out in
 * order and reset per image, so that decoding frame after frame allocates nothing once the block
 * is big enough (libpng otherwise mallocs its structs, zlib window and row buffers per image).
 * What does not fit is malloc'd and freed at the next reset, which grows the block to fit. */
#define ANIMPLAY_ARENA_OVERFLOW 64
typedef struct animplay_png_arena {
    unsigned char *block;
    size_t capacity;
    size_t used;
    void *overflow[ANIMPLAY_ARENA_OVERFLOW];
    size_t overflow_count;
    size_t overflow_bytes;
} animplay_png_arena;

/* libpng is loaded with dlopen on first use (see CLazyLib's animplay_lazy.h), by any function
 * below; this loads it now (once; any thread). NULL when it is ready, else why it is not
 * (static text: "libpng is not installed (libpng16.so.16)"). */
const char *animplay_png_load(void);

/* Frees the arena's memory (it can be reused: the next decode allocates again). */
void animplay_png_arena_release(animplay_png_arena *a);

/* Decodes the PNG stream that `read` produces (its IHDR must say `width` x `height`) to 8-bit
 * RGBA with straight alpha: any colour type and bit depth, tRNS, Adam7; 16-bit samples keep
 * their high byte (v >> 8, as Chromium); gamma is not applied. Row y is written to
 * out + y * stride. Returns 0, or -1 with a message in `message` (128 bytes: also when libpng
 * cannot be loaded); rows written before an error keep their pixels.
 *
 * libpng's memory comes from `arena` (reset here, so nothing of a previous image survives).
 * The reader checks the CRCs of the file's chunks itself, so libpng's CRC and Adler-32 checks
 * are switched off; libpng's "benign" errors (extra or missing image data) are errors here. */
int animplay_png_decode_rgba(animplay_png_read_fn read, void *context, animplay_png_arena *arena,
                             uint32_t width, uint32_t height,
                             unsigned char *out, size_t stride, char *message);

/* Receives row y (8-bit RGBA, `width` pixels) of an image decoded row by row. Must not longjmp. */
typedef void (*animplay_png_row_fn)(void *context, uint32_t y, const unsigned char *rgba);

/* As animplay_png_decode_rgba, but the image is never held whole: each row is decoded into `row`
 * (width * 4 bytes) and handed to `on_row`, top to bottom. Interlaced images are refused (their
 * rows are complete only after the last pass). */
int animplay_png_decode_rows(animplay_png_read_fn read, void *context, animplay_png_arena *arena,
                             uint32_t width, uint32_t height, unsigned char *row,
                             animplay_png_row_fn on_row, void *row_context, char *message);

/* CRC-32 of a chunk's type and data (zlib's, which the PNG chunk CRC is). */
uint32_t animplay_crc32(const unsigned char *bytes, size_t count);

/* Continues a CRC-32 over more bytes. */
uint32_t animplay_crc32_update(uint32_t crc, const unsigned char *bytes, size_t count);

#endif
