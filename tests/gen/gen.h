/* gen: a tiny HDF5 writer for scope-profiler profiles, used only by svgen.
 *
 * It writes files the way h5py does (int64 LE columns in 1-D chunked datasets
 * with unlimited max dims, variable-length UTF-8 string attributes, Python
 * bool as an enum of int8) and deliberately shares no code with the
 * project's reader, so tests can compare the reader against it.
 *
 * Every function checks its HDF5 calls; on failure it prints one line to
 * stderr and exits with status 1 (svgen is a tool, not a library: a partial
 * profile is worthless, so there is nothing to recover). */
#ifndef SV_GEN_H
#define SV_GEN_H

#include <hdf5.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ errors */

/* Print "svgen: MSG" (printf-style) and exit 1. */
_Noreturn void gen_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* malloc/calloc that die instead of returning NULL. */
void *gen_alloc(size_t nmemb, size_t size);
char *gen_strdup(const char *s);

/* --------------------------------------------------- files and groups */

hid_t gen_file_create(const char *path);
void gen_close(hid_t id); /* any object: file, group, dataset, type */
/* Open or create the group at PATH below LOC ("a/b/c" creates a, a/b, a/b/c). */
hid_t gen_group(hid_t loc, const char *path);
/* Group "rank<N>" of FILE (created when missing). */
hid_t gen_rank(hid_t file, int rank);

/* ------------------------------------------------------- attributes */

typedef enum gen_kind { GEN_STR, GEN_INT, GEN_FLOAT, GEN_BOOL } gen_kind;

/* One scalar attribute; a table of these describes /metadata or a summary. */
typedef struct gen_kv {
    const char *key;
    gen_kind kind;
    const char *s; /* GEN_STR */
    int64_t i;     /* GEN_INT, GEN_BOOL */
    double f;      /* GEN_FLOAT */
} gen_kv;

void gen_attr_str(hid_t loc, const char *name, const char *value);
void gen_attr_strs(hid_t loc, const char *name, const char *const *values, size_t n);
void gen_attr_int(hid_t loc, const char *name, int64_t value);
void gen_attr_float(hid_t loc, const char *name, double value);
void gen_attr_bool(hid_t loc, const char *name, bool value);
void gen_attrs(hid_t loc, const gen_kv *kv, size_t n);
/* An attribute of any type: scalar when N == 0, else 1-D of N elements. */
void gen_attr_raw(hid_t loc, const char *name, hid_t type, size_t n, const void *buf);

/* /metadata group with the attributes KV. */
void gen_metadata(hid_t file, const gen_kv *kv, size_t n);

/* ----------------------------------------------------------- types */

/* h5py's bool: enum {FALSE = 0, TRUE = 1} over int8.  Caller closes. */
hid_t gen_bool_type(void);
/* Fixed-length string type (pad: H5T_STR_NULLPAD, ...; cset: H5T_CSET_ASCII, ...). */
hid_t gen_fixed_str_type(size_t size, H5T_str_t pad, H5T_cset_t cset);
/* Pack N strings into a SIZE-byte-per-element buffer, padded with PADCHAR. */
char *gen_pack_fixed(const char *const *strs, size_t n, size_t size, char padchar);

/* --------------------------------------------------------- datasets */

/* h5py's guessed chunk (elements) for a 1-D dataset of N elements. */
hsize_t gen_guess_chunk(hsize_t n, size_t typesize);
/* N int64 values as h5py's create_dataset(data=..., maxshape=(None,)). */
void gen_col_i64(hid_t loc, const char *name, const int64_t *data, size_t n);
/* Like gen_col_i64 with an explicit file and memory type (other integer or
 * float types for fixtures). */
void gen_col_typed(hid_t loc, const char *name, hid_t ftype, hid_t mtype, const void *data,
                   size_t n);
/* N variable-length UTF-8 strings, contiguous fixed shape (h5py's default). */
void gen_col_strs(hid_t loc, const char *name, const char *const *strs, size_t n);
/* Fully general: RANK dims, chunked with unlimited dims when CHUNKED. */
void gen_dataset_raw(hid_t loc, const char *name, hid_t ftype, hid_t mtype, int rank,
                     const hsize_t *dims, const void *buf, bool chunked);

/* --------------------------------------------------------- regions */

/* Per-call columns of one region; NULL pointers are absent columns. */
typedef struct gen_cols {
    size_t n;
    const int64_t *start, *end;
    const int64_t *call_ids, *parent_ids;
    const int64_t *thread_ids, *task_ids;
    const int64_t *await_times, *gpu_durations;
    const char *const *event_metadata;
} gen_cols;

/* Optional region attributes; NULL / 0 entries are not written. */
typedef struct gen_source {
    const char *file;
    int64_t lineno; /* written when > 0 */
    const char *text;
} gen_source;

/* Create rank/regions/NAME (nested groups for '/') and write COLS when not
 * NULL.  Returns the region group; the caller closes it. */
hid_t gen_region(hid_t rank, const char *name, const gen_cols *cols);
void gen_region_source(hid_t region, const gen_source *src);
/* A stored summary group (GROUP is "summary" or "aggregate"). */
void gen_summary(hid_t region, const char *group, const gen_kv *kv, size_t n);

/* Thread table rank/threads and task table rank/tasks. */
void gen_thread_table(hid_t rank, const char *const *names, const int64_t *ident,
                      const int64_t *native_id, size_t n);
void gen_task_table(hid_t rank, const char *const *names, const int64_t *thread, size_t n);

/* ------------------------------------------------------------ PRNG */

/* splitmix64: tiny, fixed-seed, identical output on every platform. */
typedef struct gen_rng {
    uint64_t s;
} gen_rng;

uint64_t gen_rng_next(gen_rng *r);
/* Uniform integer in [lo, hi]. */
int64_t gen_rng_range(gen_rng *r, int64_t lo, int64_t hi);
/* Uniform double in [0, 1). */
double gen_rng_unit(gen_rng *r);

#endif
