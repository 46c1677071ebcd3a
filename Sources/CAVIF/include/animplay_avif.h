#ifndef ANIMPLAY_AVIF_H
#define ANIMPLAY_AVIF_H
/* libavif for Swift, loaded on first use (see animplay_avif.c for why).
 *
 * The header supplies libavif's types and constants; every function animplay calls goes through
 * a wrapper of the same name with the prefix `animplay_`, which calls libavif once it is loaded.
 * Call animplay_avif_load first: the wrappers must not be called when it failed. */
#include <avif/avif.h>

/* Loads libavif (once; any thread). NULL when it is ready, else why it is not (static text:
 * not installed, or a version other than the one animplay was built against). */
const char *animplay_avif_load(void);

avifDecoder *animplay_avifDecoderCreate(void);
void animplay_avifDecoderDestroy(avifDecoder *decoder);
avifResult animplay_avifDecoderSetIOMemory(avifDecoder *decoder, const uint8_t *data, size_t size);
avifResult animplay_avifDecoderParse(avifDecoder *decoder);
avifResult animplay_avifDecoderNextImage(avifDecoder *decoder);
avifResult animplay_avifDecoderNthImage(avifDecoder *decoder, uint32_t frameIndex);
avifResult animplay_avifDecoderReset(avifDecoder *decoder);
avifResult animplay_avifDecoderNthImageTiming(const avifDecoder *decoder, uint32_t frameIndex, avifImageTiming *outTiming);
const char *animplay_avifResultToString(avifResult result);
void animplay_avifRGBImageSetDefaults(avifRGBImage *rgb, const avifImage *image);
avifResult animplay_avifImageYUVToRGB(const avifImage *image, avifRGBImage *rgb);
avifResult animplay_avifImageSetViewRect(avifImage *dstImage, const avifImage *srcImage, const avifCropRect *rect);
avifImage *animplay_avifImageCreate(uint32_t width, uint32_t height, uint32_t depth, avifPixelFormat yuvFormat);
avifResult animplay_avifImageAllocatePlanes(avifImage *image, avifPlanesFlags planes);
void animplay_avifImageDestroy(avifImage *image);
avifResult animplay_avifRGBImageUnpremultiplyAlpha(avifRGBImage *rgb);
#endif
