/* h5util: the careful libhdf5 layer under the loader.
 *
 * Only the loader's files and h5util*.c include hdf5.h.  Every reader here treats the
 * file as untrusted: element counts are capped against the file size before
 * anything is allocated, datasets with external storage or a virtual layout
 * are refused (they would make libhdf5 open other files), strings are cut at
 * SV_STRING_MAX, and libhdf5's error stack is turned into one short reason
 * instead of being printed.
 *
 * Readers return an h5u_status.  H5U_BAD means "this item is unusable" with
 * a reason (no file name, no control characters) in the caller's buffer;
 * H5U_REFUSED is a bad item that must not be trusted at all (its whole
 * region is dropped); H5U_NOMEM stops the load. */
#ifndef SV_H5UTIL_H
#define SV_H5UTIL_H

#include <hdf5.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum h5u_status { H5U_OK = 0, H5U_BAD, H5U_REFUSED, H5U_NOMEM } h5u_status;

/* Room for a reason; longer reasons are cut. */
#define H5U_WHY_MAX 200

/* Deflate, the strongest built-in filter, stays below ~1:1032. */
#define H5U_MAX_RATIO 1100

/* Shared state of one load: the dataset access plist (chunk cache off,
 * created once) and the byte counters behind the progress callback. */
typedef struct h5u_reader {
    hid_t dapl;
    /* Transfer plist whose variable-length strings come from malloc, so
     * the loader keeps them as they are instead of copying each one. */
    hid_t dxpl;
    uint64_t file_size;
    uint64_t bytes_done; /* storage bytes of the datasets read so far */
    /* The load's memory budget (budget.h), or NULL: every column is charged
     * at its element count times its element size before it is allocated. */
    struct load_budget *budget;
    /* SCOPEVIEW_READ_LOG: each dataset read is named on stderr, so a test
     * can tell which columns a load reads. */
    bool log_reads;
} h5u_reader;

/* Silences the error stack for this thread, lets libhdf5 load filter
 * plugins and registers the lzf and zstd decoders it lacks. */
void h5u_setup(void);

/* The innermost description of the current error stack (escaped, at most
 * cap bytes), then clears the stack.  "unknown HDF5 error" when empty. */
void h5u_error_desc(char *buf, size_t cap);

/* Opens path read-only without file locking (SWMR-read when a SWMR writer
 * has it open).  Negative on failure, with libhdf5's innermost reason in
 * why; H5U_OPEN_BUSY when a writer that is not SWMR holds it. */
hid_t h5u_open_file(const char *path, char *why, size_t whylen);
#define H5U_OPEN_BUSY ((hid_t)-2)

h5u_status h5u_reader_init(h5u_reader *rd, uint64_t file_size);
/* Charges dataset ds's bytes to rd's budget: false (H5U_NOMEM for the
 * caller) when they do not fit. */
bool h5u_charge(h5u_reader *rd, hid_t ds, uint64_t bytes);
/* True when dataset ds (by object address) was read before in this load:
 * a column hard-linked into many regions is read once, the others are
 * dropped with a warning (needs rd->budget, which holds the set). */
bool h5u_read_before(h5u_reader *rd, hid_t ds);
void h5u_reader_close(h5u_reader *rd);

/* Names dataset `name` below loc on stderr when rd->log_reads (escaped). */
void h5u_log_read(const h5u_reader *rd, hid_t loc, const char *name);

/* Opens dataset `name` below loc with the checks h5u_read_i64 (strings:
 * h5u_read_strs) makes before it reads (virtual and external storage
 * refused, the type, the count within what the file can hold, a hard link
 * to a dataset read before refused, and counted as read), then closes it,
 * reading no data; *n: its elements.  A column the output does not need
 * fails or drops its region as a read would, unless its values are bad. */
h5u_status h5u_check_dataset(h5u_reader *rd, hid_t loc, const char *name, bool strings, uint64_t *n,
                             char *why, size_t whylen);

/* --- group listing --- */

typedef enum h5u_kind {
    H5U_UNKNOWN, /* hard link whose object type was not looked up yet */
    H5U_GROUP,
    H5U_DATASET,
    H5U_OTHER,    /* a named datatype or an unknown object */
    H5U_SOFT,     /* soft link: never followed */
    H5U_EXTERNAL, /* external or user-defined link: never followed */
} h5u_kind;

typedef struct h5u_entry {
    char *name;
    h5u_kind kind;
    haddr_t addr; /* object address of a hard link */
} h5u_entry;

typedef struct h5u_list {
    h5u_entry *v;
    size_t n, cap;
} h5u_list;

/* The links of group g by name.  H5U_BAD when the group cannot be listed.
 * Hard links come as H5U_UNKNOWN: looking up an object's type costs a read
 * of its header, which a dataset about to be opened does not need. */
h5u_status h5u_list_group(hid_t g, h5u_list *out, char *why, size_t whylen);
/* The kind of e (a link of group g), looked up once when still unknown. */
h5u_kind h5u_entry_kind(hid_t g, h5u_entry *e);
/* Worth opening as a dataset (a dataset, or a hard link not looked up). */
static inline bool h5u_maybe_dataset(const h5u_entry *e)
{
    return e->kind == H5U_DATASET || e->kind == H5U_UNKNOWN;
}
void h5u_list_free(h5u_list *l);
/* Index of name in l, or -1. */
long h5u_list_find(const h5u_list *l, const char *name);

/* Number of attributes of object `name` below loc (0 when unknown). */
hsize_t h5u_num_attrs(hid_t loc, const char *name);

/* --- columns --- */

/* Reads 1-D integer dataset `name` below loc as n int64 values with one
 * H5Dread.  *out is malloc'ed (never NULL on success, even for n == 0). */
h5u_status h5u_read_i64(h5u_reader *rd, hid_t loc, const char *name, int64_t **out, size_t *n,
                        char *why, size_t whylen);

/* (h5util_f64.c) Reads 1-D integer or float dataset `name` as n doubles
 * (libhdf5 converts; integers beyond 2^53 round).  *out as for h5u_read_i64. */
h5u_status h5u_read_f64(h5u_reader *rd, hid_t loc, const char *name, double **out, size_t *n,
                        char *why, size_t whylen);
/* The same for a 2-D dataset, row-major, rows x cols (a 0-row or empty
 * dataset of any rank gives rows = cols = 0). */
h5u_status h5u_read_f64_2d(h5u_reader *rd, hid_t loc, const char *name, double **out, size_t *rows,
                           size_t *cols, char *why, size_t whylen);

/* --- strings --- */

/* A string array read from a dataset or an attribute.  ncut counts the
 * strings cut to SV_STRING_MAX bytes. */
typedef struct h5u_strs {
    char **v;
    size_t n;
    size_t ncut;
} h5u_strs;

void h5u_strs_free(h5u_strs *s);

/* A scalar or 1-D string dataset (variable or fixed length). */
h5u_status h5u_read_strs(h5u_reader *rd, hid_t loc, const char *name, h5u_strs *out, char *why,
                         size_t whylen);
/* The same for attribute `name` of loc. */
h5u_status h5u_attr_strs(h5u_reader *rd, hid_t loc, const char *name, h5u_strs *out, char *why,
                         size_t whylen);

/* --- numeric attributes --- */

/* A scalar (or one-element) integer attribute; H5U_BAD for other types. */
h5u_status h5u_attr_i64(hid_t loc, const char *name, int64_t *v, char *why, size_t whylen);
/* A scalar (or one-element) integer or float attribute as double. */
h5u_status h5u_attr_f64(hid_t loc, const char *name, double *v, char *why, size_t whylen);

/* --- any attribute as text (metadata) --- */

typedef enum h5u_text_kind {
    H5U_TEXT_STRING,
    H5U_TEXT_INT,
    H5U_TEXT_FLOAT,
    H5U_TEXT_BOOL
} h5u_text_kind;

/* The value of attribute `name` of loc as text: strings as they are,
 * numbers as Python prints them, h5py booleans as True/False, arrays as
 * "[a, b]", other types as "<compound value>" and the like.  *text is
 * malloc'ed; *cut is set when a string was cut to SV_STRING_MAX. */
h5u_status h5u_attr_text(h5u_reader *rd, hid_t loc, const char *name, h5u_text_kind *kind,
                         char **text, bool *cut, char *why, size_t whylen);

/* Names of the attributes of loc, by name. */
h5u_status h5u_attr_names(hid_t loc, h5u_strs *out, char *why, size_t whylen);

/* --- utilities without libhdf5 --- */

/* Copy of s[0..len) cut to SV_STRING_MAX at a UTF-8 boundary; NULL on NOMEM. */
char *h5u_strndup_cut(const char *s, size_t len, bool *cut);

/* Shortest text that reads back as v, laid out as Python's repr. */
void h5u_format_double(char *buf, size_t cap, double v);
/* The same for a value stored as float32 when single (numpy's str). */
void h5u_format_real(char *buf, size_t cap, double v, bool single);

#endif
