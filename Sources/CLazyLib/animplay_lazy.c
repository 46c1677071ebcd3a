/* See include/animplay_lazy.h. */
#include "animplay_lazy.h"
#include <dlfcn.h>
#include <stdio.h>

const char *animplay_lazy_load(const char *library, const char *const *sonames,
                               const animplay_lazy_symbol *symbols, size_t count,
                               char *message, size_t message_size) {
    void *handle = NULL;
    for (const char *const *name = sonames; *name != NULL && handle == NULL; name++)
        handle = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(message, message_size, "%s is not installed (%s)", library, sonames[0]);
        return message;
    }
    for (size_t i = 0; i < count; i++) {
        *symbols[i].slot = dlsym(handle, symbols[i].name);
        if (*symbols[i].slot == NULL && !symbols[i].optional) {
            /* A library too old for what animplay calls; it stays loaded (harmless, and a
             * dlclose could unmap what another thread resolved from it). */
            snprintf(message, message_size, "the installed %s lacks %s", library, symbols[i].name);
            return message;
        }
    }
    return NULL;
}
