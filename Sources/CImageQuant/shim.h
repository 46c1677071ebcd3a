#ifndef ANIMPLAY_CIMAGEQUANT_SHIM_H
#define ANIMPLAY_CIMAGEQUANT_SHIM_H
/* libimagequant (pngquant's and gifski's quantiser): palettes for GIF frames of more than 256 colours. */
#include <libimagequant.h>
#endif
