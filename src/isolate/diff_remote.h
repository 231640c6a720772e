/* diff_remote: one side of a batch comparison built in the loading child.
 *
 * A batch --diff needs from each profile only what diff_add() reads: the
 * merged region statistics and, per call path, the calls' durations.  So
 * the loading child (isolate.h: prepare and section) runs diff_add() on
 * its own profile, one-sided, and sends that instead of the columns: the
 * nesting, the path walk and the sorting of the samples run in the two
 * children at once, and the viewer's process receives one int64 per call
 * instead of every column.  The model sent along is a stub: its path and
 * warnings.
 *
 * The result is the same comparison as diff_add() on the whole profile
 * in-process (tests/unit/test_diff_remote.c checks it field by field):
 * names and paths are interned in the order the child found them, which
 * is the order diff_add() would have found them in. */
#ifndef SV_DIFF_REMOTE_H
#define SV_DIFF_REMOTE_H

#include "model/diff.h"
#include "wire.h"

typedef struct diff_remote {
    diff_options opt;
    const region_filter *filter; /* the user's (the child has a copy of it) */
    diff_result *part;           /* the one-sided comparison: built / received */
    wire_section section;        /* its wire section (ctx = this) */
    /* The load skips the nesting and prepare does it, one sweep for the
     * totals and the walk (isolate_options.prepare_nests: set it from
     * this).  True from diff_remote_init. */
    bool nests;
    /* Or the child's comparison failed after its load (no part): why. */
    sv_err rc;
    sv_error err;
} diff_remote;

/* Sets up r for one side (section.ctx points at r: do not copy it after). */
void diff_remote_init(diff_remote *r, const diff_options *o, const region_filter *f);
/* isolate_options.prepare: builds r->part from *p (first nesting it and
 * checking its stored values when r->nests: the load did neither), then
 * replaces *p by a stub holding its path, file facts and warnings (the
 * profile is freed). */
sv_err diff_remote_prepare(void *ctx, profile **p, sv_error *err);
/* The section's writer and reader (r->section.put / get). */
void diff_remote_put(wire_w *w, void *ctx);
bool diff_remote_get(wire_r *r, void *ctx);
/* Whether a part or a failure was received (false after an in-process
 * load). */
bool diff_remote_ready(const diff_remote *r);
/* Adds the received side to d (its samples move into d): what
 * diff_add(d, side, whole profile) would have added, or its error.
 * label: the file. */
sv_err diff_add_remote(diff_result *d, int side, const char *label, diff_remote *r, sv_error *err);
void diff_remote_free(diff_remote *r);

#endif
