/* table: a sortable table drawn into a grid, shared by the list views.
 *
 * The table owns what every list view repeats: which columns fit the
 * width (dropping the least important ones on narrow screens), their
 * positions measured in display columns, the header with the htop-style
 * sort indicator, the cursor and the scroll position, and the keys that
 * move them or change the sort.  The view keeps its rows and draws each
 * cell with table_put(), so it decides text, colours and marks. */
#ifndef SV_TABLE_H
#define SV_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/grid.h"
#include "ui/keys.h"

#define TABLE_MAX_COLS 24

typedef struct table_col {
    const char *title;
    int width; /* display columns; for the flex column, its smallest width */
    int drop;  /* 0: never dropped; otherwise higher numbers go first */
    bool left; /* left-aligned text (numbers are right-aligned) */
    bool flex; /* takes the width the others leave (one column at most) */
    bool asc;  /* sorted smallest first when chosen (numbers otherwise largest first) */
    bool pin;  /* stays when scrolled sideways (a row's mark, which says what the row is) */
} table_col;

typedef struct table {
    const table_col *cols;
    size_t ncols;
    uint32_t hidden; /* bit i: the view hides column i (no such data) */
    size_t sort_col;
    bool sort_desc;
    size_t nrows;
    size_t cursor, top;
    /* layout of the last table_layout() / table_draw_header() */
    uint32_t shown;
    int x[TABLE_MAX_COLS], w[TABLE_MAX_COLS];
    int left, width;          /* the table's columns on screen */
    int want[TABLE_MAX_COLS]; /* a name column's widest text (table_want), 0: none */
    size_t hscroll;  /* Left/Right: 0 fits by priority, k > 0 starts at data column k - 1 + lead */
    size_t lead;     /* 1 when the fit by priority shows the first data column, else 0 */
    size_t nmore;    /* data columns that do not fit (the header says "▸ N more") */
    size_t more_col; /* the flex column whose header holds that marker, ncols: the right end */
    int body_y;      /* screen row of the first data row */
    int page;        /* data rows that fit */
} table;

/* What table_on_cmd() did. */
enum table_result { TABLE_IGNORED, TABLE_MOVED, TABLE_SORTED };

void table_init(table *t, const table_col *cols, size_t ncols, size_t sort_col, bool desc);

/* Chooses the columns that fit area.w and their positions; the header goes
 * on row area.y and data rows below it.  With hscroll 0 the least important
 * columns go first; scrolled sideways (Left/Right, as less -S), the first
 * column and the pinned ones stay and the others follow in order.  The first
 * step right starts at the first data column when the fit by priority had
 * dropped it (so every column can be reached), else at the second.  When
 * columns do not fit, the header ends with "▸ N more". */
void table_layout(table *t, const grid *g, rect area);

/* Tells the layout that name column col (left-aligned) holds texts up to
 * width columns wide: it grows from its smallest width towards that before
 * the flex column takes the rest, and a flex name column grows no wider,
 * so the numbers stay next to their names.  0 forgets it. */
void table_want(table *t, size_t col, int width);

/* Header titles (the sort column marked with an arrow). */
void table_draw_header(const table *t, grid *g, int y);

static inline bool table_col_shown(const table *t, size_t col)
{
    return col < t->ncols && (t->shown >> col) & 1u;
}

/* Writes text in column col of screen row y, aligned and cut to the
 * column: a left-aligned (name) column cuts in the middle and keeps the
 * distinguishing tail (grid_put_text_mid), numbers cut at the end.
 * Nothing when the column is not shown. */
void table_put(const table *t, grid *g, size_t col, int y, const char *text, int role, int attr);

/* Paints row y as the cursor row: the selection colour across the table
 * and a marker in the left margin (visible without colour too). */
void table_draw_cursor(const table *t, grid *g, int y);

/* Row y's screen row for data row index row, -1 when not visible. */
int table_row_y(const table *t, size_t row);

/* Sets the row count (after the view rebuilt its rows); clamps the
 * cursor and keeps it visible. */
void table_set_rows(table *t, size_t nrows);

/* Moves the cursor to row (clamped) and scrolls to show it. */
void table_goto(table *t, size_t row);

/* Keeps the cursor on screen (call after table_layout). */
void table_scroll(table *t);

/* Cursor keys, wheel, clicks (a click on a header title sorts by that
 * column), Left/Right to scroll the columns sideways, and < > I for the sort.  mouse_x/y are the
 * last mouse position. */
enum table_result table_on_cmd(table *t, ui_cmd cmd, int mouse_x, int mouse_y);

#endif
