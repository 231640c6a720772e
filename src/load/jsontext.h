/* jsontext: the two small JSON readers the columnar layouts need (no
 * libhdf5): a region's `tags` (a JSON array of strings) and the per-call
 * objects of `event_metadata` (a JSON array, split into its elements). */
#ifndef SV_JSONTEXT_H
#define SV_JSONTEXT_H

#include <stddef.h>

typedef enum jt_status { JT_OK = 0, JT_BAD, JT_NOMEM } jt_status;

/* s is a JSON array of strings, e.g. ["kernel", "golden"]: *out gets n
 * malloc'ed UTF-8 strings (escapes decoded; \u0000 ends a string), NULL
 * when n == 0.  JT_BAD for anything else (nothing allocated). */
jt_status jt_string_array(const char *s, char ***out, size_t *n);

/* s is a JSON array: *out gets the text of each top-level element, exactly
 * as written (surrounding whitespace dropped), NULL when n == 0.  Strings
 * and nesting are followed, so a ',' or ']' inside them does not split.
 * JT_BAD when s is not one well-formed array (brackets, strings). */
jt_status jt_split_array(const char *s, char ***out, size_t *n);

void jt_free(char **v, size_t n);

#endif
