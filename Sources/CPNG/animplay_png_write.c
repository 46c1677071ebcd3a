/* PNG encoding into memory (see include/animplay_png_write.h). */
#include "animplay_png_write.h"
#include "animplay_png.h"
#include <png.h>
#include "png_lazy.h"
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

void animplay_png_buffer_free(animplay_png_buffer *b) {
    free(b->data);
    b->data = NULL; b->length = 0; b->capacity = 0; b->failed = 0;
}

static void write_callback(png_structp png, png_bytep bytes, size_t n) {
    animplay_png_buffer *b = (animplay_png_buffer *)png_get_io_ptr(png);
    if (b->length + n > b->capacity) {
        size_t want = b->capacity ? b->capacity : 65536;
        while (want < b->length + n) want *= 2;
        unsigned char *bigger = (unsigned char *)realloc(b->data, want);
        if (bigger == NULL) { b->failed = 1; png_error(png, "out of memory"); }
        b->data = bigger; b->capacity = want;
    }
    memcpy(b->data + b->length, bytes, n);
    b->length += n;
}

static void flush_callback(png_structp png) { (void)png; }

static void on_error(png_structp png, png_const_charp msg) {
    (void)msg;
    png_longjmp(png, 1);
}

int animplay_png_encode_rgb(const unsigned char *rgb, uint32_t width, uint32_t height, size_t stride,
                            int level, animplay_png_buffer *out) {
    return animplay_png_encode(rgb, width, height, stride, 3, level, 0, out);
}

int animplay_png_encode(const unsigned char *pixels, uint32_t width, uint32_t height, size_t stride,
                        int channels, int level, int adaptive, animplay_png_buffer *out) {
    if (channels != 3 && channels != 4) return -1;
    if (animplay_png_load() != NULL) return -1;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, on_error, NULL);
    if (png == NULL) return -1;
    png_infop info = png_create_info_struct(png);
    if (info == NULL) { png_destroy_write_struct(&png, NULL); return -1; }
    /* png and info are not modified after setjmp, so they need not be volatile. */
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return -1;
    }
    png_set_write_fn(png, out, write_callback, flush_callback);
    png_set_compression_level(png, level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, adaptive ? PNG_ALL_FILTERS : PNG_FILTER_UP);
    png_set_IHDR(png, info, width, height, 8, channels == 4 ? PNG_COLOR_TYPE_RGBA : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    png_write_info(png, info);
    for (uint32_t y = 0; y < height; y++) png_write_row(png, pixels + (size_t)y * stride);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return out->failed ? -1 : 0;
}
