#ifndef ANIMPLAY_THREAD_H
#define ANIMPLAY_THREAD_H
/* Starting a thread on another core than the one that starts it (Linux).
 *
 * Why: on this project's 2-core VM, a new thread is queued on its creator's core; while the
 * creator keeps working, the idle core took 0.3-3.7 ms to pull the new thread over (a C test:
 * pthread_create, then 5 ms of work; the thread started after 1.2-3.7 ms in 8 of 10 runs). The
 * first frame's halves (scaling, histogram, bands) each start a thread that must run beside its
 * creator at once, and the producer thread starts while the main thread sets up the screen.
 * Created with an affinity that leaves out the creator's core, the thread is placed on another
 * one at once (0.13-0.42 ms in the same test); once running, it takes back every core its
 * creator may use, so the scheduler moves it freely from then on. */
#include <pthread.h>

/* As pthread_create(thread, NULL, entry, arg), preferring another core than the caller's (when
 * the caller may run on more than one). Returns 0 or an errno value. */
int animplay_thread_create_elsewhere(pthread_t *thread, void *(*entry)(void *), void *arg);

/* How many cores the calling thread may run on (its affinity; 0 when unknown). */
int animplay_thread_cores(void);

#endif
