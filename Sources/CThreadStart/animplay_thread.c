/* See include/animplay_thread.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "animplay_thread.h"
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#ifdef __linux__
typedef struct animplay_thread_start {
    void *(*entry)(void *);
    void *arg;
    cpu_set_t allowed;      /* the creator's cores, given back to the thread once it runs */
    int placed;
} animplay_thread_start;

static void *animplay_thread_trampoline(void *raw) {
    animplay_thread_start start = *(animplay_thread_start *)raw;
    free(raw);
    if (start.placed) pthread_setaffinity_np(pthread_self(), sizeof start.allowed, &start.allowed);
    return start.entry(start.arg);
}

int animplay_thread_create_elsewhere(pthread_t *thread, void *(*entry)(void *), void *arg) {
    animplay_thread_start *start = malloc(sizeof *start);
    if (start == NULL) return pthread_create(thread, NULL, entry, arg);
    start->entry = entry;
    start->arg = arg;
    start->placed = 0;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) { free(start); return pthread_create(thread, NULL, entry, arg); }
    int cpu = sched_getcpu();
    if (cpu >= 0 && sched_getaffinity(0, sizeof start->allowed, &start->allowed) == 0
        && CPU_ISSET(cpu, &start->allowed) && CPU_COUNT(&start->allowed) > 1) {
        cpu_set_t others = start->allowed;
        CPU_CLR(cpu, &others);
        start->placed = pthread_attr_setaffinity_np(&attr, sizeof others, &others) == 0;
    }
    int rc = pthread_create(thread, start->placed ? &attr : NULL, animplay_thread_trampoline, start);
    if (rc == EINVAL && start->placed) {
        /* The cores changed under us (a cpuset): started without a preference. */
        start->placed = 0;
        rc = pthread_create(thread, NULL, animplay_thread_trampoline, start);
    }
    pthread_attr_destroy(&attr);
    if (rc != 0) free(start);
    return rc;
}

int animplay_thread_cores(void) {
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
}
#else
int animplay_thread_cores(void) { return 0; }

int animplay_thread_create_elsewhere(pthread_t *thread, void *(*entry)(void *), void *arg) {
    return pthread_create(thread, NULL, entry, arg);
}
#endif
