/* See include/animplay_rescue.h. */
#include "animplay_rescue.h"
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Signals whose default action ends the process, that animplay neither handles nor uses.
 * SIGINT, SIGTERM, SIGHUP and SIGTSTP are the screen's own (its signal pipe); SIGPIPE, SIGALRM
 * and the profiling timers belong to libraries and tools that may set them. */
static const int rescued[] = { SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV,
                               SIGSYS, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ };
#define RESCUED (sizeof rescued / sizeof rescued[0])

static struct sigaction previous[RESCUED];
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;
static int installed;

/* Filled while `armed` is 0; the handler reads them only after taking `armed` from 1. */
static unsigned char rescue_bytes[ANIMPLAY_RESCUE_MAX_BYTES];
static size_t rescue_count;
static int rescue_output = -1;
static int rescue_tty = -1;
static struct termios rescue_modes;
static atomic_int armed;

/* The main thread's stack may be what overflowed: the handler then runs on this one. */
static unsigned char alternate_stack[64 * 1024];

static long long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void write_within_budget(int fd, const unsigned char *bytes, size_t count) {
    long long deadline = now_ms() + 500;
    size_t done = 0;
    while (done < count) {
        long long left = deadline - now_ms();
        if (left <= 0) return;
        struct pollfd p = { .fd = fd, .events = POLLOUT };
        int ready = poll(&p, 1, (int)left);
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0 || !(p.revents & POLLOUT)) return;
        /* Small pieces: a tty write blocks until all of it fits, so a piece must fit what
         * the terminal is taking now. */
        size_t piece = count - done < 256 ? count - done : 256;
        ssize_t n = write(fd, bytes + done, piece);
        if (n > 0) done += (size_t)n;
        else if (n < 0 && errno != EINTR && errno != EAGAIN) return;
    }
}

static void rescue(int sig) {
    int saved_errno = errno;
    /* Once, by whichever thread gets here first (two threads may fault together). */
    if (atomic_exchange(&armed, 0)) {
        write_within_budget(rescue_output, rescue_bytes, rescue_count);
        if (rescue_tty >= 0) tcsetattr(rescue_tty, TCSANOW, &rescue_modes);
    }
    for (size_t i = 0; i < RESCUED; i++) {
        if (rescued[i] == sig) sigaction(sig, &previous[i], NULL);
    }
    /* Blocked while this handler runs, the signal raised again is delivered as it returns, to
     * what was there before (the default action, or a handler such as the Swift runtime's
     * backtracer in builds that link it), at the place it first interrupted: a fault's
     * instruction is not run again first. */
    raise(sig);
    errno = saved_errno;
}

static void install(void) {
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && (current.ss_flags & SS_DISABLE)) {
        stack_t alternate = { .ss_sp = alternate_stack, .ss_size = sizeof alternate_stack, .ss_flags = 0 };
        sigaltstack(&alternate, NULL);
    }
    for (size_t i = 0; i < RESCUED; i++) {
        struct sigaction found;
        if (sigaction(rescued[i], NULL, &found) != 0) continue;
        /* Ignored (inherited SIG_IGN): it ends nothing, and stays ignored. */
        if (!(found.sa_flags & SA_SIGINFO) && found.sa_handler == SIG_IGN) continue;
        previous[i] = found;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = rescue;
        sa.sa_flags = SA_ONSTACK;
        sigfillset(&sa.sa_mask);   /* nothing else runs on top of the rescue */
        sigaction(rescued[i], &sa, NULL);
    }
}

int animplay_rescue_arm(int output_fd, const unsigned char *bytes, size_t count, int tty_fd,
                        const struct termios *modes) {
    if (count > ANIMPLAY_RESCUE_MAX_BYTES) return -1;
    pthread_mutex_lock(&install_lock);
    if (!installed) { install(); installed = 1; }
    atomic_store(&armed, 0);
    memcpy(rescue_bytes, bytes, count);
    rescue_count = count;
    rescue_output = output_fd;
    rescue_tty = modes != NULL ? tty_fd : -1;
    if (modes != NULL) rescue_modes = *modes;
    atomic_store(&armed, 1);
    pthread_mutex_unlock(&install_lock);
    return 0;
}

void animplay_rescue_disarm(void) {
    pthread_mutex_lock(&install_lock);
    atomic_store(&armed, 0);
    pthread_mutex_unlock(&install_lock);
}
