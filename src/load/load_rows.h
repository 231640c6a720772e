/* load_rows: the work of a load split over the processes of an MPI batch
 * run (cli/mpi_run.c), and the small results they exchange.
 *
 * Process 0 prints, so it reads every row (in-process, statistics deferred:
 * LOAD_FINISH_NONE).  The work after reading is split:
 * - nesting (exclusive totals) needs every call of a rank, so each rank is
 *   nested by one process, which reads all of that rank's rows;
 * - statistics (and percentiles) depend on a row's own calls only, so each
 *   row's are computed by one process, which reads that row.
 * Processes 1..N-1 read only the rows they work on (load_sink_part:
 * lc_partition in the columnar loader, load_part_owns for schema 1) and send
 * process 0 their results only: each row's region_stats, each nested
 * rank's exclusive totals and nesting flags, the nesting's warnings (a few
 * bytes a row: load_rows_encode).  Process 0 computes its own share
 * meanwhile, installs the others' (load_rows_apply) and computes whatever
 * did not come itself, so its output is the serial run's byte for byte
 * whatever the others did; statistics travel bit for bit.
 *
 * Who does what (load_plan), identically in every process:
 * - columnar layouts: a greedy longest-first balance of the estimated cost
 *   (reading, statistics, nesting per call) over the rows that pass the
 *   index checks: ranks first (a rank nested by process k > 0 has its
 *   statistics there too: that process reads all its rows anyway), then
 *   the rows of the ranks process 0 nests, each to the process that would
 *   finish it soonest (process 0 reads every row already) among process 0
 *   and those that nest a rank (which read rows anyway).  One rank (or
 *   fewer ranks than processes): process 0 nests and computes the
 *   statistics of its rank, a process without a rank reads nothing;
 * - schema 1 (groups; sizes unknown before reading): process 0 nests every
 *   rank, a hash of (rank, region name) gives each row's statistics to one
 *   of processes 1..N-1;
 * - the aggregate layout (summaries only): nothing to compute. */
#ifndef SV_LOAD_ROWS_H
#define SV_LOAD_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

/* The ranks a process nests (filled by the load: lc_partition appends the
 * ranks of each file it reads). */
typedef struct load_nest_list {
    int *rank;
    size_t n, cap;
    bool oom;
} load_nest_list;

typedef struct load_part {
    int index, count;      /* this process, of count (count >= 1) */
    load_nest_list *nests; /* out: the ranks this process nests, or NULL */
} load_part;

/* One row of the plan: in, its rank, name and calls; out, the process
 * that computes its statistics and the one that nests its rank. */
typedef struct plan_row {
    int rank;
    const char *name;
    uint64_t calls;
    int stats, nest;
} plan_row;

/* Fills rows[].stats and .nest for count processes: the same in every
 * process for the same rows in any order.  False on NOMEM. */
bool load_plan(plan_row *rows, size_t n, int count);

/* Schema 1: true when process pt reads region `name` of rank `rank`
 * (process 0 every row). */
bool load_part_owns(const load_part *pt, int rank, const char *name);

/* Process 0's side.  The plan over p's regions (p loaded whole, finished
 * without statistics or nesting): which regions' statistics, which ranks'
 * nesting are process 0's.  load_rows_own() then computes those
 * statistics, drops (with the serial run's warning) every region whose
 * durations are invalid, and nests process 0's ranks; load_rows_apply()
 * installs another process's results; load_rows_complete() computes what
 * nobody sent and finishes the profile. */
typedef struct rows_work rows_work;
/* The plan's owners: stats[i] of p->regions[i], nest[k] of p->ranks[k]. */
bool load_rows_plan_profile(const profile *p, int count, int *stats, int *nest);
sv_err load_rows_own(profile *p, int count, rows_work **w, sv_error *err);
/* Installs what buf (load_rows_encode's, from another process) holds;
 * false when it is malformed (nothing of it kept past the bad record). */
bool load_rows_apply(profile *p, rows_work *w, const void *buf, size_t len);
sv_err load_rows_complete(profile *p, rows_work *w, sv_error *err);
/* How many regions' statistics and ranks' nesting load_rows_complete had
 * to compute itself (none when every process did its share). */
void load_rows_redone(const rows_work *w, size_t *stats, size_t *ranks);
void rows_work_free(rows_work *w);

/* Process k > 0's side: q was loaded with a part (statistics computed by
 * the loader, no nesting): nests the ranks in nests (whose rows it all
 * read), then writes into *buf every region's statistics, the nested
 * ranks' exclusive totals and flags and the nesting's warnings (malloc'd,
 * *len bytes).  An error becomes an empty result (process 0 does that
 * share itself). */
sv_err load_rows_encode(profile *q, const load_nest_list *nests, char **buf, size_t *len,
                        sv_error *err);

void load_nest_list_free(load_nest_list *l);

#endif
