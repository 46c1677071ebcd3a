#ifndef ANIMPLAY_CIMAGEQUANT_SHIM_H
#define ANIMPLAY_CIMAGEQUANT_SHIM_H
/* libimagequant (pngquant's and gifski's quantiser): palettes for GIF frames of more than 256 colours. */
#include <libimagequant.h>
#include <dlfcn.h>

/* Debian builds libimagequant with OpenMP. Its parallel loops are short (one frame's histogram
 * or remap), and libgomp's idle threads spin-wait between them: measured, 38 % of the CPU time of
 * a 40-frame conversion went to spinning. One thread for the calling thread's OpenMP regions
 * stops that (OpenMP settings are per thread: called before each use). Looked up at run time:
 * libgomp is loaded with libimagequant, but linking it by name would tie the build to gcc's
 * library folder, and a libimagequant without OpenMP has none. */
static inline void animplay_liq_one_thread(void) {
    void *self = dlopen(0, RTLD_NOW);
    if (!self) return;
    void (*set)(int) = (void (*)(int))dlsym(self, "omp_set_num_threads");
    if (set) set(1);
    dlclose(self);
}
#endif
