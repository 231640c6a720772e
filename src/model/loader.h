/* loader: reads a scope-profiler HDF5 file (legacy or extended layout) into
 * a profile.  The only module that includes hdf5.h.
 *
 * The file is opened read-only, without file locking and with filter
 * plugins off; libhdf5's own error stack is never printed.  Whole-file
 * faults return an error; a bad region or optional column is dropped with a
 * warning recorded in profile->warnings (the caller prints them). */
#ifndef SV_LOADER_H
#define SV_LOADER_H

#include "profile.h"

typedef struct load_options {
    /* Called now and then during a long load; done/total in bytes read. */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
} load_options;

sv_err profile_load(const char *path, const load_options *opt, profile **out, sv_error *err);

/* The load runs in a child process (isolate.h: profile_load_isolated), which
 * replaced the crash probe's separate walk of the file. */

/* The walk the probe's child runs: profile_load without reading numeric
 * columns and without keeping a profile (opt: progress only). */
sv_err loader_probe_walk(const char *path, const load_options *opt, sv_error *err);

#endif
