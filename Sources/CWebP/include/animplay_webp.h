#ifndef ANIMPLAY_WEBP_H
#define ANIMPLAY_WEBP_H
/* libwebp for Swift (decoding, demuxing, WebPAnimEncoder), loaded with dlopen on first use (see
 * CLazyLib's animplay_lazy.h): a GIF or PNG played needs none of its three libraries.
 *
 * The headers supply libwebp's types and constants; every function animplay calls goes through
 * a wrapper of the same name with the prefix `animplay_` (nothing links libwebp, so a direct
 * call fails the link). The *Init and WebPDemuxPartial wrappers pass the headers' ABI
 * versions, as libwebp's own inline functions do. Call animplay_webp_load first: the wrappers
 * must not be called when it failed. */
#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

/* Loads libwebp, libwebpdemux and libwebpmux (once; any thread). NULL when they are ready, else
 * why not (static text, e.g. "libwebpdemux is not installed (libwebpdemux.so.2)"). */
const char *animplay_webp_load(void);

int animplay_WebPGetInfo(const uint8_t *data, size_t size, int *width, int *height);
VP8StatusCode animplay_WebPGetFeatures(const uint8_t *data, size_t size, WebPBitstreamFeatures *features);
int animplay_WebPInitDecoderConfig(WebPDecoderConfig *config);
VP8StatusCode animplay_WebPDecode(const uint8_t *data, size_t size, WebPDecoderConfig *config);

WebPDemuxer *animplay_WebPDemuxPartial(const WebPData *data, WebPDemuxState *state);
void animplay_WebPDemuxDelete(WebPDemuxer *dmux);
uint32_t animplay_WebPDemuxGetI(const WebPDemuxer *dmux, WebPFormatFeature feature);
int animplay_WebPDemuxGetFrame(const WebPDemuxer *dmux, int frame, WebPIterator *iter);
void animplay_WebPDemuxReleaseIterator(WebPIterator *iter);

int animplay_WebPConfigInit(WebPConfig *config);
int animplay_WebPValidateConfig(const WebPConfig *config);
int animplay_WebPPictureInit(WebPPicture *picture);
void animplay_WebPPictureFree(WebPPicture *picture);
int animplay_WebPPictureImportRGBA(WebPPicture *picture, const uint8_t *rgba, int stride);
int animplay_WebPAnimEncoderOptionsInit(WebPAnimEncoderOptions *options);
WebPAnimEncoder *animplay_WebPAnimEncoderNew(int width, int height, const WebPAnimEncoderOptions *options);
int animplay_WebPAnimEncoderAdd(WebPAnimEncoder *encoder, WebPPicture *frame, int timestamp, const WebPConfig *config);
int animplay_WebPAnimEncoderAssemble(WebPAnimEncoder *encoder, WebPData *data);
const char *animplay_WebPAnimEncoderGetError(WebPAnimEncoder *encoder);
void animplay_WebPAnimEncoderDelete(WebPAnimEncoder *encoder);
/* Frees what WebPAnimEncoderAssemble put in `data` (libwebp's WebPDataClear). */
void animplay_WebPDataClear(WebPData *data);
#endif
