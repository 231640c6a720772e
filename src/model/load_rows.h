/* load_rows: a load split into parts, for the MPI batch run (cli/mpi_run.c).
 *
 * Every process of an MPI run loads the same file with a load_part: it
 * reads the event columns of the (rank, region) rows its part owns and no
 * other, and computes their statistics (each row's statistics depend on its
 * own calls only).  The per-call nesting (exclusive times) needs every call
 * of a rank, so a part's load stops before it.  Process 0 then takes the
 * other parts' regions into its own profile (load_rows_merge) and finishes
 * it (load_rows_finish): nesting over the merged calls, exactly as a serial
 * load.  Statistics travel bit for bit (wire.h), so the outputs are the
 * serial run's, byte for byte.
 *
 * Who owns a row, identically in every process:
 * - columnar layouts: the rows that pass the index checks, longest first,
 *   each to the bin with the fewest calls so far (ties: lowest bin); part 0
 *   (which receives the others' rows and nests) takes the heaviest bin;
 * - schema 1 (groups): a hash of (rank, region name), so a name repeated in
 *   a rank stays in one part and is dropped there as in a serial load;
 * - the aggregate layout (summaries only, no event column): every part
 *   loads every row; the merge keeps one copy of each. */
#ifndef SV_LOAD_ROWS_H
#define SV_LOAD_ROWS_H

#include <stdbool.h>

#include "profile.h"

typedef struct load_part {
    int index, count; /* this part, of count (count >= 1) */
} load_part;

/* Schema 1: true when part pt owns region `name` of rank `rank`. */
bool load_part_owns(const load_part *pt, int rank, const char *name);

/* Moves the regions of q that p lacks (by rank and name), the ranks p lacks
 * whole (with their thread, task and auxiliary tables), and the warnings p
 * has not printed, into p.  q is left for profile_free.  p->legacy stays
 * true only when both are legacy (a part that skipped a region may have
 * missed its extended items). */
sv_err load_rows_merge(profile *p, profile *q, sv_error *err);

/* The rest of profile_finish on the merged profile: sort, number the calls,
 * nesting and exclusive totals, the minimum start; no statistics (every
 * region came with its own).  Before that, the columnar loader's rule that
 * a part cannot apply alone: a rank whose call ids are -1 in every row loses
 * them (tests/gen/FIXTURES.md col3_mixed_ids.h5). */
sv_err load_rows_finish(profile *p, sv_error *err);

#endif
