#ifndef ANIMPLAY_LIQ_H
#define ANIMPLAY_LIQ_H
/* libimagequant (pngquant's and gifski's quantiser: palettes for GIF frames of more than 256
 * colours), loaded on first use (see animplay_liq.c for why). Its types and constants come from
 * its header; each function animplay calls has a wrapper named `animplay_` + its name. Call
 * animplay_liq_load first: the wrappers must not be called when it failed. */
#include <libimagequant.h>

/* Loads libimagequant (once; any thread). NULL when it is ready, else why it is not. */
const char *animplay_liq_load(void);

/* Debian builds libimagequant with OpenMP. Its parallel loops are short (one frame's histogram
 * or remap), and libgomp's idle threads spin-wait between them: measured, 38 % of the CPU time of
 * a 40-frame conversion went to spinning. One thread for the calling thread's OpenMP regions
 * stops that (OpenMP settings are per thread: called before each use). A libimagequant without
 * OpenMP has no libgomp: then this does nothing. 1 when it set the threads, 0 when there is no
 * libgomp to set. */
int animplay_liq_one_thread(void);

liq_attr *animplay_liq_attr_create(void);
void animplay_liq_attr_destroy(liq_attr *attr);
liq_error animplay_liq_set_quality(liq_attr *attr, int minimum, int maximum);
liq_error animplay_liq_set_max_colors(liq_attr *attr, int colors);
liq_error animplay_liq_set_speed(liq_attr *attr, int speed);
liq_histogram *animplay_liq_histogram_create(const liq_attr *attr);
liq_error animplay_liq_histogram_add_image(liq_histogram *hist, const liq_attr *attr, liq_image *image);
liq_error animplay_liq_histogram_add_fixed_color(liq_histogram *hist, liq_color color, double gamma);
liq_error animplay_liq_histogram_quantize(liq_histogram *hist, liq_attr *options, liq_result **result);
void animplay_liq_histogram_destroy(liq_histogram *hist);
liq_image *animplay_liq_image_create_rgba(const liq_attr *attr, const void *bitmap, int width, int height, double gamma);
liq_error animplay_liq_image_quantize(liq_image *image, liq_attr *options, liq_result **result);
void animplay_liq_image_destroy(liq_image *image);
liq_error animplay_liq_set_dithering_level(liq_result *result, float level);
liq_error animplay_liq_write_remapped_image(liq_result *result, liq_image *image, void *buffer, size_t size);
const liq_palette *animplay_liq_get_palette(liq_result *result);
void animplay_liq_result_destroy(liq_result *result);
#endif
