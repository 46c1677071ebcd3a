#ifndef ANIMPLAY_RESCUE_H
#define ANIMPLAY_RESCUE_H
/* The terminal given back when the process dies of a signal it does not handle.
 *
 * Why: animplay restores the terminal on every way out it sees (q, Ctrl-C, Ctrl-Z, SIGTERM,
 * SIGHUP, errors), but a signal whose default action ends the process ended it with the tty's
 * echo off, the cursor hidden and the alternate screen up: Ctrl-\ (SIGQUIT: curses' cbreak
 * mode keeps it), a failed Swift check (SIGILL), SIGSEGV, SIGABRT, a stray `kill -USR1`.
 * The handler writes what undoes the screen, sets the tty's modes back, and then lets the
 * signal do what it would have done: the disposition found at install time comes back and
 * the signal is raised again, for the default action (a core dump stays a core dump; the shell
 * sees the same signal) or the handler that was there first (the Swift runtime's backtracer,
 * in builds that link it, then prints on a terminal given back).
 *
 * Async-signal-safe: the handler calls only clock_gettime, poll, write, tcsetattr, sigaction and
 * raise, on memory filled before it was armed. The bytes go out within a budget (500 ms): a terminal
 * that stopped reading (Ctrl-S) must not keep a dying process alive. */
#include <stddef.h>
#include <termios.h>

/* The most bytes a rescue writes. */
#define ANIMPLAY_RESCUE_MAX_BYTES 1024

/* Installs the handlers (the first time) and arms them: on a fatal signal, `bytes` go to
 * `output_fd` and `modes` are set on `tty_fd` (a descriptor that must stay open while armed;
 * -1: no modes to set). Signals the process ignores stay ignored (an inherited SIG_IGN).
 * Returns 0, or -1 when `count` exceeds ANIMPLAY_RESCUE_MAX_BYTES (nothing armed then). */
int animplay_rescue_arm(int output_fd, const unsigned char *bytes, size_t count, int tty_fd,
                        const struct termios *modes);

/* Nothing to undo any more: a fatal signal does only what it would have done. */
void animplay_rescue_disarm(void);

#endif
