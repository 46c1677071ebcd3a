#include "cfileguard.h"
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int animplay_openat(int dirfd, const char *name, int flags, mode_t mode) {
    return openat(dirfd, name, flags, mode);
}

// A few slots: one per download being stored at once (a process stores one or two).
enum { SLOTS = 16, NAME_MAX_LEN = 255 };
struct part { volatile sig_atomic_t used; int dirfd; char name[NAME_MAX_LEN + 1]; };
static struct part parts[SLOTS];
static pthread_mutex_t parts_lock = PTHREAD_MUTEX_INITIALIZER;
static int installed;

static void remove_all(void) {
    for (int i = 0; i < SLOTS; i++)
        if (parts[i].used) unlinkat(parts[i].dirfd, parts[i].name, 0);
}

void animplay_part_remove_all(void) { remove_all(); }

static void on_signal(int sig) {
    remove_all();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install(void) {
    int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
    atexit(remove_all);
}

int animplay_part_register(int dirfd, const char *name) {
    if (strlen(name) > NAME_MAX_LEN) return -1;
    int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return -1;
    pthread_mutex_lock(&parts_lock);
    if (!installed) { install(); installed = 1; }
    int slot = -1;
    for (int i = 0; i < SLOTS; i++) {
        if (!parts[i].used) {
            parts[i].dirfd = fd;
            strcpy(parts[i].name, name);
            parts[i].used = 1;          // last: a handler never sees a half-written slot
            slot = i;
            break;
        }
    }
    pthread_mutex_unlock(&parts_lock);
    if (slot < 0) close(fd);
    return slot;
}

void animplay_part_unregister(int slot) {
    if (slot < 0 || slot >= SLOTS) return;
    pthread_mutex_lock(&parts_lock);
    if (parts[slot].used) {
        parts[slot].used = 0;
        close(parts[slot].dirfd);
    }
    pthread_mutex_unlock(&parts_lock);
}
