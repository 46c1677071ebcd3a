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

// C globals are not concurrency-safe in Swift 6: read them through functions.
static inline WINDOW *animplay_stdscr(void) { return stdscr; }
static inline int animplay_colors(void) { return COLORS; }
static inline int animplay_color_pairs(void) { return COLOR_PAIRS; }
static inline int animplay_lines(void) { return LINES; }
static inline int animplay_cols(void) { return COLS; }
static inline FILE *animplay_stdout(void) { return stdout; }
static inline FILE *animplay_stderr(void) { return stderr; }
static inline FILE *animplay_stdin(void) { return stdin; }
#endif
