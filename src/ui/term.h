/* term: the ncursesw backend (the only file that includes curses), and the
 * load progress line main shows before the first frame. */
#ifndef SV_TERM_H
#define SV_TERM_H

#include <stdbool.h>
#include <stdint.h>

#include "ui.h"

/* Opens the terminal: checks TERM before touching the screen, then sets up
 * ncursesw on /dev/tty (so stdin may be a pipe), colours, keypad and mouse,
 * and SIGINT/SIGTERM/SIGHUP handling that restores the terminal.  On
 * success fills be and returns 0; otherwise prints a one-line message to
 * stderr and returns the exit status (1).  *colors tells whether the
 * terminal shows colours (and --mono was not given). */
int term_open(ui_backend *be, const app_options *o, bool *colors);

/* Restores the terminal (endwin) and frees the backend; call it before any
 * message.  Returns 128 + the signal number when a signal ended the
 * session (130 for SIGINT, 143 for SIGTERM), else 0. */
int term_close(ui_backend *be);

/* Load progress on stderr, for load_options.progress: nothing for loads
 * shorter than half a second or when stderr is not a terminal. */
typedef struct term_progress_state {
    double start;      /* monotonic seconds at term_progress_start */
    double last;       /* when the line was last written */
    bool shown;        /* a line is on screen (term_progress_done clears it) */
    bool tty;          /* stderr is a terminal */
    const char *label; /* what is loading, e.g. the file name (escaped when shown) */
    /* Said instead of "100%" once the columns were read once, for a
     * load that reads the file again (out of core: several passes), so the
     * line never sits at a full 100% for seconds. */
    const char *full_note;
} term_progress_state;

void term_progress_start(term_progress_state *s, const char *label);
/* The line term_progress writes (without the leading carriage return). */
void term_progress_line(char *buf, size_t len, const term_progress_state *s, uint64_t done,
                        uint64_t total);
void term_progress(void *ctx, uint64_t done, uint64_t total);
void term_progress_done(term_progress_state *s);

#endif
