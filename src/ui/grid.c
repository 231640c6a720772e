/* grid: cells, display widths and safe text drawing.
 *
 * Every string from a profile reaches the screen through grid_put_text, so
 * this is where untrusted text is made harmless: control characters and
 * invalid bytes become visible escapes, zero-width characters are dropped
 * (a cell holds one code point, and a terminal that joins them would shift
 * the rest of the line), and widths come from wcwidth in the UTF-8 locale
 * app_run sets, the same for the terminal and the headless backend. */
#include "grid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "util/text.h"

/* Larger grids are refused: no terminal is that big, and rows * cols must
 * not overflow. */
#define GRID_MAX_SIDE 10000

size_t utf8_encode(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
        return 0;
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Width of a code point that may be drawn as is: 1 or 2; 0 for one to
 * drop (zero width); -1 for one to show escaped. */
static int cp_class(uint32_t cp, bool ascii)
{
    if (cp >= 0x20 && cp < 0x7F)
        return 1;
    if (text_is_unsafe_cp(cp) || ascii)
        return -1;
    int w = wcwidth((wchar_t)cp);
    return w > 2 ? -1 : w;
}

int grid_cp_width(const grid *g, uint32_t cp)
{
    int w = cp_class(cp, g && g->ascii);
    return w == 2 ? 2 : 1;
}

/* The text as a stream of display units, escapes expanded one ASCII
 * character at a time. */
typedef struct text_iter {
    const char *s;
    size_t n, i;
    bool ascii;
    char esc[16];
    int esc_len, esc_pos;
} text_iter;

static void ti_init(text_iter *it, const char *s, size_t n, bool ascii)
{
    *it = (text_iter){.s = s, .n = n, .ascii = ascii};
}

/* The same spelling as text_escape (util/text.c), so a name reads the
 * same on screen and in the batch outputs. */
static void ti_escape(text_iter *it, uint32_t cp)
{
    if (cp == '\t' || cp == '\n' || cp == '\r')
        it->esc_len = snprintf(it->esc, sizeof it->esc, "\\%c",
                               cp == '\t'   ? 't'
                               : cp == '\n' ? 'n'
                                            : 'r');
    else if (cp < 0x80)
        it->esc_len = snprintf(it->esc, sizeof it->esc, "\\x%02x", (unsigned)cp);
    else
        it->esc_len = snprintf(it->esc, sizeof it->esc, "\\u%04x", (unsigned)cp);
    it->esc_pos = 0;
}

static bool ti_next(text_iter *it, uint32_t *cp, int *w)
{
    for (;;) {
        if (it->esc_pos < it->esc_len) {
            *cp = (unsigned char)it->esc[it->esc_pos++];
            *w = 1;
            return true;
        }
        if (it->i >= it->n || it->s[it->i] == '\0')
            return false;
        uint32_t c;
        size_t k = utf8_decode(it->s + it->i, it->n - it->i, &c);
        if (k == 0) {
            it->esc_len =
                snprintf(it->esc, sizeof it->esc, "\\x%02x", (unsigned)(unsigned char)it->s[it->i]);
            it->esc_pos = 0;
            it->i++;
            continue;
        }
        it->i += k;
        int cw = cp_class(c, it->ascii);
        if (cw < 0) {
            ti_escape(it, c);
            continue;
        }
        if (cw == 0)
            continue;
        *cp = c;
        *w = cw;
        return true;
    }
}

bool grid_resize(grid *g, int cols, int rows)
{
    if (cols < 1)
        cols = 1;
    if (rows < 1)
        rows = 1;
    if (cols > GRID_MAX_SIDE || rows > GRID_MAX_SIDE ||
        (size_t)cols * (size_t)rows > GRID_MAX_CELLS)
        return false;
    cell *c = realloc(g->cells, (size_t)cols * (size_t)rows * sizeof *c);
    if (!c)
        return false;
    g->cells = c;
    g->cols = cols;
    g->rows = rows;
    grid_clear(g);
    return true;
}

void grid_free(grid *g)
{
    free(g->cells);
    g->cells = NULL;
    g->cols = g->rows = 0;
}

void grid_clear(grid *g)
{
    size_t n = (size_t)g->cols * (size_t)g->rows;
    for (size_t i = 0; i < n; i++)
        g->cells[i] = (cell){' ', ROLE_NORMAL, 0};
}

static cell *at(grid *g, int x, int y)
{
    return &g->cells[(size_t)y * (size_t)g->cols + (size_t)x];
}

/* Writing over half of a wide character blanks its other half, so no
 * orphan half is ever left to shift the line. */
static void unpair(grid *g, int x, int y)
{
    if (at(g, x, y)->ch == 0 && x > 0)
        at(g, x - 1, y)->ch = ' ';
    if (x + 1 < g->cols && at(g, x + 1, y)->ch == 0)
        at(g, x + 1, y)->ch = ' ';
}

static void put_unit(grid *g, int x, int y, uint32_t ch, int w, int role, int attr)
{
    if (w == 2 && x + 1 >= g->cols) {
        ch = ' ';
        w = 1;
    }
    unpair(g, x, y);
    *at(g, x, y) = (cell){ch, (uint8_t)role, (uint8_t)attr};
    if (w == 2) {
        unpair(g, x + 1, y);
        *at(g, x + 1, y) = (cell){0, (uint8_t)role, (uint8_t)attr};
    }
}

void grid_put_cp(grid *g, int x, int y, uint32_t ch, int role, int attr)
{
    if (x < 0 || y < 0 || x >= g->cols || y >= g->rows)
        return;
    int w = cp_class(ch, g->ascii);
    if (w <= 0) {
        ch = '?';
        w = 1;
    }
    put_unit(g, x, y, ch, w, role, attr);
}

void grid_fill(grid *g, rect r, uint32_t ch, int role, int attr)
{
    int x0 = r.x < 0 ? 0 : r.x, y0 = r.y < 0 ? 0 : r.y;
    int x1 = r.x + r.w > g->cols ? g->cols : r.x + r.w;
    int y1 = r.y + r.h > g->rows ? g->rows : r.y + r.h;
    int w = grid_cp_width(g, ch);
    for (int y = y0; y < y1; y++) {
        for (int x = x0; x < x1; x += w) {
            if (x + w > x1)
                grid_put_cp(g, x, y, ' ', role, attr);
            else
                grid_put_cp(g, x, y, ch, role, attr);
        }
    }
}

/* True when the units left in it (after one of width w) fit in room
 * columns.  Stops as soon as they do not, so a cut costs the width of the
 * cut, not the length of the string. */
static bool rest_fits(text_iter it, int w, int room)
{
    uint32_t cp;
    int total = w, uw;
    while (total <= room && ti_next(&it, &cp, &uw))
        total += uw;
    return total <= room;
}

int grid_put_textn(grid *g, int x, int y, int max_w, const char *utf8, size_t n, int role, int attr)
{
    if (!utf8 || y < 0 || y >= g->rows || x < 0 || x >= g->cols || max_w <= 0)
        return 0;
    if (max_w > g->cols - x)
        max_w = g->cols - x;
    text_iter it;
    ti_init(&it, utf8, n, g->ascii);
    uint32_t cp;
    int w, col = 0;
    while (ti_next(&it, &cp, &w)) {
        if (col + w <= max_w - 1 || (col + w <= max_w && rest_fits(it, w, max_w - col))) {
            put_unit(g, x + col, y, cp, w, role, attr);
            col += w;
            continue;
        }
        while (col < max_w - 1)
            put_unit(g, x + col++, y, ' ', 1, role, attr);
        put_unit(g, x + col++, y, theme_glyphs_get(g->ascii)->ellipsis, 1, role, attr);
        break;
    }
    return col;
}

int grid_put_text(grid *g, int x, int y, int max_w, const char *utf8, int role, int attr)
{
    /* No strlen: a cut 10 MB name costs its visible width, not its length. */
    return utf8 ? grid_put_textn(g, x, y, max_w, utf8, SIZE_MAX, role, attr) : 0;
}

static int width_of(const char *utf8, size_t n, bool ascii)
{
    if (!utf8)
        return 0;
    text_iter it;
    ti_init(&it, utf8, n, ascii);
    uint32_t cp;
    int w, total = 0;
    /* Saturates rather than overflows on absurd input. */
    while (ti_next(&it, &cp, &w) && total < INT32_MAX - 2)
        total += w;
    return total;
}

int text_display_width(const char *utf8)
{
    return utf8 ? width_of(utf8, strlen(utf8), false) : 0;
}

int grid_text_width(const grid *g, const char *utf8)
{
    return utf8 ? width_of(utf8, strlen(utf8), g && g->ascii) : 0;
}

int grid_text_widthn(const grid *g, const char *utf8, size_t n)
{
    return width_of(utf8, n, g && g->ascii);
}

char *grid_to_text(const grid *g)
{
    size_t cap = (size_t)g->rows * ((size_t)g->cols * 4 + 1) + 1;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    size_t len = 0;
    for (int y = 0; y < g->rows; y++) {
        size_t keep = len;
        for (int x = 0; x < g->cols; x++) {
            uint32_t ch = g->cells[(size_t)y * (size_t)g->cols + (size_t)x].ch;
            if (ch == 0)
                continue;
            len += utf8_encode(ch, out + len);
            if (ch != ' ')
                keep = len;
        }
        len = keep;
        out[len++] = '\n';
    }
    out[len] = '\0';
    return out;
}

int grid_put_text_mid(grid *g, int x, int y, int max_w, const char *utf8, int role, int attr)
{
    const char *text = utf8 ? utf8 : "";
    /* Measure no more than the field needs: names can be a megabyte long. */
    size_t cap = 4 * (size_t)(max_w > 0 ? max_w : 0) + 8, n = strnlen(text, cap);
    bool wide = n == cap || grid_text_widthn(g, text, n) > max_w;
    if (!wide || max_w < 8)
        return grid_put_text(g, x, y, max_w, text, role, attr);
    int tail_w = (max_w - 1) / 3;
    size_t len = strlen(text), start = len;
    /* The longest suffix (at a character boundary) that fits tail_w. */
    for (size_t k = len; k-- > 0;) {
        if (((unsigned char)text[k] & 0xC0) == 0x80)
            continue;
        if (grid_text_width(g, text + k) > tail_w)
            break;
        start = k;
    }
    int tw = grid_text_width(g, text + start);
    /* The head is wider than its room, so grid_put_textn marks the cut. */
    int used = grid_put_textn(g, x, y, max_w - tw, text, start, role, attr);
    return used + grid_put_text(g, x + used, y, tw, text + start, role, attr);
}
