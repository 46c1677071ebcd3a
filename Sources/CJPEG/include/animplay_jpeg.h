#ifndef ANIMPLAY_JPEG_H
#define ANIMPLAY_JPEG_H
/* What Swift calls of libjpeg(-turbo). libjpeg reports errors through error_exit, which must not
 * return: here it longjmps back into animplay_jpeg.c, so that no Swift frame is ever skipped by
 * the jump; this header needs neither jpeglib.h nor setjmp.h. */
#include <stddef.h>
#include <stdint.h>

typedef struct animplay_jpeg_header {
    uint32_t width, height;     /* as stored (before EXIF orientation) */
    int components;             /* 1 grey, 3 YCbCr or RGB, 4 CMYK or YCCK */
    int progressive;            /* 1 for a progressive (SOF2) file */
    int adobe;                  /* 1 when an Adobe APP14 marker was seen */
} animplay_jpeg_header;

/* libjpeg is loaded with dlopen by the first call of either function (CLazyLib's
 * animplay_lazy.h); when it cannot be, they return -1 with why in `message`. */

/* Reads the headers of the JPEG in data[0, size). Returns 0, or -1 with a message (128 bytes). */
int animplay_jpeg_read_header(const unsigned char *data, size_t size, animplay_jpeg_header *header,
                              char *message);

/* Decodes the JPEG in data[0, size) scaled by scale_num / 8 (libjpeg's DCT scaling; 8: full
 * size) to opaque 8-bit RGBA, row y at out + y * stride. `width` x `height` must be the scaled
 * size libjpeg computes (ceil(stored * scale_num / 8)). Islow IDCT and fancy upsampling, as
 * Chromium decodes. CMYK and YCCK are taken as Adobe's inverted CMYK and turned into RGB as
 * Chromium does (R = C * K / 255, truncated). `max_memory` caps libjpeg's own memory (a
 * progressive file holds all its coefficients), `max_scans` the number of scans (a progressive
 * file of thousands of tiny scans costs minutes of CPU otherwise).
 *
 * Returns 0; 1 when libjpeg warned about corrupt data (what it could decode is there, the rest
 * grey), with the first warning in `message`; or -1 with a message. Rows written before an error
 * keep their pixels. */
int animplay_jpeg_decode_rgba(const unsigned char *data, size_t size, unsigned scale_num,
                              unsigned char *out, size_t stride, uint32_t width, uint32_t height,
                              size_t max_memory, int max_scans, char *message);

#endif
