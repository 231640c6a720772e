/* wire: a loaded profile as a byte stream, from the loading child process
 * to the viewer (isolate.c).
 *
 * The child loads the file (libhdf5, profile_finish) and sends the finished
 * model: every field of profile, rank_data, region, thread_table,
 * task_table, line_profile, perf_record, the metadata and the warnings, the
 * statistics bit for bit (so the parent's model is identical to an
 * in-process load).  The per-call nesting (rank_calls) is not sent: it is
 * built on demand from the columns.  The stream is native-endian (both ends
 * are the same binary): columns go as raw arrays, one write each, so the
 * cost is one copy through a pipe.
 *
 * The region columns may instead cross in shared memory (wire_send_profile_shm):
 * the sender writes them into a memfd, seals it against any change and passes
 * it over a unix socket; the stream then carries each column's offset and
 * length, and the receiver maps the memfd read-only once it has checked its
 * seals and size, every column bounds-checked against the mapping.  The
 * regions' columns then point into it (region.cols_shared, profile.shared_cols):
 * no copy on the receiver's side.
 *
 * The receiver treats the stream as untrusted: every length is checked
 * against the memory budget before anything is allocated, every count is
 * bounded, and the result is a well-formed model whatever the bytes; a
 * short or malformed stream is an error, never a crash. */
#ifndef SV_WIRE_H
#define SV_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/profile.h"

/* Where the receiver's bytes come from: like read(2) (> 0 bytes read,
 * 0 end of stream, < 0 error, with a reason in why when it has one). */
typedef struct wire_src {
    ssize_t (*read)(void *ctx, void *buf, size_t n);
    void *ctx;
    /* The shared memory of a stream with shared columns: a descriptor the
     * receiver then owns, or -1 (none came).  NULL: such a stream is
     * malformed. */
    int (*recv_fd)(void *ctx);
} wire_src;

/* Sends p (finished) to fd.  0, or an errno value. */
int wire_send_profile(int fd, const profile *p);
/* The same for a sender that never reads p's columns again (it exits or
 * only frees p): each column's pages lent to a pipe are released from
 * the sender's memory as they go, so they are freed once read (the
 * receiver's columns then reuse warm pages); p's columns read as zeros
 * afterwards. */
int wire_send_profile_final(int fd, const profile *p);
/* wire_send_profile_section with the region columns in shared memory:
 * a sealed memfd sent on shm_sock (a unix socket) before the stream.
 * Without a memfd (an old kernel) or with shm_sock < 0, the columns go
 * inline as in wire_send_profile_section.  0, or an errno value. */
struct wire_section;
int wire_send_profile_shm(int fd, int shm_sock, const profile *p, bool final,
                          const struct wire_section *sec);
/* Sends a failed load's error instead (code and message). */
int wire_send_error(int fd, const sv_error *e);

/* The outcome of wire_recv. */
typedef enum wire_status {
    WIRE_PROFILE, /* *out holds the model */
    WIRE_ERROR,   /* the child's load failed: err holds its code and message */
    WIRE_BUDGET,  /* the model does not fit in budget bytes: err says which part */
    WIRE_BROKEN,  /* the stream ended early or is malformed: err says where */
} wire_status;

/* Receives one message.  budget: bytes the model may allocate (0: no
 * limit).  *out is NULL unless WIRE_PROFILE. */
wire_status wire_recv(const wire_src *src, uint64_t budget, profile **out, sv_error *err);

/* An optional section sent after the model, written and read by its
 * owner through the primitives below (isolate_options.section: work done
 * in the loading child, e.g. one side of a comparison, diff.h).  put
 * writes it (also called once with nothing written, to list its columns
 * before wire_send_profile_final lends them); get reads it, false when
 * its content is malformed (the stream is then WIRE_BROKEN).  Both take
 * ctx. */
typedef struct wire_w wire_w;
typedef struct wire_r wire_r;
typedef struct wire_section {
    void (*put)(wire_w *w, void *ctx);
    bool (*get)(wire_r *r, void *ctx);
    void *ctx;
} wire_section;

/* wire_send_profile (final: wire_send_profile_final) followed by the
 * section (NULL: none). */
int wire_send_profile_section(int fd, const profile *p, bool final, const wire_section *sec);
/* wire_recv of a model followed by the section (sec->get reads it; NULL:
 * none may follow).  A missing or malformed section is WIRE_BROKEN. */
wire_status wire_recv_section(const wire_src *src, uint64_t budget, const wire_section *sec,
                              profile **out, sv_error *err);

/* A stream of sections alone, no model (the out-of-core overview's parts
 * while the pass goes, ooc_part.h): wire_send_part writes one message,
 * "SVW1" 'Q', the section, "END!" (0, or an errno value);
 * wire_recv_parts reads such messages one after the other until the
 * stream ends between two of them (WIRE_PROFILE), calling sec->get for
 * each and then each(ctx) (false stops the stream: WIRE_PROFILE too).
 * budget bounds each message alone.  A message cut short or malformed is
 * WIRE_BROKEN (err says where); nothing read after it is trusted. */
int wire_send_part(int fd, const wire_section *sec);
wire_status wire_recv_parts(const wire_src *src, uint64_t budget, const wire_section *sec,
                            bool (*each)(void *ctx), void *ctx, sv_error *err);

/* Writer primitives: a word, raw bytes, a string (NULL allowed), an
 * optional column of n elements of size sz (lent to the pipe when large). */
void wire_put_u64(wire_w *w, uint64_t v);
void wire_put_bytes(wire_w *w, const void *p, size_t n);
void wire_put_str(wire_w *w, const char *s);
void wire_put_col(wire_w *w, const void *v, size_t n, size_t sz);
/* Reader primitives, the same in reverse; after a failure they return 0 /
 * false / NULL and wire_get_ok is false.  wire_get_count bounds a count of
 * items of at least sz bytes by the budget; wire_get_alloc allocates n * sz
 * bytes charged to the budget; wire_get_col's and wire_get_str's results
 * are charged too.  All are free()d by the caller. */
uint64_t wire_get_u64(wire_r *r);
bool wire_get_bytes(wire_r *r, void *dst, size_t n);
char *wire_get_str(wire_r *r);
size_t wire_get_count(wire_r *r, size_t sz);
void *wire_get_col(wire_r *r, size_t n, size_t sz);
void *wire_get_alloc(wire_r *r, size_t n, size_t sz);
bool wire_get_ok(const wire_r *r);

#endif
