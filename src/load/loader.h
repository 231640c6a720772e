/* loader: reads a scope-profiler HDF5 file into a profile: schema 1 (per-rank
 * groups, legacy and extended), schema 2 and 3 (columnar and aggregate) and
 * the C API's per-rank file sets.  Only the loader's files include hdf5.h.
 *
 * The file is opened read-only, without file locking; filter plugins
 * load from libhdf5's plugin path, lzf and zstd are decoded with liblzf
 * and libzstd (h5util_filters.c);
 * libhdf5's own error stack is never printed.  Whole-file
 * faults return an error; a bad region or optional column is dropped with a
 * warning recorded in profile->warnings (the caller prints them). */
#ifndef SV_LOADER_H
#define SV_LOADER_H

#include "load_sink.h"
#include "model/profile.h"

typedef struct load_options {
    /* Called now and then during a long load; done/total in bytes read. */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
    /* Columnar files with summary_statistics: when every row has it, its
     * exclusive total is stored and the file has no await column, take the
     * statistics from the index and read no event column (regions are then
     * summary-only: no percentiles, no calls).  For --summary. */
    bool stored_statistics;
    /* The caller keeps only the statistics, the nesting's exclusive times
     * and the thread lists (strip.h: --json, --csv, --summary): columns
     * nothing of that needs are not read, nor checked: event_metadata, and
     * call_ids where no parent_ids come with them (the nesting uses the
     * two together or neither).  HDF5 files only. */
    bool stats_only;
    /* The memory budget every column is charged to (budget.h), or NULL. */
    struct load_budget *budget;
    /* Where the rows go (load_sink.h), or NULL: the model, finished. */
    const load_sink *sink;
    /* The structure alone (the out-of-core viewer's first frame, before
     * its pass): a columnar file's index, names and stored statistics, no
     * event column read; each row with events is `streamed` with the
     * index's count and no other statistic.  Other layouts refuse it
     * (SV_ERR_USAGE): they have no index to read alone. */
    bool index_only;
} load_options;

sv_err profile_load(const char *path, const load_options *opt, profile **out, sv_error *err);

/* Several files as one profile: the C API's PREFIX_rankNNNNN.h5, one
 * columnar file per rank, and native traces (.spt, one rank each, told by
 * their first bytes), mixed.  An HDF5 file's rank is its metadata
 * mpi_rank, else the N of its name; a trace's is its header's.  An HDF5
 * file whose rank came already is skipped (a warning); a rank claimed by a
 * native trace and another file is an error naming both.  Ranks missing
 * below the highest get a warning.  The profile's metadata is the first
 * HDF5 file's; p->paths lists every file, p->path_formats what each is.
 * n == 1 is profile_load. */
sv_err profile_load_set(const char *const *paths, size_t n, const load_options *opt, profile **out,
                        sv_error *err);

/* The files of one run: each directory among paths stands for its native
 * traces (*.spt) and rank files (*_rank<N>.h5), not recursively, in name
 * order; other paths are kept as given.  *out is freed with
 * profile_run_paths_free.  An error for a directory without such files.
 * profile_load and profile_load_set expand their paths this way. */
sv_err profile_run_paths(const char *const *paths, size_t n, char ***out, size_t *nout,
                         sv_error *err);
void profile_run_paths_free(char **v, size_t n);

/* True when path starts like a native trace (.spt): out of core reads
 * HDF5 files only. */
bool profile_path_is_native(const char *path);

/* The load runs in a child process (isolate.h: profile_load_isolated). */

#endif
