/* ui: the one context passed to every view (no globals). */
#ifndef SV_UI_H
#define SV_UI_H

#include <stdbool.h>
#include <regex.h>

#include "app.h"
#include "grid.h"
#include "keys.h"
#include "model/profile.h"

struct view_ops;

/* The selection every view shares and follows. */
typedef struct ui_selection {
    region *region; /* selected region (one rank), or NULL */
    int rank;       /* rank number of the selected call */
    int64_t call;   /* rank call index (rank_data.calls numbering), -1 none */
} ui_selection;

/* Out of core, a call for the timeline to show and select once the
 * window holding it is read, named by what the loading child kept of it:
 * the calls view's Enter and S (its slowest calls, slowcalls.h), the
 * series' Enter (a bin's longest call, tbins.h), the lanes view's Enter
 * (a lane's longest top-level call, ooc_lanefig.h).  Asked with
 * ui_ooc_go; read and cleared by the timeline (tl_window.c). */
typedef struct ui_ooc_goto {
    bool on;
    int rank;        /* rank number */
    uint32_t region; /* index among the rank's regions (UI_GOTO_ANY_REGION: any) */
    uint64_t pos;    /* position in the region's row (0 when not known) */
    uint64_t lane;   /* the overview map's lane (SLOW_NO_LANE: not on the timeline;
                        UI_GOTO_ANY_LANE: not known, looked for in the rank's lanes) */
    uint32_t depth;
    int64_t s, e;
    /* Shown whole, at the lane, even when its span holds more calls than a
     * window may (then the overview, and the status says that `what`
     * cannot be selected there: "The lane's longest call"); else the part
     * from its start that a window may hold, so that it is selected. */
    bool whole;
    const char *what;
} ui_ooc_goto;

#define UI_GOTO_ANY_LANE (UINT64_MAX - 1)
#define UI_GOTO_ANY_REGION UINT32_MAX

/* Jumps Esc can walk back through. */
#define UI_BACK_MAX 16

typedef struct ui_ctx {
    profile *prof;
    const app_options *opt;
    grid grid;
    bool mono; /* no colours */
    ui_selection sel;
    /* search: the last / expression, shared by every view */
    bool has_search;
    regex_t search_re;
    char search_text[256];
    bool filter_on;   /* f: views narrow to regions matching search_re */
    bool source_pane; /* s */
    bool help_open;
    int mouse_x, mouse_y; /* last mouse position for wheel/click commands */
    /* The per-call nesting being built in the background (calls_job.h);
     * NULL once app.c has installed it into the profile. */
    struct calls_job *calls_job;
    /* views */
    const struct view_ops *const *views;
    size_t nviews;
    void *view_state[VIEW_COUNT]; /* indexed by view_id */
    size_t current;               /* index into views */
    /* The jumps Esc walks back through (calls -> timeline -> calls ->
     * regions): views a jump (ui_open_view) left, the latest last.  A
     * switch by the user (Tab, a digit) clears it. */
    size_t back[UI_BACK_MAX];
    size_t nback;
    char status[256]; /* one-line message for the status bar */
    /* --- added by the UI core --- */
    bool ascii;       /* ASCII glyphs only (--ascii or a non-UTF-8 locale) */
    rect view_area;   /* where the current view draws (between the bars) */
    bool too_small;   /* the screen is below UI_MIN_COLS x UI_MIN_ROWS */
    bool prompt_open; /* the / prompt is being edited in the status bar */
    char prompt[256];
    size_t prompt_len;
    int help_top; /* first help line shown */
    /* / inside the help, as in less: its own expression, apart from the
     * views' search; help_hit is the line of the last match, -1 none. */
    bool help_has_re;
    regex_t help_re;
    char help_pat[256];
    int help_hit;                  /* -1: no match shown yet */
    int help_nth, help_nmatch;     /* that match is the nth of nmatch */
    keymap keys;                   /* key -> command per scope: commands.def, then the config */
    const struct sv_settings *cfg; /* the user's config (config.h); NULL in some tests */
    /* How the calls view opens next (set by the regions view's rows, read
     * and cleared by the calls view): 0 as it was, UI_DRILL_ALL every
     * rank, UI_DRILL_RANK the selected region's rank only. */
    int drill_scope;
    bool show_warnings; /* the info view opens on its loader warnings (then clears it) */
    /* The time band the flame graph opens on next (the timeline's
     * selection: F), read and cleared by the flame view; t1 <= t0: none. */
    int64_t flame_t0, flame_t1;
    bool flame_band;
    /* The statistics still coming from the loading child (stats_job.h);
     * NULL once app.c has installed them.  stats_error: why they never
     * came ("" when they did or still may). */
    struct stats_job *stats_job;
    char stats_error[SV_MSG_MAX + 32];
    /* Out of core: the timeline's window being read (ooc_job.h), NULL when
     * none; the terminal wakes when it is done (tl_window.c takes it). */
    struct ooc_job *ooc_job;
    /* Out of core: a call the timeline goes to and selects once the window
     * holding it is read (the calls view's Enter, S: the loading child's
     * slowest calls, slowcalls.h); the timeline clears it. */
    ui_ooc_goto ooc_goto; /* ui_ooc_goto above */
    /* Out of core: the open whose pass is still going (ooc_open_job.h;
     * the views draw from the skeleton meanwhile, ooc_pending.h), NULL
     * once app.c has installed its file; ooc_open_seq: its progress last
     * drawn (the terminal wakes when it changes). */
    struct ooc_open_job *ooc_open;
    unsigned ooc_open_seq;
} ui_ctx;

enum { UI_DRILL_ALL = 1, UI_DRILL_RANK = 2 };

/* Below this size only a "Terminal too small" message is drawn. */
#define UI_MIN_COLS 40
#define UI_MIN_ROWS 10

/* A screen backend: the terminal (term.c) or the headless one (headless.c).
 * app.c runs the same loop over either. */
typedef struct ui_backend {
    void *state;
    /* The next key (blocking); SVK_NONE when there are no more (headless)
     * or the user asked to stop (a signal).  Sets ctx->mouse_x/y for mouse
     * keys. */
    int (*next_key)(void *state, ui_ctx *ctx);
    /* Shows ctx->grid. */
    void (*present)(void *state, const ui_ctx *ctx);
    /* The current screen size. */
    void (*size)(void *state, int *cols, int *rows);
} ui_backend;

/* The help overlay (help.c). */
void help_draw(ui_ctx *ctx, rect area);
/* Handles a key while help is open; returns view_flags. */
int help_on_key(ui_ctx *ctx, int key);
/* The / prompt confirmed while help is open: searches the help for pat
 * (an extended regular expression, case-insensitive unless it holds a
 * capital; "" repeats the last) from its top line on, scrolls to the
 * match and marks the matching lines.  Says in the status line when
 * nothing matches.  Returns view_flags. */
int help_search(ui_ctx *ctx, const char *pat);
/* Frees the help's search expression. */
void help_search_free(ui_ctx *ctx);
/* The timeline legend the help shows, row by row, for the man page: how
 * many rows, row i's sample as text (Unicode or ASCII glyphs) and what it
 * means. */
size_t help_legend_count(void);
char *help_legend_label(size_t i, bool ascii, char *buf, size_t len);
const char *help_legend_text(size_t i);

/* true while the per-call nesting (parents, depths, exclusive times) is
 * still being computed in the background: views that need it draw
 * ui_computing_text() instead, and build once it is false. */
bool ui_calls_pending(const ui_ctx *ctx);
/* The regions' statistics (percentiles, exclusive totals, ...) are not in
 * the profile yet (or failed: stats_error): views that show them say so,
 * or show the file's stored summary_statistics, marked as such. */
bool ui_stats_pending(const ui_ctx *ctx);
const char *ui_stats_text(const ui_ctx *ctx);
const char *ui_computing_text(const ui_ctx *ctx);

/* Helpers views use to move the user around. */
/* false for a compare view outside --diff: no tab, no key, not in the Tab cycle. */
bool ui_view_shown(const ui_ctx *ctx, size_t i);
void ui_open_view(ui_ctx *ctx, view_id id);
/* The label of the key that opens view id ("1"), "" when none does. */
const char *ui_view_key(const ui_ctx *ctx, view_id id, char *buf, size_t len);
void ui_set_status(ui_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool ui_search_match(const ui_ctx *ctx, const char *name);
/* Selects a call (rank number, rank call index) and its region. */
void ui_select_call(ui_ctx *ctx, int rank, int64_t call);
void ui_select_region(ui_ctx *ctx, region *r);
/* Selects the slowest call of the selected region over every rank the
 * filter keeps and every lane (ties: the lowest rank, then the first
 * recorded), so its duration is the region's Max.  Without a selected
 * region it takes the one with the most exclusive time summed over the
 * ranks (the largest total would be the root) and says so.  Says what it
 * did in the status line; the caller decides which view shows the call
 * (d and S, app.c; S in the calls and regions views). */
void ui_select_slowest(ui_ctx *ctx);
/* The same on one rank (rank >= 0: a per-rank row), or every rank (< 0). */
void ui_select_slowest_on(ui_ctx *ctx, int rank);
/* Out of core: selects the skeleton's region of g (when it names one) and
 * asks the timeline to go to the call g names (ctx->ooc_goto). */
void ui_ooc_go(ui_ctx *ctx, const ui_ooc_goto *g);
/* How every screen names call i of r: "call 38", the call_index of
 * --events (recorded order, counted from 0), and "call 38 (id 99)" when
 * the file stores call ids. */
void ui_call_name(const region *r, size_t i, char *buf, size_t len);
/* Moves a scrolled text's top line for a scrolling command (Up, Down,
 * wheel, PgUp, PgDn, Home, End), end being the line count; returns false
 * for any other command.  The caller clamps. */
bool ui_scroll(size_t *top, size_t end, int page_rows, ui_cmd cmd);

/* The viewer's background jobs (nesting, statistics, an out-of-core
 * window), polled in one place: whether any has published its result (the
 * terminal then wakes the loop, which installs it). */
bool ui_job_ready(const ui_ctx *ctx);

/* Headless <Ready>: blocks until every running job has published. */
void ui_jobs_wait(ui_ctx *ctx);

#endif
