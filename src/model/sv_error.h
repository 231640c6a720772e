/* sv_error: the one error type at the model boundary.
 *
 * Every model function that can fail returns an sv_err and, when given a
 * non-NULL sv_error, fills in a one-line message that names the file and,
 * where it applies, the rank, region and dataset.  Messages never contain
 * control characters: names from the file are escaped before they are
 * written into a message. */
#ifndef SV_ERROR_H
#define SV_ERROR_H

#include <stddef.h>

typedef enum sv_err {
    SV_OK = 0,
    SV_ERR_IO,            /* file missing, unreadable, a directory */
    SV_ERR_NOT_HDF5,      /* not an HDF5 file, or truncated */
    SV_ERR_DAMAGED,       /* libhdf5 crashed, hung or failed inside a read */
    SV_ERR_FORMAT,        /* the file is HDF5 but breaks the layout */
    SV_ERR_NOMEM,         /* allocation failed or a size is beyond limits */
    SV_ERR_NO_EVENT_DATA, /* per-call data asked of a summary-only region */
    SV_ERR_NO_THREADS,    /* for_thread on a region without a thread column */
    SV_ERR_RANGE,         /* an argument out of range (percentile, index) */
    SV_ERR_REGEX,         /* a filter expression that does not compile */
    SV_ERR_NOT_FOUND,     /* no region of that name / rank */
    SV_ERR_USAGE          /* a malformed rank list or option value */
} sv_err;

#define SV_MSG_MAX 512

typedef struct sv_error {
    sv_err code;
    char msg[SV_MSG_MAX];
} sv_error;

/* Sets err (when non-NULL) and returns code, so callers can write
 * `return sv_error_set(err, SV_ERR_FORMAT, "%s: ...", path);`. */
sv_err sv_error_set(sv_error *err, sv_err code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

void sv_error_clear(sv_error *err);

/* Short stable name of a code, e.g. "format error". */
const char *sv_err_name(sv_err code);

/* Process exit status for a code: 1 for load faults, 2 for usage errors. */
int sv_err_exit_status(sv_err code);

#endif
