/* grid: the screen as a grid of cells that every view draws into.
 *
 * Views never call curses.  They write into a grid; a backend then shows
 * it: the ncursesw backend (term.c) copies it to the terminal, the headless
 * backend prints it as plain text.  So the headless screen mode runs
 * exactly the same drawing code as the interactive one. */
#ifndef SV_GRID_H
#define SV_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "theme.h"

typedef struct cell {
    uint32_t ch;  /* code point; 0 marks the right half of a wide character */
    uint8_t role; /* theme_role */
    uint8_t attr; /* GA_* flags on top of the role */
} cell;

enum { GA_BOLD = 1, GA_REVERSE = 2, GA_DIM = 4, GA_UNDERLINE = 8 };

typedef struct grid {
    int cols, rows;
    cell *cells; /* rows * cols */
    bool ascii;  /* draw with ASCII glyphs only */
} grid;

typedef struct rect {
    int x, y, w, h;
} rect;

/* The largest screen: 4 Mi cells (2048x2048, or 10000x419), about 32 MB. */
#define GRID_MAX_CELLS ((size_t)4 << 20)

/* Sizes below 1 count as 1; false (g unchanged) above GRID_MAX_CELLS or
 * when memory runs out. */
bool grid_resize(grid *g, int cols, int rows);
void grid_free(grid *g);
void grid_clear(grid *g);
void grid_fill(grid *g, rect r, uint32_t ch, int role, int attr);
void grid_put_cp(grid *g, int x, int y, uint32_t ch, int role, int attr);

/* Writes UTF-8 text at (x, y) within max_w columns, measured by display
 * width (wcwidth).  Control characters and invalid bytes are shown escaped
 * (never raw); a cut is marked with an ellipsis.  Returns columns used. */
int grid_put_text(grid *g, int x, int y, int max_w, const char *utf8, int role, int attr);

/* The same for the first n bytes of utf8 (a line of a longer text); a NUL
 * byte ends the text earlier. */
int grid_put_textn(grid *g, int x, int y, int max_w, const char *utf8, size_t n, int role,
                   int attr);

/* The same, but a text too wide is cut in the middle, keeping its last
 * third: names that differ at their ends ("ThreadPoolExecutor-0_1") stay
 * apart.  Below 8 columns it cuts at the end.  Returns columns used. */
int grid_put_text_mid(grid *g, int x, int y, int max_w, const char *utf8, int role, int attr);

/* Display width of text as grid_put_text would draw it (escapes included)
 * in Unicode mode. */
int text_display_width(const char *utf8);

/* The same for g's mode (in ASCII mode every non-ASCII character is shown
 * as a \uXXXX escape). */
int grid_text_width(const grid *g, const char *utf8);

/* The same for the first n bytes of utf8. */
int grid_text_widthn(const grid *g, const char *utf8, size_t n);

/* Columns a code point takes when drawn with grid_put_cp (1 or 2). */
int grid_cp_width(const grid *g, uint32_t cp);

/* Encodes a code point as UTF-8 into out (no NUL); returns the bytes used
 * (0 for surrogates and values above U+10FFFF). */
size_t utf8_encode(uint32_t cp, char out[4]);

/* The grid as plain UTF-8 text, one line per row, trailing spaces kept
 * trimmed; caller frees. */
char *grid_to_text(const grid *g);

#endif
