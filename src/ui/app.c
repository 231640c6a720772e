/* app: the loop every backend runs, global keys, and the screen layout
 * (title bar, view area, status bar). */
#include "app.h"

#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/callpaths.h"
#include "model/calls_job.h"
#include "model/nest_share.h"
#include "isolate/isolate.h"
#include "isolate/stats_job.h"
#include "settings.h"
#include "headless.h"
#include "memreport.h"
#include "ooc/ooc_job.h"
#include "ooc/ooc_open_job.h"
#include "ooc_pending.h"
#include "ooc_view.h"
#include "term.h"
#include "util/text.h"
#include "view.h"
#include "util/hooks.h"

typedef struct app {
    ui_ctx *ctx;
    ui_backend be;
    const view_ops *pane; /* the source pane, when one exists */
    void *pane_state;
    rect pane_area;                      /* empty while the pane is hidden */
    const view_ops *ooc_reg[VIEW_COUNT]; /* the views out of core (ooc_view.h) */
    /* While the overview is coming (ooc_pending.h) */
    view_ops pend_ops[VIEW_COUNT];
    const view_ops *pend_reg[VIEW_COUNT];
    app_options *opts; /* the run's own copy: the installed file goes in */
    int fail_status;   /* the open failed: the app ends with fail_msg */
    /* From the statistics' start to the nesting's: the nesting's totals
     * for the statistics (nest_share.h), one reference. */
    nest_share *nest_share;
    char fail_msg[SV_MSG_MAX + 32];
} app;

/* Widths come from wcwidth, so LC_CTYPE must be UTF-8 for the terminal and
 * the headless screen alike.  Returns whether the user's own locale is
 * UTF-8 (if not, the terminal gets ASCII only). */
static bool app_set_locale(bool *have_utf8)
{
    const char *set = setlocale(LC_CTYPE, "");
    bool user_utf8 = set && strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    *have_utf8 = user_utf8;
    if (!user_utf8)
        *have_utf8 = setlocale(LC_CTYPE, "C.UTF-8") || setlocale(LC_CTYPE, "en_US.UTF-8");
    return user_utf8;
}

static const view_ops *app_view(const ui_ctx *ctx)
{
    return ctx->views[ctx->current];
}

/* --- layout --- */

static void app_layout(app *a)
{
    ui_ctx *ctx = a->ctx;
    const grid *g = &ctx->grid;
    ctx->too_small = g->cols < UI_MIN_COLS || g->rows < UI_MIN_ROWS;
    rect area = {0, 1, g->cols, g->rows > 2 ? g->rows - 2 : 0};
    a->pane_area = (rect){0, 0, 0, 0};
    if (a->pane && ctx->source_pane && !ctx->too_small) {
        /* Beside the view on wide screens, below it on narrow ones. */
        if (area.w >= 120) {
            /* set source-width N, leaving the view UI_MIN_COLS; else two fifths */
            int want = ctx->cfg ? ctx->cfg->source_width : 0;
            int pw = want > 0 ? (want < area.w - UI_MIN_COLS ? want : area.w - UI_MIN_COLS)
                              : area.w * 2 / 5;
            a->pane_area = (rect){area.x + area.w - pw, area.y, pw, area.h};
            area.w -= pw;
        } else {
            int ph = area.h / 2;
            a->pane_area = (rect){area.x, area.y + area.h - ph, area.w, ph};
            area.h -= ph;
        }
    }
    ctx->view_area = area;
    if (ctx->too_small)
        return;
    for (size_t i = 0; i < ctx->nviews; i++)
        if (ctx->views[i]->on_resize)
            ctx->views[i]->on_resize(ctx->view_state[i], ctx, area);
    if (a->pane_area.w > 0 && a->pane->on_resize)
        a->pane->on_resize(a->pane_state, ctx, a->pane_area);
}

/* The one place a new screen size is taken. */
static bool app_resize(app *a)
{
    int cols, rows;
    a->be.size(a->be.state, &cols, &rows);
    if (!grid_resize(&a->ctx->grid, cols, rows))
        return false;
    app_layout(a);
    return true;
}

/* --- title bar --- */

/* compact: the other views by their key alone ("1 2 [3 regions] 4"), when
 * the names would leave no room for the file and the way back. */
static void tab_label_ex(const ui_ctx *ctx, size_t i, bool compact, char *buf, size_t len)
{
    const view_ops *v = ctx->views[i];
    bool cur = i == ctx->current && !ctx->help_open;
    char key[32];
    ui_view_key(ctx, (view_id)i, key, sizeof key);
    if (compact && key[0])
        snprintf(buf, len, cur ? " [%s %s]" : " %s", key, v->name);
    else
        snprintf(buf, len, "%c%s%s%s%c", cur ? '[' : ' ', key, key[0] ? " " : "", v->name,
                 cur ? ']' : ' ');
}

/* "Esc: calls < regions": where Esc goes, then further back (latest
 * first), "" when Esc has no jump to undo. */
static void back_label(const ui_ctx *ctx, char *buf, size_t len)
{
    buf[0] = '\0';
    size_t used = 0;
    for (size_t k = ctx->nback; k-- > 0 && ctx->nback - k <= 3;) {
        int n = snprintf(buf + used, len - used, "%s%s",
                         used ? " < " : "Esc: ", ctx->views[ctx->back[k]]->name);
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
    }
    if (ctx->nback > 3 && used + 5 < len)
        snprintf(buf + used, len - used, " < …");
}

static int tabs_width(const ui_ctx *ctx, bool compact)
{
    int w = 1;
    for (size_t i = 0; i < ctx->nviews; i++) {
        char label[64];
        if (!ui_view_shown(ctx, i))
            continue;
        tab_label_ex(ctx, i, compact, label, sizeof label);
        w += text_display_width(label);
    }
    return w;
}

static const char *path_base(const char *path);
static void filter_label(const ui_ctx *ctx, char *buf, size_t len);

/* Whether the tabs go compact: the full names, the way back, the file's
 * name (up to 32 columns of it) and the filter do not fit. */
static bool title_compact(const ui_ctx *ctx)
{
    char back[160], filt[320];
    back_label(ctx, back, sizeof back);
    filter_label(ctx, filt, sizeof filt);
    int bw = text_display_width(back), lw = text_display_width(filt);
    int fw = text_display_width(path_base(ctx->opt->path ? ctx->opt->path : ""));
    return tabs_width(ctx, false) + (bw ? bw + 2 : 0) + 2 + (fw < 32 ? fw : 32) +
               (lw ? lw + 1 : 0) >
           ctx->grid.cols;
}

static void tab_label(const ui_ctx *ctx, size_t i, char *buf, size_t len)
{
    tab_label_ex(ctx, i, title_compact(ctx), buf, len);
}

/* Index of the view whose tab covers column x, or nviews. */
static size_t title_tab_at(const ui_ctx *ctx, int x)
{
    int pos = 1;
    for (size_t i = 0; i < ctx->nviews; i++) {
        char label[64];
        if (!ui_view_shown(ctx, i))
            continue;
        tab_label(ctx, i, label, sizeof label);
        int w = text_display_width(label);
        if (x >= pos && x < pos + w)
            return i;
        pos += w;
    }
    return ctx->nviews;
}

static void filter_label(const ui_ctx *ctx, char *buf, size_t len)
{
    const region_filter *f = ctx->opt->filter;
    bool cli = f && (f->ninclude || f->nexclude || f->ranks);
    buf[0] = '\0';
    if (ctx->filter_on)
        snprintf(buf, len, "filter /%s/%s ", ctx->search_text, cli ? " +options" : "");
    else if (cli)
        snprintf(buf, len, "filtered by options ");
}

static const char *path_base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* "2 warnings (W)" when the loader warned, "" otherwise: the warnings went
 * to stderr, which the screen then covers. */
static void warn_label(const ui_ctx *ctx, char *buf, size_t len)
{
    size_t n = ctx->prof->nwarnings;
    buf[0] = '\0';
    if (n)
        snprintf(buf, len, "%zu warning%s (W)", n, n == 1 ? "" : "s");
}

/* Columns of the warnings marker in the title bar: [*x0, *x0 + *w). */
static void warn_span(const ui_ctx *ctx, int *x0, int *w)
{
    char warn[64], filt[320];
    warn_label(ctx, warn, sizeof warn);
    filter_label(ctx, filt, sizeof filt);
    int fw = text_display_width(filt);
    *w = text_display_width(warn);
    *x0 = ctx->grid.cols - (fw ? fw + 1 : 0) - *w;
}

static void draw_title(ui_ctx *ctx)
{
    grid *g = &ctx->grid;
    grid_fill(g, (rect){0, 0, g->cols, 1}, ' ', ROLE_TITLE, 0);
    int x = 1;
    for (size_t i = 0; i < ctx->nviews && x < g->cols; i++) {
        char label[64];
        if (!ui_view_shown(ctx, i))
            continue;
        tab_label(ctx, i, label, sizeof label);
        bool cur = i == ctx->current && !ctx->help_open;
        x += grid_put_text(g, x, 0, g->cols - x, label, ROLE_TITLE, cur ? GA_REVERSE : 0);
    }
    char back[160];
    back_label(ctx, back, sizeof back);
    if (back[0] && x + 2 < g->cols)
        x += 2 + grid_put_text(g, x + 2, 0, g->cols - x - 2, back, ROLE_TITLE, GA_BOLD);
    char filt[320], warn[64];
    filter_label(ctx, filt, sizeof filt);
    warn_label(ctx, warn, sizeof warn);
    int fw = grid_text_width(g, filt), wx, ww;
    warn_span(ctx, &wx, &ww);
    int room = g->cols - x - 2 - (fw ? fw + 1 : 0) - (ww ? ww + 1 : 0);
    const char *path = ctx->opt->path ? ctx->opt->path : "";
    if (grid_text_width(g, path) > room)
        path = path_base(path);
    if (room > 0)
        x += 2 + grid_put_text(g, x + 2, 0, room, path, ROLE_TITLE, 0);
    if (fw && x + 1 + fw <= g->cols)
        grid_put_text(g, g->cols - fw, 0, fw, filt, ROLE_TITLE, GA_BOLD);
    if (ww && wx > x)
        grid_put_text(g, wx, 0, ww, warn, ROLE_WARNING, GA_BOLD);
}

/* --- status bar --- */

static void draw_prompt(ui_ctx *ctx, int y)
{
    grid *g = &ctx->grid;
    grid_put_cp(g, 0, y, '/', ROLE_STATUS, GA_BOLD);
    int avail = g->cols - 2;
    size_t off = 0;
    /* Show the end being typed when the whole expression does not fit. */
    while (off < ctx->prompt_len &&
           grid_text_widthn(g, ctx->prompt + off, ctx->prompt_len - off) > avail) {
        off++;
        while (off < ctx->prompt_len && (ctx->prompt[off] & 0xC0) == 0x80)
            off++;
    }
    int w =
        grid_put_textn(g, 1, y, avail, ctx->prompt + off, ctx->prompt_len - off, ROLE_STATUS, 0);
    grid_put_cp(g, 1 + w, y, ' ', ROLE_NORMAL, GA_REVERSE);
}

static void draw_status(ui_ctx *ctx)
{
    grid *g = &ctx->grid;
    int y = g->rows - 1;
    grid_fill(g, (rect){0, y, g->cols, 1}, ' ', ROLE_STATUS, 0);
    if (ctx->prompt_open) {
        draw_prompt(ctx, y);
        return;
    }
    char hints[320];
    const char *text = ctx->status;
    if (!text[0]) {
        if (ctx->help_open)
            text = "j k PgUp PgDn scroll   / search  n N next   q Esc ? close the help";
        else if (ctx->has_search)
            snprintf(hints, sizeof hints, "? help  q quit  Tab views  / search  n N next /%s/",
                     ctx->search_text);
        else
            snprintf(hints, sizeof hints, "? help  q quit  Tab views  / search");
        if (!ctx->help_open)
            text = hints;
    }
    grid_put_text(g, 1, y, g->cols - 1, text, ROLE_STATUS, 0);
}

/* --- too small --- */

/* "Terminal too small (WxH); need at least 40x10", word-wrapped into the
 * screen, centred; whatever does not fit is cut, down to 1x1. */
static void draw_too_small(ui_ctx *ctx)
{
    grid *g = &ctx->grid;
    char msg[96];
    snprintf(msg, sizeof msg, "Terminal too small (%dx%d); need at least %dx%d", g->cols, g->rows,
             UI_MIN_COLS, UI_MIN_ROWS);
    size_t starts[16] = {0}, lens[16] = {0}, n = 0, pos = 0, len = strlen(msg);
    while (pos < len && n < 16) {
        size_t end = pos, brk = 0;
        while (end < len && (int)(end - pos) <= g->cols) {
            if (msg[end] == ' ')
                brk = end;
            end++;
        }
        if (end < len || (int)(end - pos) > g->cols)
            end = brk > pos ? brk : pos + (size_t)g->cols;
        if (end > len)
            end = len;
        starts[n] = pos;
        lens[n++] = end - pos;
        pos = end;
        while (pos < len && msg[pos] == ' ')
            pos++;
    }
    int shown = (int)n < g->rows ? (int)n : g->rows;
    int y0 = (g->rows - shown) / 2;
    for (int i = 0; i < shown; i++) {
        /* The last row that fits takes the rest of the message, cut. */
        size_t l = i == shown - 1 ? len - starts[i] : lens[i];
        int w = (int)lens[i] < g->cols ? (int)lens[i] : g->cols;
        int x = (g->cols - w) / 2;
        grid_put_textn(g, x, y0 + i, g->cols - x, msg + starts[i], l, ROLE_WARNING, 0);
    }
}

static void app_draw(app *a)
{
    ui_ctx *ctx = a->ctx;
    grid_clear(&ctx->grid);
    if (ctx->too_small) {
        draw_too_small(ctx);
        return;
    }
    draw_title(ctx);
    if (ctx->help_open) {
        rect full = {0, 1, ctx->grid.cols, ctx->grid.rows - 2};
        help_draw(ctx, full);
    } else {
        const view_ops *v = app_view(ctx);
        if (v->draw)
            v->draw(ctx->view_state[ctx->current], ctx, ctx->view_area);
        if (a->pane_area.w > 0 && a->pane->draw)
            a->pane->draw(a->pane_state, ctx, a->pane_area);
    }
    draw_status(ctx);
}

/* --- commands --- */

static int app_to_view(app *a, ui_cmd cmd)
{
    ui_ctx *ctx = a->ctx;
    const view_ops *v = app_view(ctx);
    return v->on_cmd ? v->on_cmd(ctx->view_state[ctx->current], ctx, cmd) : 0;
}

static bool has_upper(const char *s)
{
    for (; *s; s++)
        if (*s >= 'A' && *s <= 'Z')
            return true;
    return false;
}

static int prompt_confirm(app *a)
{
    ui_ctx *ctx = a->ctx;
    ctx->prompt_open = false;
    if (ctx->help_open) /* a search of the help text, as in less */
        return help_search(ctx, ctx->prompt);
    if (ctx->prompt_len == 0) {
        /* An empty search repeats the last one, as in less and vi. */
        return ctx->has_search ? VF_REDRAW | app_to_view(a, CMD_SEARCH_NEXT) : VF_REDRAW;
    }
    regex_t re;
    int flags = REG_EXTENDED | REG_NOSUB | (has_upper(ctx->prompt) ? 0 : REG_ICASE);
    int rc = regcomp(&re, ctx->prompt, flags);
    if (rc != 0) {
        char why[128];
        regerror(rc, &re, why, sizeof why);
        ui_set_status(ctx, "Bad regular expression: %s", why);
        return VF_REDRAW;
    }
    if (ctx->has_search)
        regfree(&ctx->search_re);
    ctx->search_re = re;
    ctx->has_search = true;
    snprintf(ctx->search_text, sizeof ctx->search_text, "%s", ctx->prompt);
    int fl = app_to_view(a, CMD_SEARCH_NEXT);
    if (!(fl & VF_HANDLED))
        ui_set_status(ctx, "Searching /%s/: this view has nothing to search", ctx->search_text);
    return VF_REDRAW | fl;
}

static int prompt_key(app *a, int key)
{
    ui_ctx *ctx = a->ctx;
    if (key == SVK_ESC) {
        ctx->prompt_open = false;
        return VF_REDRAW;
    }
    if (key == SVK_ENTER)
        return prompt_confirm(a);
    if (key == SVK_BACKSPACE) {
        if (ctx->prompt_len == 0) {
            ctx->prompt_open = false;
            return VF_REDRAW;
        }
        do
            ctx->prompt_len--;
        while (ctx->prompt_len > 0 && (ctx->prompt[ctx->prompt_len] & 0xC0) == 0x80);
        ctx->prompt[ctx->prompt_len] = '\0';
        return VF_REDRAW;
    }
    char u[4];
    size_t k = key > 0 && key < SVK_BASE && !text_is_unsafe_cp((uint32_t)key)
                   ? utf8_encode((uint32_t)key, u)
                   : 0;
    if (k == 0 || ctx->prompt_len + k >= sizeof ctx->prompt)
        return 0;
    memcpy(ctx->prompt + ctx->prompt_len, u, k);
    ctx->prompt_len += k;
    ctx->prompt[ctx->prompt_len] = '\0';
    return VF_REDRAW;
}

/* A switch by the user (Tab, a digit, a click on a tab) leaves nothing for
 * Esc to return to; only a view's jump (ui_open_view) does. */
static void switch_to(ui_ctx *ctx, size_t i)
{
    ctx->current = i;
    ctx->nback = 0;
}

static int app_filter(app *a)
{
    ui_ctx *ctx = a->ctx;
    if (!ctx->has_search && !ctx->filter_on) {
        ui_set_status(ctx, "f filters by the search: press / first");
        return VF_REDRAW;
    }
    ctx->filter_on = !ctx->filter_on;
    /* Every view hears of it, so the hidden ones rebuild their rows too. */
    for (size_t i = 0; i < ctx->nviews; i++)
        if (ctx->views[i]->on_cmd)
            ctx->views[i]->on_cmd(ctx->view_state[i], ctx, CMD_FILTER);
    return VF_REDRAW;
}

static int app_source(app *a)
{
    ui_ctx *ctx = a->ctx;
    int fl = app_to_view(a, CMD_SOURCE);
    if (fl & VF_HANDLED)
        return fl;
    if (!a->pane) {
        ui_set_status(ctx, "No source pane in this build");
        return VF_REDRAW;
    }
    ctx->source_pane = !ctx->source_pane;
    app_layout(a);
    return VF_REDRAW;
}

static int app_cmd(app *a, ui_cmd cmd);

static int app_mouse(app *a, ui_cmd cmd)
{
    ui_ctx *ctx = a->ctx;
    if (ctx->mouse_y == 0 && cmd == CMD_CLICK) {
        int wx, ww;
        warn_span(ctx, &wx, &ww);
        if (ww && ctx->mouse_x >= wx && ctx->mouse_x < wx + ww)
            return app_cmd(a, CMD_WARNINGS);
        size_t i = title_tab_at(ctx, ctx->mouse_x);
        if (i < ctx->nviews)
            switch_to(ctx, i);
        return VF_REDRAW;
    }
    rect p = a->pane_area;
    if (p.w > 0 && ctx->mouse_x >= p.x && ctx->mouse_y >= p.y && ctx->mouse_y < p.y + p.h)
        return a->pane->on_cmd ? a->pane->on_cmd(a->pane_state, ctx, cmd) : 0;
    return app_to_view(a, cmd);
}

/* d and S from views that do not handle them: d lists the selected
 * region's calls, S shows its slowest call in the timeline. */
static int app_drill(ui_ctx *ctx, ui_cmd cmd)
{
    if (cmd == CMD_SLOWEST) {
        ui_select_slowest(ctx);
        ui_open_view(ctx, VIEW_TIMELINE);
    } else if (!ctx->sel.region) {
        ui_set_status(ctx, "Select a call or region first");
        return VF_REDRAW;
    } else {
        ui_open_view(ctx, VIEW_CALLS);
    }
    return VF_REDRAW; /* ui_open_view remembered where for Esc */
}

/* A command the current view did not take. */
static int app_fallback(app *a, ui_cmd cmd)
{
    ui_ctx *ctx = a->ctx;
    if (cmd == CMD_QUIT)
        return VF_QUIT;
    if (cmd == CMD_BACK && ctx->nback > 0) {
        ctx->current = ctx->back[--ctx->nback];
        return VF_REDRAW;
    }
    if (cmd == CMD_DRILL || cmd == CMD_SLOWEST)
        return app_drill(ctx, cmd);
    if ((cmd == CMD_SEARCH_NEXT || cmd == CMD_SEARCH_PREV) && !ctx->has_search) {
        ui_set_status(ctx, "No search yet: press / to search region names");
        return VF_REDRAW;
    }
    if (a->pane_area.w > 0 && a->pane->on_cmd)
        return a->pane->on_cmd(a->pane_state, ctx, cmd);
    return 0;
}

static int app_cmd(app *a, ui_cmd cmd)
{
    ui_ctx *ctx = a->ctx;
    size_t n = ctx->nviews;
    switch (cmd) {
    case CMD_NONE:
        return 0;
    case CMD_HELP:
        ctx->help_open = true;
        ctx->help_top = 0;
        ctx->help_hit = -1;
        return VF_REDRAW;
    case CMD_NEXT_VIEW:
    case CMD_PREV_VIEW: {
        /* the next shown view (compare views only with --diff) */
        size_t i = ctx->current, step = cmd == CMD_NEXT_VIEW ? 1 : n - 1;
        do
            i = (i + step) % n;
        while (i != ctx->current && !ui_view_shown(ctx, i));
        switch_to(ctx, i);
        return VF_REDRAW;
    }
    case CMD_SEARCH:
        ctx->prompt_open = true;
        ctx->prompt_len = 0;
        ctx->prompt[0] = '\0';
        return VF_REDRAW;
    case CMD_FILTER:
        return app_filter(a);
    case CMD_WARNINGS: /* the info view, at its loader warnings */
        ctx->show_warnings = true;
        switch_to(ctx, VIEW_INFO);
        return VF_REDRAW;
    case CMD_SOURCE:
        return app_source(a);
    case CMD_WHEEL_UP:
    case CMD_WHEEL_DOWN:
    case CMD_CLICK:
        return app_mouse(a, cmd);
    default:
        break;
    }
    if (CMD_IS_VIEW(cmd)) {
        ui_open_view(ctx, CMD_VIEW_ID(cmd));
        ctx->nback = 0;
        return VF_REDRAW;
    }
    int fl = app_to_view(a, cmd);
    return fl & VF_HANDLED ? fl : fl | app_fallback(a, cmd);
}

static bool is_view_switch(ui_cmd c)
{
    return c == CMD_NEXT_VIEW || c == CMD_PREV_VIEW || CMD_IS_VIEW(c);
}

/* The source pane's own keys (SCOPE_SOURCE: J K { }) reach it whatever
 * view is current, unless that view binds the key itself. */
static int app_pane_key(app *a, int key)
{
    const keymap *km = &a->ctx->keys;
    if (a->pane_area.w <= 0 || !a->pane->on_cmd || keymap_find(km, (key_scope)a->ctx->current, key))
        return 0;
    const keymap_entry *e = keymap_find(km, SCOPE_SOURCE, key);
    return e && e->cmd != CMD_NONE
               ? a->pane->on_cmd(a->pane_state, a->ctx, (ui_cmd)e->cmd) | VF_HANDLED
               : 0;
}

static int app_key(app *a, int key)
{
    ui_ctx *ctx = a->ctx;
    if (key == SVK_RESIZE)
        return app_resize(a) ? VF_REDRAW : VF_QUIT;
    /* A message lasts until the next key. */
    int fl = ctx->status[0] ? VF_REDRAW : 0;
    ctx->status[0] = '\0';
    if (ctx->prompt_open)
        return fl | prompt_key(a, key);
    ui_cmd cmd = keymap_lookup(&ctx->keys, (key_scope)ctx->current, key);
    if (ctx->help_open) {
        if (!is_view_switch(cmd))
            return fl | help_on_key(ctx, key);
        ctx->help_open = false;
    }
    int pane = app_pane_key(a, key);
    if (pane)
        return fl | pane;
    return fl | app_cmd(a, cmd);
}

/* Moves the background nesting into the profile once the worker has
 * published it (never waits); true when it did, so the screen redraws. */
static bool app_take_calls(app *a)
{
    ui_ctx *ctx = a->ctx;
    if (!ctx->calls_job || !calls_job_done(ctx->calls_job))
        return false;
    sv_error err;
    sv_error_clear(&err);
    if (calls_job_install(ctx->calls_job, &err) != SV_OK)
        ui_set_status(ctx, "%s", err.msg);
    ctx->calls_job = NULL;
    return true;
}

/* The nesting runs on worker threads while the first frame is drawn.  A
 * headless screen waits for it before the first frame, so screens stay
 * deterministic, unless SCOPEVIEW_TEST_CALLS=hold (a test hook): then the
 * worker holds its results until the key <Ready> (SVK_READY).
 * SCOPEVIEW_TEST_CALLS=delay:MS (the terminal's tests) publishes them MS
 * milliseconds late. */
static void app_start_calls(app *a, const app_options *o)
{
    ui_ctx *ctx = a->ctx;
    const char *hook = hook_value(HOOK_TEST_CALLS);
    bool hold = hook && strcmp(hook, "hold") == 0;
    unsigned delay = 0;
    if (hook && strncmp(hook, "delay:", 6) == 0)
        delay = (unsigned)strtoul(hook + 6, NULL, 10) % 600000u;
    sv_error err;
    sv_error_clear(&err);
    sv_err rc = calls_job_start(ctx->prof, hold, delay, a->nest_share, &ctx->calls_job, &err);
    nest_share_unref(a->nest_share);
    a->nest_share = NULL;
    if (rc != SV_OK) {
        ui_set_status(ctx, "%s", err.msg);
        return;
    }
    if (o->headless && !hold)
        calls_job_wait(ctx->calls_job);
    app_take_calls(a);
}

/* Installs the statistics once the receiver has published them (never
 * waits); true when it did.  Warnings they bring go to stderr too in a
 * headless run, as the load's own do (main.c). */
static bool app_take_stats(app *a)
{
    ui_ctx *ctx = a->ctx;
    if (!ctx->stats_job || !stats_job_done(ctx->stats_job))
        return false;
    sv_error err;
    sv_error_clear(&err);
    size_t nnew = 0;
    if (stats_job_install(ctx->stats_job, ctx->prof, &nnew, &err) != SV_OK) {
        snprintf(ctx->stats_error, sizeof ctx->stats_error, "statistics unavailable: %s", err.msg);
        ui_set_status(ctx, "%s", ctx->stats_error);
    }
    ctx->stats_job = NULL;
    for (size_t i = ctx->prof->nwarnings - nnew; ctx->opt->headless && i < ctx->prof->nwarnings;
         i++)
        fprintf(stderr, "scopeview: warning: %s\n", ctx->prof->warnings[i]);
    return true;
}

/* The statistics of a deferred load (isolate.h) are computed on a worker
 * thread, beside the nesting's (app_start_calls, started next).  A
 * headless screen waits for them, as for the nesting, unless
 * SCOPEVIEW_TEST_STATS=hold (then until the key <Ready>): app_wait_stats,
 * once both run.  SCOPEVIEW_TEST_STATS=delay:MS (the terminal's tests)
 * publishes them MS milliseconds late. */
static void app_start_stats(app *a, const app_options *o)
{
    ui_ctx *ctx = a->ctx;
    if (!o->stats_tail)
        return;
    const char *hook = hook_value(HOOK_TEST_STATS);
    bool hold = hook && strcmp(hook, "hold") == 0;
    unsigned delay = 0;
    if (hook && strncmp(hook, "delay:", 6) == 0)
        delay = (unsigned)strtoul(hook + 6, NULL, 10) % 600000u;
    sv_error err;
    sv_error_clear(&err);
    /* The nesting (app_start_calls) starts next on the same profile: its
     * sweep gives the statistics' exclusive totals. */
    if (!o->ooc && !ctx->ooc_open && isolate_tail_local(o->stats_tail))
        a->nest_share = nest_share_new(ctx->prof->nranks);
    if (stats_job_start(o->stats_tail, ctx->prof, hold, delay, a->nest_share, &ctx->stats_job,
                        &err) != SV_OK) {
        snprintf(ctx->stats_error, sizeof ctx->stats_error, "statistics unavailable: %s", err.msg);
        return;
    }
    app_take_stats(a); /* done already without a thread */
}

static void app_wait_stats(app *a, const app_options *o)
{
    const char *hook = hook_value(HOOK_TEST_STATS);
    if (a->ctx->stats_job && o->headless && !(hook && strcmp(hook, "hold") == 0))
        stats_job_wait(a->ctx->stats_job);
    app_take_stats(a);
}

static bool app_take_overview(app *a);

/* Out of core, progressively (app_options.ooc_open): a headless screen
 * waits for the overview, as for the other jobs, unless
 * SCOPEVIEW_TEST_OVERVIEW holds it (hold: the first frame is the
 * skeleton's at once; stop, the loading child stopped: once its pass has
 * reported, so the progress line is definite; first: once a part draws
 * bars, the frame a user calls the first); <Ready> then waits. */
static void app_start_overview(app *a, const app_options *o)
{
    ooc_open_job *j = a->ctx->ooc_open;
    if (!j || !o->headless)
        return;
    if (hook_is(HOOK_TEST_OVERVIEW, "stop"))
        ooc_open_job_wait_sweep(j);
    else if (hook_is(HOOK_TEST_OVERVIEW, "first"))
        ooc_open_job_wait_drawn(j);
    else if (!hook_is(HOOK_TEST_OVERVIEW, "hold"))
        ooc_open_job_wait(j);
    app_take_overview(a);
}

static void app_create_views(app *a);
static void app_destroy_views(app *a);

/* The overview's file in place of the skeleton: the views rebuilt on its
 * profile (the same view shown), its statistics' tail started. */
static void app_install_overview(app *a, ooc_file *f, isolate_tail *tail)
{
    ui_ctx *ctx = a->ctx;
    bool had = ctx->nviews > 0; /* before the first frame app_run makes them */
    app_destroy_views(a);
    ctx->prof = f->skel;
    memset(&ctx->sel, 0, sizeof ctx->sel); /* pointed into the skeleton */
    ctx->sel.call = -1;
    a->opts->ooc = f;
    a->opts->stats_tail = tail;
    if (a->opts->ooc_taken)
        *a->opts->ooc_taken = f;
    for (size_t i = 0; a->opts->headless && i < f->skel->nwarnings; i++)
        fprintf(stderr, "scopeview: warning: %s\n", f->skel->warnings[i]);
    app_start_stats(a, a->opts);
    app_wait_stats(a, a->opts);
    if (!had)
        return;
    app_create_views(a);
    app_layout(a);
}

/* The open's news (never waits): true when the screen should redraw,
 * its progress having moved or its file installed.  A failure ends the
 * app with the open's message (fail_status). */
static bool app_take_overview(app *a)
{
    ui_ctx *ctx = a->ctx;
    if (!ctx->ooc_open)
        return false;
    if (!ooc_open_job_done(ctx->ooc_open)) {
        unsigned seq = ooc_open_job_progress(ctx->ooc_open).seq;
        bool news = seq != ctx->ooc_open_seq;
        ctx->ooc_open_seq = seq;
        return news;
    }
    ooc_file *f = NULL;
    isolate_tail *tail = NULL;
    sv_error err;
    sv_error_clear(&err);
    sv_err rc = ooc_open_job_take(ctx->ooc_open, &f, &tail, &err);
    ctx->ooc_open = NULL;
    if (rc != SV_OK) {
        snprintf(a->fail_msg, sizeof a->fail_msg, "%s", err.msg);
        a->fail_status = sv_err_exit_status(rc);
        return true;
    }
    app_install_overview(a, f, tail);
    return true;
}

static int app_loop(app *a)
{
    bool dirty = true;
    for (;;) {
        if (app_take_calls(a) | app_take_stats(a) | app_take_overview(a))
            dirty = true;
        if (a->fail_status)
            return a->fail_status;
        if (a->ctx->ooc_job && ooc_job_done(a->ctx->ooc_job) && a->ctx->current == VIEW_TIMELINE &&
            !a->ctx->help_open)
            dirty = true; /* the timeline takes its window as it draws (another view: later) */
        if (dirty) {
            app_draw(a);
            a->be.present(a->be.state, a->ctx);
            dirty = false;
        }
        int key = a->be.next_key(a->be.state, a->ctx);
        if (key == SVK_NONE)
            return 0;
        if (key == SVK_READY) {
            /* A terminal: a worker is done (taken above); headless, the key <Ready>: wait
             * until both are.  A terminal never waits for the other one. */
            if (a->ctx->opt->headless)
                ui_jobs_wait(a->ctx);
            continue;
        }
        int fl = app_key(a, key);
        if (fl & VF_QUIT)
            return 0;
        if (fl & VF_REDRAW)
            dirty = true;
    }
}

/* --- set-up and tear-down --- */

static void app_create_views(app *a)
{
    ui_ctx *ctx = a->ctx;
    size_t n;
    ctx->views = views_registry(&n);
    if (ctx->ooc_open) {
        ooc_pending_registry(ctx->views, n, a->pend_ops, a->pend_reg);
        ctx->views = a->pend_reg;
    } else if (ctx->opt->ooc) { /* views that need every call say so (ooc_view.h) */
        bool paths = ctx->prof && ctx->prof->cpaths && ctx->prof->cpaths->available;
        ooc_view_registry(ctx->views, n, paths, a->ooc_reg);
        ctx->views = a->ooc_reg;
    }
    ctx->nviews = n; /* == VIEW_COUNT: ctx->current is a view_id */
    for (size_t i = 0; i < ctx->nviews; i++)
        ctx->view_state[i] = ctx->views[i]->create ? ctx->views[i]->create(ctx) : NULL;
    a->pane = views_source_pane();
    a->pane_state = a->pane && a->pane->create ? a->pane->create(ctx) : NULL;
}

static void app_destroy_views(app *a)
{
    ui_ctx *ctx = a->ctx;
    for (size_t i = 0; i < ctx->nviews; i++)
        if (ctx->views[i]->destroy)
            ctx->views[i]->destroy(ctx->view_state[i]);
    if (a->pane && a->pane->destroy)
        a->pane->destroy(a->pane_state);
    memset(ctx->view_state, 0, sizeof ctx->view_state);
    a->pane_state = NULL;
}

static void app_destroy(app *a)
{
    ui_ctx *ctx = a->ctx;
    calls_job_cancel(ctx->calls_job); /* quitting before it is done */
    ctx->calls_job = NULL;
    stats_job_cancel(ctx->stats_job);
    ctx->stats_job = NULL;
    ooc_open_job_cancel(ctx->ooc_open); /* its loading child is killed, stopped or not */
    ctx->ooc_open = NULL;
    app_destroy_views(a);
    if (ctx->has_search)
        regfree(&ctx->search_re);
    help_search_free(ctx);
    grid_free(&ctx->grid);
    free(ctx);
}

static int app_open_backend(app *a, const app_options *o)
{
    if (o->headless) {
        char msg[256];
        int status = headless_open(&a->be, o, msg, sizeof msg);
        if (status)
            fprintf(stderr, "scopeview: %s\n", msg);
        return status;
    }
    bool colors = false;
    int status = term_open(&a->be, o, &colors);
    a->ctx->mono = o->mono || !colors;
    return status;
}

static int app_close_backend(app *a, const app_options *o)
{
    if (o->headless) {
        headless_close(&a->be);
        return 0;
    }
    return term_close(&a->be);
}

static int app_print(const ui_ctx *ctx, FILE *out)
{
    char *text = grid_to_text(&ctx->grid);
    if (!text) {
        fprintf(stderr, "scopeview: out of memory\n");
        return 1;
    }
    fputs(text, out);
    free(text);
    return 0;
}

/* The config file: --config's (which must exist) or the default one (if
 * any).  A bad line is reported (stderr, and the status line) and skipped.
 * One rule for a file that cannot be read as a config file (unreadable, not
 * a regular file, over 1 MiB), --config's or the default one: exit 2 with
 * its message, as for any other bad argument.  Returns 0 or an exit status. */
static int app_load_config(ui_ctx *ctx, const app_options *o, sv_settings *cfg)
{
    char path[4096];
    const char *file = o->config ? o->config : settings_default_path(path, sizeof path);
    strbuf err;
    sb_init(&err);
    int bad = file ? settings_load(cfg, file, o->config != NULL, &err) : 0;
    if (bad == SETTINGS_UNREADABLE) {
        fprintf(stderr, "scopeview: %.*s\n", err.s ? (int)strcspn(err.s, "\n") : 0,
                err.s ? err.s : "");
        sb_free(&err);
        return 2;
    }
    if (bad && err.s) {
        size_t first = strcspn(err.s, "\n");
        int shown = 0;
        for (const char *line = err.s; *line && shown < 10; line += strcspn(line, "\n") + 1) {
            fprintf(stderr, "scopeview: %.*s\n", (int)strcspn(line, "\n"), line);
            shown++;
        }
        if (bad > shown) /* a file that is not a config at all: not a screenful of lines */
            fprintf(stderr, "scopeview: ... and %d more problems in the config file\n",
                    bad - shown);
        ui_set_status(ctx, "%.*s%s", (int)first, err.s, bad > 1 ? " (and more: see stderr)" : "");
    }
    sb_free(&err);
    return 0;
}

int app_run(profile *p, const app_options *o, FILE *out)
{
    bool have_utf8;
    bool user_utf8 = app_set_locale(&have_utf8);
    app a = {.ctx = calloc(1, sizeof(ui_ctx))};
    if (!a.ctx) {
        isolate_tail_free(o->stats_tail);
        ooc_open_job_cancel(o->ooc_open);
        fprintf(stderr, "scopeview: out of memory\n");
        return 1;
    }
    ui_ctx *ctx = a.ctx;
    ctx->prof = p;
    ctx->opt = o;
    ctx->mono = o->mono;
    /* The headless screen is UTF-8 like every batch output; a terminal gets
     * Unicode only when its locale says it can show it. */
    ctx->ascii = o->ascii || !have_utf8 || (!o->headless && !user_utf8);
    ctx->grid.ascii = ctx->ascii;
    ctx->sel.call = -1;
    sv_settings *cfg = malloc(sizeof *cfg);
    if (!cfg || !settings_defaults(cfg)) {
        fprintf(stderr, "scopeview: out of memory (or the built-in key table does not parse)\n");
        isolate_tail_free(o->stats_tail);
        ooc_open_job_cancel(o->ooc_open);
        free(cfg);
        free(ctx);
        return 1;
    }
    int status = app_load_config(ctx, o, cfg);
    /* The backend sees the config's colours; --mono or theme mono: none. */
    app_options opts = *o;
    opts.palette = &cfg->pal;
    opts.mono = o->mono || cfg->pal.mono;
    ctx->opt = o = &opts;
    a.opts = &opts;
    ctx->ooc_open = o->ooc_open; /* the app's from here on */
    ctx->mono = o->mono;
    ctx->keys = cfg->keys;
    ctx->cfg = cfg;
    if (!status)
        status = app_open_backend(&a, o);
    if (status) {
        isolate_tail_free(o->stats_tail);
        ooc_open_job_cancel(ctx->ooc_open);
        free(cfg);
        free(ctx);
        return status;
    }
    app_start_stats(&a, o);
    /* After the stats: an overview taken at once starts its own (its tail). */
    app_start_overview(&a, o);
    if (!o->ooc) /* out of core the skeleton has no calls to nest */
        app_start_calls(&a, o);
    app_wait_stats(&a, o);
    app_create_views(&a);
    /* A comparison opens on the compare view, whatever the config's default. */
    int first = o->view   ? scope_lookup(o->view)
                : o->diff ? (int)VIEW_COMPARE
                          : (int)cfg->default_view;
    if (first >= 0 && (size_t)first < ctx->nviews && ui_view_shown(ctx, (size_t)first))
        ctx->current = (size_t)first;
    bool sized = ctx->nviews > 0 && app_resize(&a);
    if (sized)
        status = app_loop(&a);
    int closed = app_close_backend(&a, o);
    if (a.fail_status)
        fprintf(stderr, "scopeview: %s\n", a.fail_msg);
    else if (!sized && ctx->nviews)
        fprintf(stderr, "scopeview: a %dx%d screen is too large (at most %zu cells)\n", o->cols,
                o->rows, GRID_MAX_CELLS);
    else if (!sized)
        fprintf(stderr, "scopeview: no views\n");
    else if (o->headless && !a.fail_status)
        status = app_print(ctx, out);
    if (out)
        fflush(out); /* the screen is out before the teardown (which joins the worker) */
    if (sized && o->headless)
        memreport_maybe(ctx->prof); /* make bench's bytes per call */
    app_destroy(&a);
    free(cfg);
    return closed ? closed : sized ? status : 1;
}
