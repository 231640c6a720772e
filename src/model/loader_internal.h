/* loader_internal: what the loader's files share (loader.c: entry, schema
 * detection, dispatch, messages, staging; load_groups.c: schema 1;
 * load_tables.c: thread and task tables; load_columnar.c: schema 2 and 3;
 * load_aggregate.c: the aggregate layout; load_aux.c: auxiliary records).
 * Only these files, h5util and probe include hdf5.h. */
#ifndef SV_LOADER_INTERNAL_H
#define SV_LOADER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "h5util.h"
#include "loader.h"
#include "strbuf.h"

/* Deeper group chains are not walked (a warning says so). */
#define LD_MAX_DEPTH 64
/* Room for escaped names inside one message line. */
#define LD_ESC_PATH 240
#define LD_ESC_NAME 160
#define LD_LINE 1024

/* Object addresses of the groups already walked in the current rank: a
 * group hard-linked under two names (or into its own ancestor) is walked
 * once, which bounds the walk by the number of groups in the file. */
typedef struct addr_set {
    uint64_t *v;
    size_t cap, n;
} addr_set;

typedef struct ld_ctx {
    profile *p;
    const load_options *opt;
    h5u_reader rd;
    char path[LD_ESC_PATH]; /* escaped file name, the start of every message */
    int rank;               /* the rank being loaded, -1 outside ranks */
    size_t meta_cap;
    addr_set seen;
    bool depth_warned;
} ld_ctx;

/* --- messages (loader.c) --- */

/* "PATH: rank N: region NAME: KIND ITEM: " + fmt, names escaped, as one
 * profile warning. reg, kind may be NULL. */
void ld_warn(ld_ctx *c, const char *reg, const char *kind, const char *item, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
sv_err ld_nomem(const ld_ctx *c, sv_error *err);
void ld_progress(const ld_ctx *c);

/* --- address set --- */
int ld_addr_set_add(addr_set *s, uint64_t a); /* 1 new, 0 seen, -1 NOMEM */
void ld_addr_set_clear(addr_set *s);

/* --- staging --- */
void ld_free_strv(char **v, size_t n);
/* Hands a validated staged region to the model (tmp is emptied). */
sv_err ld_stage_commit(rank_data *rk, const char *name, region *tmp);
void ld_drop_col(int64_t **col);

/* --- validation: index of the first bad element, or n --- */
size_t ld_first_end_before_start(const int64_t *s, const int64_t *e, size_t n);
size_t ld_first_outside(const int64_t *v, size_t n, int64_t lo, int64_t hi);
size_t ld_first_bad_await(const int64_t *a, const int64_t *s, const int64_t *e, size_t n);

/* --- ranks --- */
bool ld_parse_rank(const char *name, int *rank); /* "rank<N>" */
bool ld_rank_exists(const profile *p, int rank);

/* --- schema 1 (load_groups.c) --- */
/* Loads root group gname as rank `rank`: tables, then regions. */
sv_err ld_load_rank_group(ld_ctx *c, hid_t f, const char *gname, int rank);

/* --- tables (load_tables.c) --- */
sv_err ld_load_threads(ld_ctx *c, rank_data *rk, hid_t rg);
sv_err ld_load_tasks(ld_ctx *c, rank_data *rk, hid_t rg);

#endif
