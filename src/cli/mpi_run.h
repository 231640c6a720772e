/* mpi_run: the MPI batch run (./configure --with-mpi).
 *
 * `mpirun -np N scopeview --json|--csv|--summary FILE`: process 0 reads
 * every row (statistics deferred); the others read the rows of their share
 * of the work (load_rows.h: each rank nested by one process, each row's
 * statistics computed by one), compute it and send process 0 their results
 * in one MPI message (a few bytes a row); process 0 computes its own share,
 * installs theirs, computes whatever did not come and prints the output the
 * serial run prints, byte for byte.  Each process opens the file on its own
 * and reads its rows with independent (serial-driver) HDF5 reads.
 *
 * The load runs in the MPI process itself, not in the isolating child of
 * isolate.h: forking a process that has initialised Open MPI is unsafe, and
 * the child could not use MPI.  So an MPI run trusts libhdf5 with the file
 * (no crash or hang containment); the memory budget (--memory) still holds
 * in every process.  Every other mode (the viewer, --events, --lines,
 * --diff) is not split: under mpirun, process 0 runs it as usual and the
 * others end at once. */
#ifndef SV_MPI_RUN_H
#define SV_MPI_RUN_H

#include "args.h"
#include "isolate/isolate.h"
#include "model/profile.h"

typedef enum mpi_role {
    MPI_ROLE_NONE,      /* not under mpirun (or one process): the usual run */
    MPI_ROLE_SPLIT,     /* a split batch run: mpi_run_load */
    MPI_ROLE_BYSTANDER, /* a process other than 0 of a mode that is not split: end */
} mpi_role;

mpi_role mpi_run_role(const cli_options *o);

/* The split load.  Process 0: 0 and *p the merged, finished profile (its
 * warnings printed), or an exit status with the first error printed.  The
 * other processes: their exit status, *p NULL (nothing to print).  MPI is
 * finalised on return.  how: main's, its budget resolved (args.h memory). */
int mpi_run_load(const cli_options *o, const isolate_options *how, profile **p);

#endif
