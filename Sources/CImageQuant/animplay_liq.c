/* libimagequant, loaded with dlopen the first time a GIF is encoded.
 *
 * Why: only `convert` to GIF needs it, and it brings libgomp: linked, every start of animplay
 * mapped both (about 0.35 MB of resident pages, libgomp's initialisation) even to play a file.
 * The soname has been libimagequant.so.0 since 2.x (the C library and the Rust rewrite alike). */
#include "animplay_liq.h"
#include "animplay_lazy.h"
#include <pthread.h>

#define ANIMPLAY_LIQ_FUNCTIONS(X) \
    X(liq_attr_create) X(liq_attr_destroy) X(liq_set_quality) X(liq_set_max_colors) X(liq_set_speed) \
    X(liq_histogram_create) X(liq_histogram_add_image) X(liq_histogram_add_fixed_color) \
    X(liq_histogram_quantize) X(liq_histogram_destroy) X(liq_image_create_rgba) X(liq_image_quantize) \
    X(liq_image_destroy) X(liq_set_dithering_level) X(liq_write_remapped_image) X(liq_get_palette) \
    X(liq_result_destroy)

#define ANIMPLAY_LIQ_POINTER(name) static __typeof__(&name) p_##name;
ANIMPLAY_LIQ_FUNCTIONS(ANIMPLAY_LIQ_POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *failure = "libimagequant was not loaded";
static char failure_text[128];
static void (*set_omp_threads)(int);

static void load(void) {
    static const char *const sonames[] = { "libimagequant.so.0", "libimagequant.so", NULL };
    const animplay_lazy_symbol symbols[] = {
        ANIMPLAY_LIQ_FUNCTIONS(ANIMPLAY_LAZY_SYMBOL)
        /* Found in libimagequant's own dependencies (libgomp is loaded local to it), when its
         * build uses OpenMP. */
        { "omp_set_num_threads", (void **)&set_omp_threads, 1 },
    };
    failure = animplay_lazy_load("libimagequant", sonames, symbols, sizeof symbols / sizeof symbols[0],
                                 failure_text, sizeof failure_text);
}

const char *animplay_liq_load(void) {
    pthread_once(&once, load);
    return failure;
}

int animplay_liq_one_thread(void) {
    if (!set_omp_threads) return 0;
    set_omp_threads(1);
    return 1;
}

liq_attr *animplay_liq_attr_create(void) { return p_liq_attr_create(); }
void animplay_liq_attr_destroy(liq_attr *a) { p_liq_attr_destroy(a); }
liq_error animplay_liq_set_quality(liq_attr *a, int lo, int hi) { return p_liq_set_quality(a, lo, hi); }
liq_error animplay_liq_set_max_colors(liq_attr *a, int n) { return p_liq_set_max_colors(a, n); }
liq_error animplay_liq_set_speed(liq_attr *a, int s) { return p_liq_set_speed(a, s); }
liq_histogram *animplay_liq_histogram_create(const liq_attr *a) { return p_liq_histogram_create(a); }
liq_error animplay_liq_histogram_add_image(liq_histogram *h, const liq_attr *a, liq_image *i) { return p_liq_histogram_add_image(h, a, i); }
liq_error animplay_liq_histogram_add_fixed_color(liq_histogram *h, liq_color c, double g) { return p_liq_histogram_add_fixed_color(h, c, g); }
liq_error animplay_liq_histogram_quantize(liq_histogram *h, liq_attr *a, liq_result **r) { return p_liq_histogram_quantize(h, a, r); }
void animplay_liq_histogram_destroy(liq_histogram *h) { p_liq_histogram_destroy(h); }
liq_image *animplay_liq_image_create_rgba(const liq_attr *a, const void *b, int w, int h, double g) { return p_liq_image_create_rgba(a, b, w, h, g); }
liq_error animplay_liq_image_quantize(liq_image *i, liq_attr *a, liq_result **r) { return p_liq_image_quantize(i, a, r); }
void animplay_liq_image_destroy(liq_image *i) { p_liq_image_destroy(i); }
liq_error animplay_liq_set_dithering_level(liq_result *r, float d) { return p_liq_set_dithering_level(r, d); }
liq_error animplay_liq_write_remapped_image(liq_result *r, liq_image *i, void *b, size_t n) { return p_liq_write_remapped_image(r, i, b, n); }
const liq_palette *animplay_liq_get_palette(liq_result *r) { return p_liq_get_palette(r); }
void animplay_liq_result_destroy(liq_result *r) { p_liq_result_destroy(r); }
