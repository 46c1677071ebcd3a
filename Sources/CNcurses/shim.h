#ifndef ANIMPLAY_CNCURSES_SHIM_H
#define ANIMPLAY_CNCURSES_SHIM_H
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <curses.h>
#include <term.h>
#include <stdio.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>
#include <sys/ioctl.h>

// C globals are not concurrency-safe in Swift 6: read them through functions.
static inline WINDOW *animplay_stdscr(void) { return stdscr; }
static inline WINDOW *animplay_curscr(void) { return curscr; }
static inline int animplay_colors(void) { return COLORS; }
static inline int animplay_color_pairs(void) { return COLOR_PAIRS; }
static inline int animplay_lines(void) { return LINES; }
static inline int animplay_cols(void) { return COLS; }
static inline FILE *animplay_stdout(void) { return stdout; }
static inline FILE *animplay_stderr(void) { return stderr; }
static inline FILE *animplay_stdin(void) { return stdin; }

// A terminfo string capability, or NULL when absent or cancelled.
static inline const char *animplay_tigetstr(const char *name) {
    char *s = tigetstr(name);
    return (s == NULL || s == (char *)-1) ? NULL : s;
}

// A terminfo numeric capability, or -1 when absent.
static inline int animplay_tigetnum(const char *name) {
    int n = tigetnum(name);
    return n < 0 ? -1 : n;
}

// True when the terminfo entry declares direct colour (the "RGB" extension, in any form).
static inline int animplay_has_rgb(void) {
    if (tigetflag("RGB") > 0) return 1;
    if (tigetnum("RGB") > 0) return 1;
    return animplay_tigetstr("RGB") != NULL;
}

// Loads the terminfo entry `name` (NULL: TERM's) against `fd` without touching the terminal
// (for stills).
static inline int animplay_setupterm(const char *name, int fd) {
    int err = 0;
    return setupterm(name, fd, &err) == OK ? 1 : 0;
}

// curses' current terminfo entry (for tests: that asking below changes nothing).
static inline const void *animplay_cur_term(void) { return cur_term; }

// 1 when this machine has a terminfo entry for `name`. setupterm is the only way to ask that
// searches where curses will (TERMINFO, ~/.terminfo, TERMINFO_DIRS, the built-in folders); the
// entry it loads is freed and curses' current one put back, so nothing is left loaded. With an
// error pointer it neither prints nor exits when the entry is missing.
static inline int animplay_terminfo_exists(const char *name) {
    int err = 0;
    TERMINAL *before = cur_term;
    if (setupterm(name, 2, &err) != OK) return 0;
    TERMINAL *loaded = set_curterm(before);
    if (loaded != before) del_curterm(loaded);
    return 1;
}

// One cell: `ch` drawn in colour pair `pair` (pairs above 32767 go through the opts pointer).
static inline int animplay_put_cell(WINDOW *w, int y, int x, wchar_t ch, int pair) {
    cchar_t c;
    wchar_t s[2] = { ch, 0 };
    setcchar(&c, s, A_NORMAL, 0, &pair);
    return mvwadd_wch(w, y, x, &c);
}

// Sets a window's attributes and colour pair.
static inline int animplay_set_attr(WINDOW *w, int reverse, int pair) {
    return wattr_set(w, reverse ? A_REVERSE : A_NORMAL, 0, &pair);
}

// Terminal size from the kernel, 0 on failure.
static inline int animplay_window_size(int fd, int *rows, int *cols) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 || ws.ws_col == 0) return 0;
    *rows = ws.ws_row; *cols = ws.ws_col;
    return 1;
}

// Window size in pixels from the kernel (ws_xpixel, ws_ypixel; 0 when the terminal does not
// say) and in cells, 0 on failure.
static inline int animplay_window_pixels(int fd, int *xpixel, int *ypixel, int *rows, int *cols) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0) return 0;
    *xpixel = ws.ws_xpixel; *ypixel = ws.ws_ypixel; *rows = ws.ws_row; *cols = ws.ws_col;
    return 1;
}

// Signals reach the main loop through a self-pipe: the handler only writes the signal number
// (async-signal-safe); the loop polls the read end. ncurses is never called from a handler.
static int animplay_signal_fd = -1;
static void animplay_signal_handler(int sig) {
    int saved = errno;
    unsigned char b = (unsigned char)sig;
    if (animplay_signal_fd >= 0) { ssize_t r = write(animplay_signal_fd, &b, 1); (void)r; }
    errno = saved;
}
static inline int animplay_catch_signal(int sig, int write_fd) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    animplay_signal_fd = write_fd;
    sa.sa_handler = animplay_signal_handler;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return sigaction(sig, &sa, NULL);
}
static inline int animplay_default_signal(int sig) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    return sigaction(sig, &sa, NULL);
}
#endif
