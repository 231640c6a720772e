/* budget: the memory budget of one load (--memory), checked before each
 * column is allocated.
 *
 * A small file can ask for gigabytes: columns allocated early and never
 * written (a sparse file of a few KiB declaring 7 GB), a gzip bomb within
 * the allowed ratio, one dataset hard-linked into many regions.  The
 * readers (h5util) charge every column at what it will cost in memory, its
 * element count times its element size, whatever the file stores for it
 * (unallocated and fill-only columns cost the same), before allocating; a
 * charge past the limit fails the load, and the message names the budget
 * and the biggest columns charged.  The loading child's address-space
 * limit backs this up for every other allocation (isolate.c). */
#ifndef SV_BUDGET_H
#define SV_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BUDGET_TOP 3

typedef struct load_budget {
    uint64_t limit; /* bytes; 0 = no limit */
    uint64_t used;
    bool exceeded;
    struct {
        char what[120];
        uint64_t bytes;
    } top[BUDGET_TOP]; /* the biggest charges (the refused one included), largest first */
    /* Told of every accepted charge before the column is read (isolate.c
     * extends the loading child's deadlines by the work it announces). */
    void (*on_charge)(void *ctx, uint64_t bytes);
    void *on_charge_ctx;
    /* Why the load did not stream its columns out of core (a sparse file),
     * for the refusal's message; "" when it did or was not asked to. */
    char not_streamed[200];
    /* A file's columns were streamed out of core (the refusal then is the
     * streamed load's own need). */
    bool streamed;
    /* Object addresses of the columns read so far (open addressing). */
    uint64_t *seen;
    size_t nseen, seen_cap;
} load_budget;

/* True when the object at addr was read before in this load (a dataset
 * hard-linked under several names: one column linked into 200 regions
 * would cost 200 times its memory); records it otherwise.  False also when
 * there is no memory to remember it. */
bool budget_seen(load_budget *b, uint64_t addr);
void budget_free(load_budget *b);

/* Charges bytes for `what` (a dataset path; escaped here).  False when the
 * budget would be exceeded: nothing is charged, exceeded is set. */
bool budget_charge(load_budget *b, uint64_t bytes, const char *what);

/* bytes as --memory would read them, for every message that names the
 * budget: "1 B", "512 KiB", "256 MiB", "1.5 GiB" (never "0 MiB"). */
void budget_format(char *buf, size_t len, uint64_t bytes);

/* "the load needs more than the memory budget of 1.0 GiB (--memory): the
 * biggest columns are /rank0/regions/big/start_times 3.0 GiB, ..." */
void budget_message(const load_budget *b, const char *epath, char *buf, size_t len);

#endif
