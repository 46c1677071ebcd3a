#ifndef ANIMPLAY_CFILEGUARD_H
#define ANIMPLAY_CFILEGUARD_H
// File-system calls Swift cannot make directly (openat is variadic), and the registry of
// partial cache files that signal handlers and exit remove (a C global written before the
// handlers can run; the handlers only call async-signal-safe unlinkat).
#include <sys/types.h>

/// openat with an explicit mode (the C function is variadic).
int animplay_openat(int dirfd, const char *name, int flags, mode_t mode);

/// Remembers `name` in the directory `dirfd` (duplicated: the caller keeps its own) as a
/// partial file to remove if the process is interrupted; returns a slot, or -1 when full.
/// The first call installs handlers for SIGINT, SIGTERM and SIGHUP where their disposition is
/// still the default (they remove the parts, then die of the signal as before) and an atexit
/// hook (a player's own handlers end the process through exit()).
int animplay_part_register(int dirfd, const char *name);
/// Forgets a slot (the file was renamed into place or removed).
void animplay_part_unregister(int slot);
/// Removes every registered part now (async-signal-safe).
void animplay_part_remove_all(void);
#endif
