/* libavif, loaded with dlopen the first time an AVIF is opened.
 *
 * Why: libavif brings dav1d, libgav1 (and 13 abseil libraries), rav1e, SVT-AV1, libaom and libyuv:
 * linked, every start of animplay mapped those 20 libraries (about 2.3 MB of resident pages)
 * even to play a GIF. Only AVIF files need them.
 *
 * Which library: the one the headers came from. avifDecoder and avifImage are structs animplay
 * reads and writes directly, so a libavif of another minor version (another layout) must not be
 * used: the soname for the headers' version is tried first, then libavif-dev's unversioned link,
 * and the loaded library's avifVersion() must match the headers' major.minor. */
#include "animplay_avif.h"
#include "animplay_lazy.h"
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define ANIMPLAY_AVIF_FUNCTIONS(X) \
    X(avifDecoderCreate) X(avifDecoderDestroy) X(avifDecoderSetIOMemory) X(avifDecoderParse) \
    X(avifDecoderNextImage) X(avifDecoderNthImage) X(avifDecoderReset) X(avifDecoderNthImageTiming) \
    X(avifResultToString) X(avifRGBImageSetDefaults) X(avifImageYUVToRGB) X(avifImageSetViewRect) \
    X(avifImageCreate) X(avifImageAllocatePlanes) X(avifImageDestroy) X(avifRGBImageUnpremultiplyAlpha)

/* One pointer per function, typed from libavif's own declaration. */
#define ANIMPLAY_AVIF_POINTER(name) static __typeof__(&name) p_##name;
ANIMPLAY_AVIF_FUNCTIONS(ANIMPLAY_AVIF_POINTER)
ANIMPLAY_AVIF_POINTER(avifVersion)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *failure = "libavif was not loaded";
static char failure_text[128];

/* libavif 1.x keeps soname 16; 0.11 was 15, 0.10 14, 0.9 13. */
#if AVIF_VERSION_MAJOR >= 1
#define ANIMPLAY_AVIF_SONAME "libavif.so.16"
#elif AVIF_VERSION_MINOR == 11
#define ANIMPLAY_AVIF_SONAME "libavif.so.15"
#elif AVIF_VERSION_MINOR == 10
#define ANIMPLAY_AVIF_SONAME "libavif.so.14"
#else
#define ANIMPLAY_AVIF_SONAME "libavif.so.13"
#endif

/* The version first (another minor version may lack a function: the message says why), then
 * the functions, from the same library (a second dlopen of a soname returns the same handle). */
static void load(void) {
    static const char *const sonames[] = { ANIMPLAY_AVIF_SONAME, "libavif.so", NULL };
    const animplay_lazy_symbol version[] = { ANIMPLAY_LAZY_SYMBOL(avifVersion) };
    failure = animplay_lazy_load("libavif", sonames, version, 1, failure_text, sizeof failure_text);
    if (failure) return;
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.", AVIF_VERSION_MAJOR, AVIF_VERSION_MINOR);
    if (strncmp(p_avifVersion(), expected, strlen(expected)) != 0) {
        failure = "the installed libavif is not the version animplay was built with";
        return;
    }
    const animplay_lazy_symbol symbols[] = { ANIMPLAY_AVIF_FUNCTIONS(ANIMPLAY_LAZY_SYMBOL) };
    failure = animplay_lazy_load("libavif", sonames, symbols, sizeof symbols / sizeof symbols[0],
                                 failure_text, sizeof failure_text);
}

const char *animplay_avif_load(void) {
    pthread_once(&once, load);
    return failure;
}

avifDecoder *animplay_avifDecoderCreate(void) { return p_avifDecoderCreate(); }
void animplay_avifDecoderDestroy(avifDecoder *d) { p_avifDecoderDestroy(d); }
avifResult animplay_avifDecoderSetIOMemory(avifDecoder *d, const uint8_t *data, size_t size) { return p_avifDecoderSetIOMemory(d, data, size); }
avifResult animplay_avifDecoderParse(avifDecoder *d) { return p_avifDecoderParse(d); }
avifResult animplay_avifDecoderNextImage(avifDecoder *d) { return p_avifDecoderNextImage(d); }
avifResult animplay_avifDecoderNthImage(avifDecoder *d, uint32_t i) { return p_avifDecoderNthImage(d, i); }
avifResult animplay_avifDecoderReset(avifDecoder *d) { return p_avifDecoderReset(d); }
avifResult animplay_avifDecoderNthImageTiming(const avifDecoder *d, uint32_t i, avifImageTiming *t) { return p_avifDecoderNthImageTiming(d, i, t); }
const char *animplay_avifResultToString(avifResult r) { return p_avifResultToString(r); }
void animplay_avifRGBImageSetDefaults(avifRGBImage *rgb, const avifImage *image) { p_avifRGBImageSetDefaults(rgb, image); }
avifResult animplay_avifImageYUVToRGB(const avifImage *image, avifRGBImage *rgb) { return p_avifImageYUVToRGB(image, rgb); }
avifResult animplay_avifImageSetViewRect(avifImage *dst, const avifImage *src, const avifCropRect *rect) { return p_avifImageSetViewRect(dst, src, rect); }
avifImage *animplay_avifImageCreate(uint32_t w, uint32_t h, uint32_t depth, avifPixelFormat format) { return p_avifImageCreate(w, h, depth, format); }
avifResult animplay_avifImageAllocatePlanes(avifImage *image, avifPlanesFlags planes) { return p_avifImageAllocatePlanes(image, planes); }
void animplay_avifImageDestroy(avifImage *image) { p_avifImageDestroy(image); }
avifResult animplay_avifRGBImageUnpremultiplyAlpha(avifRGBImage *rgb) { return p_avifRGBImageUnpremultiplyAlpha(rgb); }
