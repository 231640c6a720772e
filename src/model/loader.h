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

/* The crash probe (probe.c).  libhdf5 1.10.8 crashes or hangs on some
 * malformed files, so before the in-process load a child process runs the
 * loader's walk on path (structure, attributes, strings, dataset metadata
 * and chunk indexes, but no whole numeric column) under memory, CPU and
 * core-size limits, watched by the parent: the walk reports progress, and
 * a child that makes none for a while is killed.  SV_OK when the child
 * finished (the load itself reports any ordinary fault); SV_ERR_DAMAGED with
 * "PATH: the file is damaged (...)" when it crashed, hit a limit or stalled. */
sv_err profile_probe(const char *path, sv_error *err);

/* The walk the probe's child runs: profile_load without reading numeric
 * columns and without keeping a profile (opt: progress only). */
sv_err loader_probe_walk(const char *path, const load_options *opt, sv_error *err);

#endif
