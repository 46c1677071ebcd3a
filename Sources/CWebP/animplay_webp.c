/* libwebp, libwebpdemux and libwebpmux, loaded on first use (see include/animplay_webp.h). */
#include "animplay_webp.h"
#include "animplay_lazy.h"
#include <pthread.h>

/* One pointer per function, typed from libwebp's own declaration, by library. */
#define ANIMPLAY_WEBP_FUNCTIONS(X) \
    X(WebPGetInfo) X(WebPGetFeaturesInternal) X(WebPInitDecoderConfigInternal) X(WebPDecode) X(WebPFree) \
    X(WebPConfigInitInternal) X(WebPValidateConfig) X(WebPPictureInitInternal) X(WebPPictureFree) \
    X(WebPPictureImportRGBA)
#define ANIMPLAY_WEBPDEMUX_FUNCTIONS(X) \
    X(WebPDemuxInternal) X(WebPDemuxDelete) X(WebPDemuxGetI) X(WebPDemuxGetFrame) X(WebPDemuxReleaseIterator)
#define ANIMPLAY_WEBPMUX_FUNCTIONS(X) \
    X(WebPAnimEncoderOptionsInitInternal) X(WebPAnimEncoderNewInternal) X(WebPAnimEncoderAdd) \
    X(WebPAnimEncoderAssemble) X(WebPAnimEncoderGetError) X(WebPAnimEncoderDelete)
#define ANIMPLAY_WEBP_POINTER(name) static __typeof__(&name) p_##name;
ANIMPLAY_WEBP_FUNCTIONS(ANIMPLAY_WEBP_POINTER)
ANIMPLAY_WEBPDEMUX_FUNCTIONS(ANIMPLAY_WEBP_POINTER)
ANIMPLAY_WEBPMUX_FUNCTIONS(ANIMPLAY_WEBP_POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *failure;
static char failure_text[128];

static void load(void) {
    /* libwebp 1.x keeps these sonames (libwebp7, libwebpdemux2, libwebpmux3). */
    static const char *const webp[] = { "libwebp.so.7", "libwebp.so", NULL };
    static const char *const demux[] = { "libwebpdemux.so.2", "libwebpdemux.so", NULL };
    static const char *const mux[] = { "libwebpmux.so.3", "libwebpmux.so", NULL };
    const animplay_lazy_symbol webp_symbols[] = { ANIMPLAY_WEBP_FUNCTIONS(ANIMPLAY_LAZY_SYMBOL) };
    const animplay_lazy_symbol demux_symbols[] = { ANIMPLAY_WEBPDEMUX_FUNCTIONS(ANIMPLAY_LAZY_SYMBOL) };
    const animplay_lazy_symbol mux_symbols[] = { ANIMPLAY_WEBPMUX_FUNCTIONS(ANIMPLAY_LAZY_SYMBOL) };
    failure = animplay_lazy_load("libwebp", webp, webp_symbols, sizeof webp_symbols / sizeof webp_symbols[0],
                                 failure_text, sizeof failure_text);
    if (failure == NULL)
        failure = animplay_lazy_load("libwebpdemux", demux, demux_symbols, sizeof demux_symbols / sizeof demux_symbols[0],
                                     failure_text, sizeof failure_text);
    if (failure == NULL)
        failure = animplay_lazy_load("libwebpmux", mux, mux_symbols, sizeof mux_symbols / sizeof mux_symbols[0],
                                     failure_text, sizeof failure_text);
}

const char *animplay_webp_load(void) {
    pthread_once(&once, load);
    return failure;
}

int animplay_WebPGetInfo(const uint8_t *data, size_t size, int *width, int *height) { return p_WebPGetInfo(data, size, width, height); }
VP8StatusCode animplay_WebPGetFeatures(const uint8_t *data, size_t size, WebPBitstreamFeatures *features) {
    return p_WebPGetFeaturesInternal(data, size, features, WEBP_DECODER_ABI_VERSION);
}
int animplay_WebPInitDecoderConfig(WebPDecoderConfig *config) { return p_WebPInitDecoderConfigInternal(config, WEBP_DECODER_ABI_VERSION); }
VP8StatusCode animplay_WebPDecode(const uint8_t *data, size_t size, WebPDecoderConfig *config) { return p_WebPDecode(data, size, config); }

WebPDemuxer *animplay_WebPDemuxPartial(const WebPData *data, WebPDemuxState *state) {
    return p_WebPDemuxInternal(data, 1, state, WEBP_DEMUX_ABI_VERSION);
}
void animplay_WebPDemuxDelete(WebPDemuxer *dmux) { p_WebPDemuxDelete(dmux); }
uint32_t animplay_WebPDemuxGetI(const WebPDemuxer *dmux, WebPFormatFeature feature) { return p_WebPDemuxGetI(dmux, feature); }
int animplay_WebPDemuxGetFrame(const WebPDemuxer *dmux, int frame, WebPIterator *iter) { return p_WebPDemuxGetFrame(dmux, frame, iter); }
void animplay_WebPDemuxReleaseIterator(WebPIterator *iter) { p_WebPDemuxReleaseIterator(iter); }

int animplay_WebPConfigInit(WebPConfig *config) {
    return p_WebPConfigInitInternal(config, WEBP_PRESET_DEFAULT, 75.f, WEBP_ENCODER_ABI_VERSION);
}
int animplay_WebPValidateConfig(const WebPConfig *config) { return p_WebPValidateConfig(config); }
int animplay_WebPPictureInit(WebPPicture *picture) { return p_WebPPictureInitInternal(picture, WEBP_ENCODER_ABI_VERSION); }
void animplay_WebPPictureFree(WebPPicture *picture) { p_WebPPictureFree(picture); }
int animplay_WebPPictureImportRGBA(WebPPicture *picture, const uint8_t *rgba, int stride) {
    return p_WebPPictureImportRGBA(picture, rgba, stride);
}
int animplay_WebPAnimEncoderOptionsInit(WebPAnimEncoderOptions *options) {
    return p_WebPAnimEncoderOptionsInitInternal(options, WEBP_MUX_ABI_VERSION);
}
WebPAnimEncoder *animplay_WebPAnimEncoderNew(int width, int height, const WebPAnimEncoderOptions *options) {
    return p_WebPAnimEncoderNewInternal(width, height, options, WEBP_MUX_ABI_VERSION);
}
int animplay_WebPAnimEncoderAdd(WebPAnimEncoder *encoder, WebPPicture *frame, int timestamp, const WebPConfig *config) {
    return p_WebPAnimEncoderAdd(encoder, frame, timestamp, config);
}
int animplay_WebPAnimEncoderAssemble(WebPAnimEncoder *encoder, WebPData *data) { return p_WebPAnimEncoderAssemble(encoder, data); }
const char *animplay_WebPAnimEncoderGetError(WebPAnimEncoder *encoder) { return p_WebPAnimEncoderGetError(encoder); }
void animplay_WebPAnimEncoderDelete(WebPAnimEncoder *encoder) { p_WebPAnimEncoderDelete(encoder); }
void animplay_WebPDataClear(WebPData *data) {
    if (data == NULL) return;
    p_WebPFree((void *)data->bytes);
    WebPDataInit(data);
}
