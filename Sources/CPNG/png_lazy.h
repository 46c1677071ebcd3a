#ifndef ANIMPLAY_PNG_LAZY_H
#define ANIMPLAY_PNG_LAZY_H
/* libpng, loaded on first use (animplay_lazy.h). Included after png.h by this target's C files:
 * every libpng function they call (also through libpng's own macros, such as png_jmpbuf) is
 * renamed below to a call through a pointer that animplay_png_load resolves. A function
 * missing from the list fails the link (nothing links libpng), so none is called directly. */
#include <png.h>

#define ANIMPLAY_PNG_FUNCTIONS(X) \
    X(png_create_info_struct) X(png_create_read_struct_2) X(png_create_write_struct) \
    X(png_destroy_read_struct) X(png_destroy_write_struct) X(png_error) X(png_get_IHDR) \
    X(png_get_error_ptr) X(png_get_io_ptr) X(png_get_mem_ptr) X(png_get_rowbytes) \
    X(png_get_valid) X(png_set_longjmp_fn) X(png_longjmp) X(png_read_end) X(png_read_info) \
    X(png_read_row) X(png_read_update_info) X(png_set_IHDR) X(png_set_add_alpha) \
    X(png_set_benign_errors) X(png_set_check_for_invalid_index) X(png_set_compression_level) \
    X(png_set_crc_action) X(png_set_expand_gray_1_2_4_to_8) X(png_set_filter) \
    X(png_set_gray_to_rgb) X(png_set_interlace_handling) X(png_set_option) \
    X(png_set_palette_to_rgb) X(png_set_read_fn) X(png_set_strip_16) X(png_set_tRNS_to_alpha) \
    X(png_set_user_limits) X(png_set_write_fn) X(png_write_end) X(png_write_info) \
    X(png_write_row)

#define ANIMPLAY_PNG_POINTER(name) extern __typeof__(&name) p_##name;
ANIMPLAY_PNG_FUNCTIONS(ANIMPLAY_PNG_POINTER)

#define png_create_info_struct (*p_png_create_info_struct)
#define png_create_read_struct_2 (*p_png_create_read_struct_2)
#define png_create_write_struct (*p_png_create_write_struct)
#define png_destroy_read_struct (*p_png_destroy_read_struct)
#define png_destroy_write_struct (*p_png_destroy_write_struct)
#define png_error (*p_png_error)
#define png_get_IHDR (*p_png_get_IHDR)
#define png_get_error_ptr (*p_png_get_error_ptr)
#define png_get_io_ptr (*p_png_get_io_ptr)
#define png_get_mem_ptr (*p_png_get_mem_ptr)
#define png_get_rowbytes (*p_png_get_rowbytes)
#define png_get_valid (*p_png_get_valid)
#define png_set_longjmp_fn (*p_png_set_longjmp_fn)
#define png_longjmp (*p_png_longjmp)
#define png_read_end (*p_png_read_end)
#define png_read_info (*p_png_read_info)
#define png_read_row (*p_png_read_row)
#define png_read_update_info (*p_png_read_update_info)
#define png_set_IHDR (*p_png_set_IHDR)
#define png_set_add_alpha (*p_png_set_add_alpha)
#define png_set_benign_errors (*p_png_set_benign_errors)
#define png_set_check_for_invalid_index (*p_png_set_check_for_invalid_index)
#define png_set_compression_level (*p_png_set_compression_level)
#define png_set_crc_action (*p_png_set_crc_action)
#define png_set_expand_gray_1_2_4_to_8 (*p_png_set_expand_gray_1_2_4_to_8)
#define png_set_filter (*p_png_set_filter)
#define png_set_gray_to_rgb (*p_png_set_gray_to_rgb)
#define png_set_interlace_handling (*p_png_set_interlace_handling)
#define png_set_option (*p_png_set_option)
#define png_set_palette_to_rgb (*p_png_set_palette_to_rgb)
#define png_set_read_fn (*p_png_set_read_fn)
#define png_set_strip_16 (*p_png_set_strip_16)
#define png_set_tRNS_to_alpha (*p_png_set_tRNS_to_alpha)
#define png_set_user_limits (*p_png_set_user_limits)
#define png_set_write_fn (*p_png_set_write_fn)
#define png_write_end (*p_png_write_end)
#define png_write_info (*p_png_write_info)
#define png_write_row (*p_png_write_row)

#endif
