/* load_columnar_internal: what load_columnar.c (the index, the event
 * columns, the file) and load_colrows.c (each row: decoding, checks,
 * strings, summaries, commit) share. */
#ifndef SV_LOAD_COLUMNAR_INTERNAL_H
#define SV_LOAD_COLUMNAR_INTERNAL_H

#include "h5util_cols.h"
#include "loader_internal.h"

typedef struct lc_file {
    ld_index ix;
    uint64_t *off, *cnt;
    int64_t *lines, *excl;             /* NULL when absent */
    h5u_strs files, texts, tags, meta; /* n == 0 when absent */
    h5u_sumstat *sum;                  /* NULL when absent */
    region *stage;                     /* P */
    size_t *order;                     /* kept rows by offset */
    size_t nkept;
    uint64_t nev;         /* N: calls past it are not read (the shorter timing column) */
    uint64_t nfull;       /* the first timing column's length */
    const char *nev_name; /* the column that sets nev */
    bool events;          /* event columns read (else summaries only) */
    bool has_await;
    const char *const *tnames; /* the two timing column names */
    struct sc_file *sc;        /* out-of-core: the streamed columns (stream_col.h), or NULL */
    /* The kept rows are an MPI part's share of their ranks' (load_rows.h):
     * the merge decides on all of them. */
    bool share;
} lc_file;

static inline const char *row_name(const lc_file *lf, size_t i)
{
    return lf->ix.names.v[lf->ix.rid[i]];
}

/* "events/NAME" for messages. */
static inline const char *ev_path(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "events/%s", name);
    return buf;
}

/* Keeps in lf->order only the rows part pt owns (load_rows.c); false on
 * NOMEM. */
struct load_part;
bool lc_partition(lc_file *lf, const struct load_part *pt);

/* Validates and commits rows[0..n), the kept rows of rank `rank` in
 * offset order (load_colrows.c). */
sv_err lc_commit_rank(ld_ctx *c, lc_file *lf, const ld_lane_tables *lt, int rank,
                      const size_t *rows, size_t n);

#endif
