#ifndef ANIMPLAY_CPNG_SHIM_H
#define ANIMPLAY_CPNG_SHIM_H
#include <png.h>
#include <zlib.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* libpng reports errors by longjmp. Everything between the setjmp and a possible longjmp lives
 * here, in C, so that no Swift frame is ever skipped by the jump. */

/* Where libpng's bytes come from: `read` fills exactly `count` bytes at `out` and returns 0, or
 * returns non-zero after writing a message (up to 127 bytes) to `message`. It must not longjmp:
 * the error is raised here, in C, after it has returned. */
typedef int (*animplay_png_read_fn)(void *context, unsigned char *out, size_t count, char *message);

typedef struct animplay_png_source {
    animplay_png_read_fn read;
    void *context;
    char message[128];
} animplay_png_source;

static inline void animplay_png_read_callback(png_structp png, png_bytep out, size_t n) {
    animplay_png_source *s = (animplay_png_source *)png_get_io_ptr(png);
    s->message[0] = 0;
    if (s->read(s->context, out, n, s->message) != 0) {
        s->message[127] = 0;
        png_error(png, s->message[0] ? s->message : "read error");
    }
}

/* The error pointer is a 128-byte message buffer owned by the caller. */
static inline void animplay_png_on_error(png_structp png, png_const_charp msg) {
    char *buf = (char *)png_get_error_ptr(png);
    if (buf != NULL) {
        strncpy(buf, msg != NULL ? msg : "libpng error", 127);
        buf[127] = 0;
    }
    png_longjmp(png, 1);
}

static inline void animplay_png_on_warning(png_structp png, png_const_charp msg) {
    (void)png; (void)msg;
}

/* Decodes the PNG stream that `read` produces (its IHDR must say `width` x `height`) to 8-bit
 * RGBA with straight alpha: any colour type and bit depth, tRNS, Adam7; 16-bit samples are
 * rounded to 8 bits (v * 255 / 65535, to nearest); gamma is not applied. Row y is written to
 * out + y * stride. Returns 0, or -1 with a message in `message` (128 bytes); rows written
 * before an error keep their pixels.
 *
 * The reader checks the CRCs of the file's chunks itself, so libpng's CRC and Adler-32 checks
 * are switched off; libpng's "benign" errors (extra or missing image data) are errors here. */
static inline int animplay_png_decode_rgba(animplay_png_read_fn read, void *context,
                                           uint32_t width, uint32_t height,
                                           unsigned char *out, size_t stride, char *message) {
    animplay_png_source src;
    src.read = read;
    src.context = context;
    src.message[0] = 0;
    message[0] = 0;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, message,
                                             animplay_png_on_error, animplay_png_on_warning);
    if (png == NULL) { strcpy(message, "out of memory"); return -1; }
    png_infop info = png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_read_struct(&png, NULL, NULL);
        strcpy(message, "out of memory");
        return -1;
    }
    /* png and info are not modified after setjmp, so they need not be volatile. */
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return -1;
    }
    png_set_read_fn(png, &src, animplay_png_read_callback);
    png_set_crc_action(png, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE);
    png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
    png_set_benign_errors(png, 0);
    png_set_check_for_invalid_index(png, 0);   /* out-of-range palette indices show black */
    png_set_user_limits(png, 0x7fffffffU, 0x7fffffffU);  /* the caller checked its own limits */

    png_read_info(png, info);
    png_uint_32 w = 0, h = 0;
    int depth = 0, ctype = 0, interlace = 0;
    png_get_IHDR(png, info, &w, &h, &depth, &ctype, &interlace, NULL, NULL);
    if (w != width || h != height) png_error(png, "frame size does not match its header");

    int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    if (ctype == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (ctype == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (has_trns) png_set_tRNS_to_alpha(png);
    if (depth == 16) png_set_scale_16(png);
    if (ctype == PNG_COLOR_TYPE_GRAY || ctype == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    if ((ctype & PNG_COLOR_MASK_ALPHA) == 0 && !has_trns) png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)width * 4) png_error(png, "unexpected row size");

    for (int pass = 0; pass < passes; pass++) {
        unsigned char *row = out;
        for (uint32_t y = 0; y < height; y++, row += stride) png_read_row(png, row, NULL);
    }
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}

/* CRC-32 of a chunk's type and data (zlib's, which the PNG chunk CRC is). */
static inline uint32_t animplay_crc32(const unsigned char *bytes, size_t count) {
    return (uint32_t)crc32_z(0L, bytes, count);
}

/* Continues a CRC-32 over more bytes. */
static inline uint32_t animplay_crc32_update(uint32_t crc, const unsigned char *bytes, size_t count) {
    return (uint32_t)crc32_z(crc, bytes, count);
}

#endif
