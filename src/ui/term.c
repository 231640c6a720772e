/* term: the ncursesw backend.
 *
 * The grid is copied to curses whole on every frame; ncurses diffs it
 * against what the terminal shows, so only changed cells are sent. */
#define NCURSES_WIDECHAR 1
#include "term.h"

#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "grid.h"
#include "keys.h"
#include "term_signal.h"
#include "util/text.h"
#include "theme.h"

/* How often the key wait wakes up to look at the signal flag (ms). */
#define TERM_POLL_MS 200
/* Esc must feel instant over SSH; escape sequences arrive well within this. */
#define TERM_ESCDELAY_MS 25
/* Consecutive key reads that fail at once: the terminal has gone away. */
#define TERM_DEAD_READS 50

/* The one mutable global: a signal handler can only talk to the program
 * through a volatile sig_atomic_t.  Holds the signal that asked us to stop. */
static volatile sig_atomic_t term_stop_signal;

static void term_on_signal(int sig)
{
    term_stop_signal = sig;
}

typedef struct term_state {
    SCREEN *scr;
    FILE *tty;
    bool own_tty; /* tty was opened here (not stdout) */
    bool colors;
    bool c256;                /* 256 colours: the sixteen-colour bar palette */
    const theme_palette *pal; /* the theme and the config's colours (NULL: built-in) */
    struct sigaction old_int, old_term, old_hup;
    int dead_reads;
} term_state;

static void term_install_signals(term_state *t)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = term_on_signal;
    sigemptyset(&sa.sa_mask);
    /* No SA_RESTART: a signal interrupts the key read at once. */
    sa.sa_flags = 0;
    term_stop_signal = 0;
    sigaction(SIGINT, &sa, &t->old_int);
    sigaction(SIGTERM, &sa, &t->old_term);
    sigaction(SIGHUP, &sa, &t->old_hup);
}

static void term_restore_signals(term_state *t)
{
    sigaction(SIGINT, &t->old_int, NULL);
    sigaction(SIGTERM, &t->old_term, NULL);
    sigaction(SIGHUP, &t->old_hup, NULL);
}

static int term_refuse(const char *why, const char *name)
{
    char shown[128];
    text_escape_buf(shown, sizeof shown, name ? name : "");
    fprintf(stderr,
            "scopeview: %s'%s' cannot show the interface; use --summary, --json, --csv or "
            "--batch\n",
            why, shown);
    return 1;
}

/* TERM values that cannot address the cursor are refused before anything
 * is written to the terminal. */
static int term_check_name(const char *name)
{
    if (!name || !*name) {
        fprintf(stderr, "scopeview: TERM is not set; use --summary, --json, --csv or --batch\n");
        return 1;
    }
    if (strcmp(name, "dumb") == 0 || strncmp(name, "dumb-", 5) == 0)
        return term_refuse("terminal ", name);
    return 0;
}

static FILE *term_open_tty(bool *own)
{
    FILE *f = fopen("/dev/tty", "r+e");
    *own = f != NULL;
    if (f)
        return f;
    return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) ? stdout : NULL;
}

static void term_init_colors(term_state *t)
{
    /* COLORS and COLOR_PAIRS are only known after start_color. */
    if (start_color() != OK || COLORS < 8 || COLOR_PAIRS <= ROLE_COUNT)
        return;
    bool defaults = use_default_colors() == OK;
    bool c256 = COLORS >= 256;
    for (int role = 0; role < ROLE_COUNT && role + 1 < COLOR_PAIRS; role++) {
        theme_style st = theme_palette_style(t->pal, role, c256);
        short fg = st.fg, bg = st.bg;
        if (!defaults) {
            fg = fg < 0 ? COLOR_WHITE : fg;
            bg = bg < 0 ? COLOR_BLACK : bg;
        }
        init_pair((short)(role + 1), fg, bg);
    }
    t->colors = true;
    t->c256 = c256;
}

static void term_setup_modes(term_state *t, const app_options *o)
{
    cbreak();
    noecho();
    nonl();
    intrflush(stdscr, FALSE);
    keypad(stdscr, TRUE);
    set_escdelay(TERM_ESCDELAY_MS);
    wtimeout(stdscr, TERM_POLL_MS);
    curs_set(0);
    leaveok(stdscr, TRUE);
    if (!o->mono && !theme_no_color(getenv("NO_COLOR")) && has_colors())
        term_init_colors(t);
    mouseinterval(0);
    mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
}

/* Appends terminfo capability name (NULL: none) or else fallback to b. */
static size_t term_cap_append(char *b, size_t cap, size_t o, const char *name, const char *fallback)
{
    const char *v = name ? tigetstr(name) : NULL;
    if (!v || v == (char *)-1)
        v = fallback;
    size_t n = strlen(v);
    if (o + n < cap) {
        memcpy(b + o, v, n);
        o += n;
    }
    return o;
}

/* The reset a fatal signal writes (term_signal.h): attributes and mouse
 * reporting off, cursor shown, keypad mode off, alternate screen left. */
static void term_arm_fatal_reset(term_state *t)
{
    char b[512];
    size_t o = term_cap_append(b, sizeof b, 0, "sgr0", "\033[m");
    o = term_cap_append(b, sizeof b, o, NULL, TERM_MOUSE_OFF);
    o = term_cap_append(b, sizeof b, o, "cnorm", "\033[?25h");
    o = term_cap_append(b, sizeof b, o, "rmkx", "");
    o = term_cap_append(b, sizeof b, o, "rmcup", "\033[?1049l");
    fflush(t->tty);
    term_signal_arm(fileno(t->tty), b, o);
}

static int term_key_code(int code, ui_ctx *ctx)
{
    switch (code) {
    case KEY_LEFT:
        return SVK_LEFT;
    case KEY_RIGHT:
        return SVK_RIGHT;
    case KEY_UP:
        return SVK_UP;
    case KEY_DOWN:
        return SVK_DOWN;
    case KEY_PPAGE:
        return SVK_PGUP;
    case KEY_NPAGE:
        return SVK_PGDN;
    case KEY_HOME:
        return SVK_HOME;
    case KEY_END:
        return SVK_END;
    case KEY_BTAB:
        return SVK_BTAB;
    case KEY_ENTER:
        return SVK_ENTER;
    case KEY_BACKSPACE:
        return SVK_BACKSPACE;
    case KEY_RESIZE:
        return SVK_RESIZE;
    case KEY_MOUSE: {
        MEVENT ev;
        if (getmouse(&ev) != OK)
            return SVK_NONE;
        ctx->mouse_x = ev.x;
        ctx->mouse_y = ev.y;
        if (ev.bstate & BUTTON4_PRESSED)
            return SVK_WHEEL_UP;
        if (ev.bstate & BUTTON5_PRESSED)
            return SVK_WHEEL_DOWN;
        return (ev.bstate & BUTTON1_PRESSED) ? SVK_CLICK : SVK_NONE;
    }
    default:
        return code == KEY_F(1) ? SVK_F1 : SVK_NONE;
    }
}

static int term_key_char(wint_t c)
{
    switch (c) {
    case '\n':
    case '\r':
        return SVK_ENTER;
    case 27:
        return SVK_ESC;
    case '\t':
        return SVK_TAB;
    case 8:
    case 127:
        return SVK_BACKSPACE;
    case 12: /* Ctrl-L: lay out and repaint everything */
        clearok(curscr, TRUE);
        return SVK_RESIZE;
    default:
        return c < 0x20 || (c >= 0x7F && c < 0xA0) ? SVK_NONE : (int)c;
    }
}

/* A read that fails at once, again and again, means the terminal is gone
 * (a closed SSH session without SIGHUP): stop instead of spinning. */
static bool term_gone(term_state *t)
{
    struct pollfd pfd = {.fd = fileno(t->tty), .events = POLLIN};
    if (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)))
        return true;
    return ++t->dead_reads > TERM_DEAD_READS;
}

static double term_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int term_next_key(void *state, ui_ctx *ctx)
{
    term_state *t = state;
    for (;;) {
        if (term_stop_signal)
            return SVK_NONE;
        wint_t wc;
        double before = term_now();
        int r = wget_wch(stdscr, &wc);
        if (r == ERR) {
            bool instant = term_now() - before < TERM_POLL_MS / 4000.0;
            if (instant && errno != EINTR && term_gone(t))
                return SVK_NONE;
            if (!instant)
                t->dead_reads = 0;
            if (ui_job_ready(ctx))
                return SVK_READY; /* app.c installs it and redraws */
            continue;
        }
        t->dead_reads = 0;
        int key = r == KEY_CODE_YES ? term_key_code((int)wc, ctx) : term_key_char(wc);
        if (key != SVK_NONE)
            return key;
    }
}

static attr_t term_ga_attrs(int ga)
{
    attr_t a = A_NORMAL;
    if (ga & GA_BOLD)
        a |= A_BOLD;
    if (ga & GA_REVERSE)
        a |= A_REVERSE;
    if (ga & GA_DIM)
        a |= A_DIM;
    if (ga & GA_UNDERLINE)
        a |= A_UNDERLINE;
    return a;
}

static void term_present(void *state, const ui_ctx *ctx)
{
    const term_state *t = state;
    const grid *g = &ctx->grid;
    int rows = g->rows < LINES ? g->rows : LINES;
    int cols = g->cols < COLS ? g->cols : COLS;
    bool colors = t->colors && !ctx->mono;
    for (int y = 0; y < rows; y++) {
        for (int x = 0; x < cols; x++) {
            const cell *c = &g->cells[(size_t)y * (size_t)g->cols + (size_t)x];
            if (c->ch == 0)
                continue;
            int ga = c->attr | (!colors ? theme_mono_attr(c->role)
                                        : theme_palette_style(t->pal, c->role, t->c256).attr);
            wchar_t wch[2] = {(wchar_t)c->ch, 0};
            cchar_t cc;
            setcchar(&cc, wch, term_ga_attrs(ga), colors ? (short)(c->role + 1) : 0, NULL);
            mvadd_wch(y, x, &cc);
        }
    }
    refresh();
}

static void term_size(void *state, int *cols, int *rows)
{
    (void)state;
    *cols = COLS;
    *rows = LINES;
}

int term_open(ui_backend *be, const app_options *o, bool *colors)
{
    const char *name = getenv("TERM");
    int status = term_check_name(name);
    if (status)
        return status;
    term_state *t = calloc(1, sizeof *t);
    if (!t) {
        fprintf(stderr, "scopeview: out of memory\n");
        return 1;
    }
    t->pal = o->palette;
    t->tty = term_open_tty(&t->own_tty);
    if (!t->tty) {
        free(t);
        fprintf(stderr, "scopeview: no terminal to draw on; use --summary, --json, --csv or "
                        "--batch\n");
        return 1;
    }
    term_install_signals(t);
    term_signal_save(fileno(t->tty));
    t->scr = newterm(name, t->tty, t->tty);
    const char *cup = t->scr ? tigetstr("cup") : NULL;
    if (!t->scr || !cup || cup == (char *)-1) {
        const char *why = t->scr ? "terminal " : "unknown terminal ";
        if (t->scr) {
            endwin();
            delscreen(t->scr);
        }
        term_restore_signals(t);
        if (t->own_tty)
            fclose(t->tty);
        free(t);
        return term_refuse(why, name);
    }
    term_setup_modes(t, o);
    term_arm_fatal_reset(t);
    *colors = t->colors;
    *be = (ui_backend){t, term_next_key, term_present, term_size};
    return 0;
}

int term_close(ui_backend *be)
{
    term_state *t = be->state;
    if (!t)
        return 0;
    term_signal_disarm();
    mousemask(0, NULL);
    endwin();
    delscreen(t->scr);
    if (t->own_tty)
        fclose(t->tty);
    term_restore_signals(t);
    free(t);
    be->state = NULL;
    int sig = term_stop_signal;
    return sig ? 128 + sig : 0;
}

/* --- load progress --- */

#define PROGRESS_DELAY_S 0.5
#define PROGRESS_EVERY_S 0.1

void term_progress_start(term_progress_state *s, const char *label)
{
    *s = (term_progress_state){
        .start = term_now(), .tty = isatty(STDERR_FILENO) == 1, .label = label};
}

void term_progress(void *ctx, uint64_t done, uint64_t total)
{
    term_progress_state *s = ctx;
    if (!s || !s->tty)
        return;
    double now = term_now();
    if (now - s->start < PROGRESS_DELAY_S || now - s->last < PROGRESS_EVERY_S)
        return;
    s->last = now;
    char line[160];
    term_progress_line(line, sizeof line, s, done, total);
    fprintf(stderr, "\r%s", line);
    fflush(stderr);
    s->shown = true;
}

void term_progress_line(char *buf, size_t len, const term_progress_state *s, uint64_t done,
                        uint64_t total)
{
    char shown[40];
    text_escape_buf(shown, sizeof shown, s->label ? s->label : "profile");
    double pct = total ? 100.0 * (double)done / (double)total : 0.0;
    /* The file's own metadata is not counted as read: the first read ends
     * a little short of the total, shown as 100% once rounded. */
    if (s->full_note && pct >= 99.5) {
        snprintf(buf, len, "scopeview: loading %s: %s  ", shown, s->full_note);
        return;
    }
    snprintf(buf, len, "scopeview: loading %s: %3.0f%% (%.1f of %.1f MB)  ", shown,
             pct > 100 ? 100 : pct, (double)done / 1e6, (double)total / 1e6);
}

void term_progress_done(term_progress_state *s)
{
    if (s && s->shown) {
        fprintf(stderr, "\r%*s\r", 78, "");
        fflush(stderr);
        s->shown = false;
    }
}
