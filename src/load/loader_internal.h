/* loader_internal: what the loader's files share (loader.c: entry, schema
 * detection, dispatch, messages, staging; load_groups.c: schema 1;
 * load_tables.c: thread and task tables; load_columnar.c: schema 2 and 3;
 * load_aggregate.c: the aggregate layout; load_aux.c: auxiliary records).
 * Only these files and h5util*.c include hdf5.h. */
#ifndef SV_LOADER_INTERNAL_H
#define SV_LOADER_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "h5util.h"
#include "loader.h"
#include "util/strbuf.h"

/* Deeper group chains are not walked (a warning says so). */
#define LD_MAX_DEPTH 64
/* Room for escaped names inside one message line. */
#define LD_ESC_PATH 400 /* a path over 200 characters (a deep checkout) is kept whole */
#define LD_ESC_NAME 160
#define LD_LINE 1024

/* Object addresses of the groups already walked in the current rank: a
 * group hard-linked under two names (or into its own ancestor) is walked
 * once, which bounds the walk by the number of groups in the file. */
typedef struct addr_set {
    uint64_t *v;
    size_t cap, n;
} addr_set;

/* The profile's ranks by rank number (ld_rank): a hostile mpi_size asks for
 * 65,536 ranks, and a linear search per rank made the load quadratic.  Slots
 * hold rank << 32 | index into p->ranks; the ranks from p->ranks[indexed]
 * on are added at the next lookup, so ranks added elsewhere are found too. */
typedef struct rank_map {
    uint64_t *v;
    size_t cap, n, indexed;
} rank_map;

typedef struct ld_ctx {
    profile *p;
    const load_options *opt;
    h5u_reader rd;
    char path[LD_ESC_PATH]; /* escaped file name, the start of every message */
    int rank;               /* the rank being loaded, -1 outside ranks */
    size_t meta_cap;
    addr_set seen;
    addr_set rank_groups; /* object addresses of the rank groups loaded (aliases) */
    rank_map ranks;
    bool depth_warned;
    /* Columnar layouts: */
    int schema;        /* scope_profiler_schema (1 when absent) */
    int rank_override; /* >= 0: every row is this rank (a C-API file set) */
    int64_t mpi_size;  /* metadata mpi_size, 0 when absent */
    int64_t mpi_rank;  /* metadata mpi_rank, -1 when absent */
    /* A file set (profile_load_set): */
    bool in_set;
    size_t set_index; /* which file of the set */
    int name_rank;    /* N of "_rank<N>.h5" in the file name, -1 none */
    bool skip_file;   /* this file's rank came already */
    bool streamed;    /* out-of-core: regions are streamed (stream_col.h) */
    bool meta_taken;  /* a file of the set gave the profile its /metadata */
    int *set_ranks;   /* the rank of each file of the set (-1: none yet) */
    char **formats;   /* what each file of the set is (profile.path_formats) */
    /* The native trace being read (load_spt.c): */
    int spt_version;
    bool spt_big_endian;
    struct sc_file *sg; /* out-of-core schema 1: the stream's state (stream_grp.c), or NULL */
} ld_ctx;

/* The load's sink (load_sink.h): the options', or the model's, finished,
 * when none (load_sink.c). */
const load_sink *ld_sink(const ld_ctx *c);

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

/* --- file sets (loader.c) --- */
/* The error for a file claiming a rank an earlier file of the set has. */
sv_err ld_set_claimed(ld_ctx *c, int rank, sv_error *err);
/* Notes what the file being loaded is (printf-style; SV_ERR_NOMEM). */
sv_err ld_note_format(ld_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* --- native traces (load_spt.c) --- */
/* "SCOPEPRF": the first bytes of a native trace. */
bool ld_spt_magic(const unsigned char *head, size_t n);
/* Loads the trace open as fp (size bytes) as one rank of c->p. */
sv_err ld_load_spt(ld_ctx *c, FILE *fp, uint64_t size, sv_error *err);

/* --- tables (load_tables.c) --- */
sv_err ld_load_threads(ld_ctx *c, rank_data *rk, hid_t rg);
sv_err ld_load_tasks(ld_ctx *c, rank_data *rk, hid_t rg);
/* One column of table group tg (a warning and *out NULL when bad; *present
 * set when the link exists). */
sv_err ld_table_i64(ld_ctx *c, hid_t tg, const char *table, const h5u_list *l, const char *col,
                    int64_t **out, size_t *n, bool *present);
sv_err ld_table_strs(ld_ctx *c, hid_t tg, const char *table, const h5u_list *l, const char *col,
                     char ***out, size_t *n, bool *present);

/* The columnar /thread_table and /task_table, every rank's rows. */
enum { LT_THREAD_I64 = 8, LT_THREAD_STR = 1, LT_TASK_I64 = 8, LT_TASK_STR = 3 };
typedef struct ld_lane_tables {
    bool has_threads, has_tasks;
    size_t nt, nk;
    /* ranks, index, ident, native_id, daemon, start_ns, end_ns, cpu_ns */
    int64_t *ti[LT_THREAD_I64];
    char **ts[LT_THREAD_STR]; /* name */
    /* ranks, index, thread_index, created_ns, done_ns, steps, running_ns, suspended_ns */
    int64_t *ki[LT_TASK_I64];
    char **ks[LT_TASK_STR]; /* kind, name, coro_name */
} ld_lane_tables;
sv_err ld_read_lane_tables(ld_ctx *c, hid_t f, const h5u_list *root, ld_lane_tables *t);
/* rk's rows of t into rk->threads / rk->tasks, placed by their index. */
sv_err ld_lane_tables_rank(ld_ctx *c, const ld_lane_tables *t, rank_data *rk);
void ld_lane_tables_free(ld_lane_tables *t);

/* --- columnar layouts (load_columnar.c, load_aggregate.c) --- */

/* The (region, rank) rows of rank_region_index that both layouts share. */
typedef struct ld_index {
    size_t P;       /* rows */
    uint64_t *rid;  /* region_ids */
    int *rank;      /* ranks (or the file set's rank) */
    h5u_strs names; /* region_table/names */
    bool *keep;     /* false: row dropped (warning given) */
} ld_index;

/* Schema 2/3, storage_layout "columnar" or "aggregate" (the regions; the
 * rank<N> groups are the caller's). */
sv_err ld_load_columnar(ld_ctx *c, hid_t f, const h5u_list *root, bool aggregate, sv_error *err);
sv_err ld_load_aggregate(ld_ctx *c, hid_t f, ld_index *ix);
/* The rank_data of `rank`, added when missing; NULL on NOMEM.  Valid until
 * the next call (the rank array grows). */
/* The profile's rank `rank`, added when missing (NULL on NOMEM); a hash
 * lookup, not a search. */
rank_data *ld_rank(ld_ctx *c, int rank);
/* Reads whole 1-D integer dataset `path` below f as int64 (any integer
 * type); a warning and NULL when bad or not n long
 * (n == SIZE_MAX: any length, returned in *len). */
sv_err ld_read_i64_col(ld_ctx *c, hid_t f, const char *path, size_t n, int64_t **out, size_t *len);

#endif
