/* libpng behind a setjmp-free interface (see include/animplay_png.h): the arena allocator,
 * the error longjmp, and the RGB-to-RGBA row widening (SSSE3 where the CPU has it). */
#include "animplay_png.h"
#include "animplay_lazy.h"
#include <png.h>
#include "png_lazy.h"
#include <pthread.h>
#include <zlib.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <cpuid.h>
#include <tmmintrin.h>
#define ANIMPLAY_X86_SSSE3 1
#endif

/* libpng's functions, resolved once by animplay_png_load (see png_lazy.h). */
#define ANIMPLAY_PNG_DEFINE(name) __typeof__(&name) p_##name;
ANIMPLAY_PNG_FUNCTIONS(ANIMPLAY_PNG_DEFINE)
/* libpng16.so.16 for the headers of libpng 1.6. */
#define ANIMPLAY_PNG_TEXT(x) #x
#define ANIMPLAY_PNG_SONAME(n) "libpng" ANIMPLAY_PNG_TEXT(n) ".so." ANIMPLAY_PNG_TEXT(n)

static pthread_once_t animplay_png_once = PTHREAD_ONCE_INIT;
static const char *animplay_png_failure;
static char animplay_png_failure_text[128];

static void animplay_png_load_once(void) {
    static const char *const sonames[] = { ANIMPLAY_PNG_SONAME(PNG_LIBPNG_VER_DLLNUM), "libpng.so", NULL };
    const animplay_lazy_symbol symbols[] = { ANIMPLAY_PNG_FUNCTIONS(ANIMPLAY_LAZY_SYMBOL) };
    animplay_png_failure = animplay_lazy_load("libpng", sonames, symbols, sizeof symbols / sizeof symbols[0],
                                              animplay_png_failure_text, sizeof animplay_png_failure_text);
}

const char *animplay_png_load(void) {
    pthread_once(&animplay_png_once, animplay_png_load_once);
    return animplay_png_failure;
}

/* libpng reports errors by longjmp. Everything between the setjmp and a possible longjmp lives
 * here, in C, so that no Swift frame is ever skipped by the jump. */

typedef struct animplay_png_source {
    animplay_png_read_fn read;
    void *context;
    char message[128];
} animplay_png_source;

static void animplay_png_read_callback(png_structp png, png_bytep out, size_t n) {
    animplay_png_source *s = (animplay_png_source *)png_get_io_ptr(png);
    s->message[0] = 0;
    if (s->read(s->context, out, n, s->message) != 0) {
        s->message[127] = 0;
        png_error(png, s->message[0] ? s->message : "read error");
    }
}


static void animplay_png_arena_reset(animplay_png_arena *a) {
    for (size_t i = 0; i < a->overflow_count; i++) free(a->overflow[i]);
    if (a->overflow_count > 0) {
        size_t want = a->used + a->overflow_bytes;
        want += want / 4;
        unsigned char *bigger = (unsigned char *)malloc(want);
        if (bigger != NULL) { free(a->block); a->block = bigger; a->capacity = want; }
    }
    a->overflow_count = 0;
    a->overflow_bytes = 0;
    a->used = 0;
}

void animplay_png_arena_release(animplay_png_arena *a) {
    animplay_png_arena_reset(a);
    free(a->block);
    a->block = NULL;
    a->capacity = 0;
}

static png_voidp animplay_png_arena_malloc(png_structp png, png_alloc_size_t size) {
    animplay_png_arena *a = (animplay_png_arena *)png_get_mem_ptr(png);
    size_t rounded = (size + 15) & ~(size_t)15;
    if (rounded < size) return NULL;
    if (a->block != NULL && rounded <= a->capacity - a->used) {
        void *p = a->block + a->used;
        a->used += rounded;
        return p;
    }
    if (a->overflow_count == ANIMPLAY_ARENA_OVERFLOW) return NULL;
    void *p = malloc(size > 0 ? size : 1);
    if (p != NULL) {
        a->overflow[a->overflow_count++] = p;
        a->overflow_bytes += rounded;
    }
    return p;
}

/* Everything is given back at the next reset. */
static void animplay_png_arena_free(png_structp png, png_voidp p) { (void)png; (void)p; }

/* The error pointer is a 128-byte message buffer owned by the caller. */
static void animplay_png_on_error(png_structp png, png_const_charp msg) {
    char *buf = (char *)png_get_error_ptr(png);
    if (buf != NULL) {
        strncpy(buf, msg != NULL ? msg : "libpng error", 127);
        buf[127] = 0;
    }
    png_longjmp(png, 1);
}

static void animplay_png_on_warning(png_structp png, png_const_charp msg) {
    (void)png; (void)msg;
}

#ifdef ANIMPLAY_X86_SSSE3
/* 4 RGB pixels (12 bytes) to RGBA (16) per step, backwards from pixel i (a multiple of 4):
 * the 16-byte load at 3i ends before the block above was written (at 4i + 16) and inside the
 * row (3i + 16 <= 4 * width when i <= width - 4). */
__attribute__((target("ssse3")))
static void animplay_widen_rgb_ssse3(unsigned char *row, size_t i) {
    const __m128i spread = _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
    const __m128i alpha = _mm_set1_epi32((int)0xFF000000u);
    while (i > 0) {
        i -= 4;
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(row + 3 * i));
        _mm_storeu_si128((__m128i *)(void *)(row + 4 * i), _mm_or_si128(_mm_shuffle_epi8(v, spread), alpha));
    }
}

static int animplay_cpu_has_ssse3(void) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSSE3) != 0;
}
#endif

/* Widens a row of `width` 8-bit RGB (grey when `grey`) pixels at the start of `row` to RGBA
 * (opaque) in place; `row` holds width * 4 bytes. libpng's filler transform does this a byte at
 * a time, which costs about a fifth of decoding an opaque RGB frame. Runs backwards: pixel i
 * moves from i * 3 (or i) to i * 4, never onto a pixel not yet moved. */
static void animplay_widen_to_rgba(unsigned char *row, uint32_t width, int grey, int ssse3) {
    size_t i = width;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (!grey) {
        /* Single pixels from the end down to a multiple of 4. A 4-byte load at 3i stays inside
         * the row (3i + 4 <= 4 * width); its last byte belongs to the next pixel (already moved
         * or not: it is replaced by the alpha either way). */
        while (i % 4 != 0) {
            i--;
            uint32_t v;
            memcpy(&v, row + 3 * i, 4);
            v |= 0xFF000000u;
            memcpy(row + 4 * i, &v, 4);
        }
#ifdef ANIMPLAY_X86_SSSE3
        if (ssse3) { animplay_widen_rgb_ssse3(row, i); return; }
#endif
        (void)ssse3;
        /* Then 4 pixels (12 bytes -> 16) at a time with two 8-byte loads: reads [3i, 3i + 14)
         * end before the writes of the block above, at 4i + 16. */
        while (i > 0) {
            i -= 4;
            uint64_t a, b;
            memcpy(&a, row + 3 * i, 8);
            memcpy(&b, row + 3 * i + 6, 8);
            uint64_t lo = (a & 0xFFFFFFu) | ((a << 8) & 0xFFFFFF00000000u) | 0xFF000000FF000000u;
            uint64_t hi = (b & 0xFFFFFFu) | ((b << 8) & 0xFFFFFF00000000u) | 0xFF000000FF000000u;
            memcpy(row + 4 * i, &lo, 8);
            memcpy(row + 4 * i + 8, &hi, 8);
        }
        return;
    }
    while (i > 0) {
        i--;
        uint32_t v = (uint32_t)row[i] * 0x010101u | 0xFF000000u;
        memcpy(row + 4 * i, &v, 4);
    }
#else
    while (i > 0) {
        i--;
        unsigned char r, g, b;
        if (grey) { r = g = b = row[i]; } else { r = row[3 * i]; g = row[3 * i + 1]; b = row[3 * i + 2]; }
        row[4 * i] = r; row[4 * i + 1] = g; row[4 * i + 2] = b; row[4 * i + 3] = 0xFF;
    }
#endif
}

/* The read struct and its info struct with animplay's error handlers, arena and reading options
 * (damaged CRCs and Adler-32 tolerated as browsers do, the caller's own size limits); NULL with
 * `message` set when out of memory. Nothing here can longjmp. */
static png_structp animplay_png_open(animplay_png_source *src, animplay_png_read_fn read, void *context,
                                     animplay_png_arena *arena, char *message, png_infop *info) {
    src->read = read;
    src->context = context;
    src->message[0] = 0;
    message[0] = 0;
    const char *unavailable = animplay_png_load();
    if (unavailable != NULL) { snprintf(message, 128, "%s", unavailable); return NULL; }
    animplay_png_arena_reset(arena);
    png_structp png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, message,
                                               animplay_png_on_error, animplay_png_on_warning,
                                               arena, animplay_png_arena_malloc, animplay_png_arena_free);
    if (png == NULL) { strcpy(message, "out of memory"); return NULL; }
    *info = png_create_info_struct(png);
    if (*info == NULL) {
        png_destroy_read_struct(&png, NULL, NULL);
        strcpy(message, "out of memory");
        return NULL;
    }
    png_set_read_fn(png, src, animplay_png_read_callback);
    png_set_crc_action(png, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE);
    png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
    png_set_benign_errors(png, 0);
    png_set_check_for_invalid_index(png, 0);   /* out-of-range palette indices show black */
    png_set_user_limits(png, 0x7fffffffU, 0x7fffffffU);  /* the caller checked its own limits */
    return png;
}

typedef struct animplay_png_header {
    int depth, ctype, interlace, has_trns;
} animplay_png_header;

/* Reads the header, checks the size the caller expects, and asks libpng for 8-bit RGB(A) or grey
 * rows (palettes expanded, tRNS to alpha, 16 bits to their high byte). It longjmps on errors: call it after
 * the caller's setjmp. */
static animplay_png_header animplay_png_read_header(png_structp png, png_infop info, uint32_t width, uint32_t height) {
    png_read_info(png, info);
    png_uint_32 w = 0, h = 0;
    animplay_png_header hd = {0, 0, 0, 0};
    png_get_IHDR(png, info, &w, &h, &hd.depth, &hd.ctype, &hd.interlace, NULL, NULL);
    if (w != width || h != height) png_error(png, "frame size does not match its header");
    hd.has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    if (hd.ctype == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (hd.ctype == PNG_COLOR_TYPE_GRAY && hd.depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (hd.has_trns) png_set_tRNS_to_alpha(png);
    /* 16-bit samples keep their high byte, as Chromium shows them (not v * 255 / 65535 rounded,
     * which is one higher for about half of all values); tRNS is matched on all 16 bits first. */
    if (hd.depth == 16) png_set_strip_16(png);
    return hd;
}

/* Grey to RGB and an opaque alpha channel where the image has none: RGBA rows from libpng. */
static void animplay_png_expand_to_rgba(png_structp png, animplay_png_header hd) {
    if (hd.ctype == PNG_COLOR_TYPE_GRAY || hd.ctype == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    if ((hd.ctype & PNG_COLOR_MASK_ALPHA) == 0 && !hd.has_trns) png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
}

int animplay_png_decode_rgba(animplay_png_read_fn read, void *context,
                                           animplay_png_arena *arena,
                                           uint32_t width, uint32_t height,
                                           unsigned char *out, size_t stride, char *message) {
    animplay_png_source src;
    png_infop info = NULL;
    png_structp png = animplay_png_open(&src, read, context, arena, message, &info);
    if (png == NULL) return -1;
    /* png and info are not modified after setjmp, so they need not be volatile. */
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return -1;
    }
    animplay_png_header hd = animplay_png_read_header(png, info, width, height);
    /* Opaque 8-bit RGB or grey, not interlaced: libpng delivers 3 (1) bytes a pixel and the rows
     * are widened here. (Interlaced passes fill rows pixel by pixel, so they keep libpng's.) */
    int widen = hd.depth == 8 && !hd.has_trns && hd.interlace == PNG_INTERLACE_NONE
        && (hd.ctype == PNG_COLOR_TYPE_RGB || hd.ctype == PNG_COLOR_TYPE_GRAY);
    if (!widen) animplay_png_expand_to_rgba(png, hd);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    size_t channels = widen ? (hd.ctype == PNG_COLOR_TYPE_RGB ? 3 : 1) : 4;
#ifdef ANIMPLAY_X86_SSSE3
    int ssse3 = widen && animplay_cpu_has_ssse3();
#else
    int ssse3 = 0;
#endif
    if (png_get_rowbytes(png, info) != (size_t)width * channels) png_error(png, "unexpected row size");

    for (int pass = 0; pass < passes; pass++) {
        unsigned char *row = out;
        for (uint32_t y = 0; y < height; y++, row += stride) {
            png_read_row(png, row, NULL);
            if (widen) animplay_widen_to_rgba(row, width, channels == 1, ssse3);
        }
    }
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}

int animplay_png_decode_rows(animplay_png_read_fn read, void *context, animplay_png_arena *arena,
                             uint32_t width, uint32_t height, unsigned char *row,
                             animplay_png_row_fn on_row, void *row_context, char *message) {
    animplay_png_source src;
    png_infop info = NULL;
    png_structp png = animplay_png_open(&src, read, context, arena, message, &info);
    if (png == NULL) return -1;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return -1;
    }
    animplay_png_header hd = animplay_png_read_header(png, info, width, height);
    if (hd.interlace != PNG_INTERLACE_NONE) png_error(png, "an interlaced PNG cannot be decoded row by row");
    animplay_png_expand_to_rgba(png, hd);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)width * 4) png_error(png, "unexpected row size");
    for (uint32_t y = 0; y < height; y++) {
        png_read_row(png, row, NULL);
        on_row(row_context, y, row);
    }
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}

uint32_t animplay_crc32(const unsigned char *bytes, size_t count) {
    return (uint32_t)crc32_z(0L, bytes, count);
}

uint32_t animplay_crc32_update(uint32_t crc, const unsigned char *bytes, size_t count) {
    return (uint32_t)crc32_z(crc, bytes, count);
}
