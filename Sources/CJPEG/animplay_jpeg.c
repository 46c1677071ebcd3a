/* libjpeg(-turbo) behind a setjmp-free interface (see include/animplay_jpeg.h), loaded on the
 * first JPEG (animplay_lazy.h): every call below goes through a pointer resolved then. */
#include "animplay_jpeg.h"
#include "animplay_lazy.h"
#include <pthread.h>
#include <stdio.h>
#include <setjmp.h>
#include <string.h>
#include <jpeglib.h>

#define ANIMPLAY_JPEG_FUNCTIONS(X) \
    X(jpeg_std_error) X(jpeg_CreateDecompress) X(jpeg_destroy_decompress) X(jpeg_mem_src) \
    X(jpeg_read_header) X(jpeg_start_decompress) X(jpeg_read_scanlines) X(jpeg_finish_decompress)
#define ANIMPLAY_JPEG_POINTER(name) static __typeof__(&name) p_##name;
ANIMPLAY_JPEG_FUNCTIONS(ANIMPLAY_JPEG_POINTER)
/* The soname of the ABI the headers describe (62 for libjpeg62-turbo, 80 for a jpeg8 build). */
#define ANIMPLAY_JPEG_TEXT(x) #x
#define ANIMPLAY_JPEG_SONAME(version) "libjpeg.so." ANIMPLAY_JPEG_TEXT(version)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *failure;
static char failure_text[128];

static void load(void) {
    static const char *const sonames[] = { ANIMPLAY_JPEG_SONAME(JPEG_LIB_VERSION), "libjpeg.so", NULL };
    const animplay_lazy_symbol symbols[] = { ANIMPLAY_JPEG_FUNCTIONS(ANIMPLAY_LAZY_SYMBOL) };
    failure = animplay_lazy_load("libjpeg", sonames, symbols, sizeof symbols / sizeof symbols[0],
                                 failure_text, sizeof failure_text);
}

/* libjpeg loaded (once): 0, or -1 with why not in `message` (128 bytes). */
static int animplay_jpeg_loaded(char *message) {
    pthread_once(&once, load);
    if (failure == NULL) return 0;
    snprintf(message, 128, "%s", failure);
    return -1;
}

/* libjpeg calls error_exit on a fatal error and expects it not to return: it longjmps to the
 * setjmp in the function that started the work, always in this file. Warnings (corrupt data
 * that libjpeg works around) are counted and the first one kept. */
typedef struct animplay_jpeg_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char *message;
    int warnings;
    int max_scans;
} animplay_jpeg_error;

static void animplay_jpeg_error_exit(j_common_ptr cinfo) {
    animplay_jpeg_error *e = (animplay_jpeg_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    e->pub.format_message(cinfo, text);
    strncpy(e->message, text, 127);
    e->message[127] = 0;
    longjmp(e->jump, 1);
}

static void animplay_jpeg_emit_message(j_common_ptr cinfo, int level) {
    animplay_jpeg_error *e = (animplay_jpeg_error *)cinfo->err;
    if (level >= 0) return;                 /* trace messages */
    if (e->warnings++ == 0) {
        char text[JMSG_LENGTH_MAX];
        e->pub.format_message(cinfo, text);
        strncpy(e->message, text, 127);
        e->message[127] = 0;
    }
}

static void animplay_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

/* Called between scans and rows: stops a file with too many scans. */
static void animplay_jpeg_progress(j_common_ptr cinfo) {
    animplay_jpeg_error *e = (animplay_jpeg_error *)cinfo->err;
    if (cinfo->is_decompressor) {
        j_decompress_ptr d = (j_decompress_ptr)cinfo;
        if (e->max_scans > 0 && d->input_scan_number > e->max_scans) {
            snprintf(e->message, 128, "more than %d scans", e->max_scans);
            longjmp(e->jump, 1);
        }
    }
}

static void animplay_jpeg_setup(struct jpeg_decompress_struct *cinfo, animplay_jpeg_error *err,
                                struct jpeg_progress_mgr *progress, char *message, int max_scans) {
    memset(err, 0, sizeof *err);
    cinfo->err = p_jpeg_std_error(&err->pub);
    err->pub.error_exit = animplay_jpeg_error_exit;
    err->pub.emit_message = animplay_jpeg_emit_message;
    err->pub.output_message = animplay_jpeg_output_message;
    err->message = message;
    err->max_scans = max_scans;
    progress->progress_monitor = animplay_jpeg_progress;
    message[0] = 0;
}

int animplay_jpeg_read_header(const unsigned char *data, size_t size, animplay_jpeg_header *header,
                              char *message) {
    if (animplay_jpeg_loaded(message) != 0) return -1;
    struct jpeg_decompress_struct cinfo;
    animplay_jpeg_error err;
    struct jpeg_progress_mgr progress;
    animplay_jpeg_setup(&cinfo, &err, &progress, message, 0);
    if (setjmp(err.jump)) {
        p_jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    p_jpeg_CreateDecompress(&cinfo, JPEG_LIB_VERSION, sizeof(struct jpeg_decompress_struct));
    p_jpeg_mem_src(&cinfo, data, (unsigned long)size);
    p_jpeg_read_header(&cinfo, TRUE);
    header->width = cinfo.image_width;
    header->height = cinfo.image_height;
    header->components = cinfo.num_components;
    header->progressive = cinfo.progressive_mode ? 1 : 0;
    header->adobe = cinfo.saw_Adobe_marker ? 1 : 0;
    p_jpeg_destroy_decompress(&cinfo);
    return 0;
}

int animplay_jpeg_decode_rgba(const unsigned char *data, size_t size, unsigned scale_num,
                              unsigned char *out, size_t stride, uint32_t width, uint32_t height,
                              size_t max_memory, int max_scans, char *message) {
    if (animplay_jpeg_loaded(message) != 0) return -1;
    struct jpeg_decompress_struct cinfo;
    animplay_jpeg_error err;
    struct jpeg_progress_mgr progress;
    animplay_jpeg_setup(&cinfo, &err, &progress, message, max_scans);
    if (setjmp(err.jump)) {
        p_jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    p_jpeg_CreateDecompress(&cinfo, JPEG_LIB_VERSION, sizeof(struct jpeg_decompress_struct));
    cinfo.progress = &progress;
    if (max_memory > 0) cinfo.mem->max_memory_to_use = (long)max_memory;
    p_jpeg_mem_src(&cinfo, data, (unsigned long)size);
    p_jpeg_read_header(&cinfo, TRUE);
    int cmyk = cinfo.num_components == 4;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    cinfo.dct_method = JDCT_ISLOW;
    cinfo.do_fancy_upsampling = TRUE;
    cinfo.dither_mode = JDITHER_NONE;
    cinfo.scale_num = scale_num;
    cinfo.scale_denom = 8;
    p_jpeg_start_decompress(&cinfo);
    if (cinfo.output_width != width || cinfo.output_height != height || cinfo.output_components != 4) {
        snprintf(message, 128, "decoded size %ux%u, expected %ux%u", cinfo.output_width, cinfo.output_height,
                 width, height);
        p_jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        unsigned char *row = out + (size_t)cinfo.output_scanline * stride;
        JSAMPROW rows[1] = { row };
        if (p_jpeg_read_scanlines(&cinfo, rows, 1) != 1) break;
        if (cmyk) {
            /* Inverted CMYK (Adobe) to RGB in place, as Chromium: R = C * K / 255. */
            for (uint32_t x = 0; x < width; x++) {
                unsigned char *p = row + 4 * x;
                unsigned k = p[3];
                p[0] = (unsigned char)(p[0] * k / 255);
                p[1] = (unsigned char)(p[1] * k / 255);
                p[2] = (unsigned char)(p[2] * k / 255);
                p[3] = 0xFF;
            }
        }
    }
    p_jpeg_finish_decompress(&cinfo);
    p_jpeg_destroy_decompress(&cinfo);
    return err.warnings > 0 ? 1 : 0;
}
