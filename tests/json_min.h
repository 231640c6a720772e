/* json_min: a small strict JSON parser for tests (RFC 8259).
 *
 * Parses the whole text into a tree of nodes. Strict: no trailing commas, no comments, no leading
 * zeros, no raw control characters in strings, nothing but whitespace after the value. Strings are
 * decoded to UTF-8 (surrogate pairs joined; "\u0000" kept, so use string_len for binary-safe
 * compares). Numbers are doubles (strtod). Object members keep their file order; lookup returns
 * the first member with the key. */
#ifndef SV_JSON_MIN_H
#define SV_JSON_MIN_H

#include <stdbool.h>
#include <stddef.h>

typedef enum jm_type { JM_NULL, JM_BOOL, JM_NUMBER, JM_STRING, JM_ARRAY, JM_OBJECT } jm_type;

typedef struct jm_node {
    jm_type type;
    bool boolean;      /* JM_BOOL */
    double number;     /* JM_NUMBER */
    char *string;      /* JM_STRING: decoded, NUL-terminated */
    size_t string_len; /* JM_STRING: bytes, excluding the terminator */
    char *key;         /* set when the node is an object member */
    size_t count;      /* JM_ARRAY / JM_OBJECT: number of children */
    struct jm_node **items;
} jm_node;

/* Parses text[0..len). Returns NULL on error and, when err is given, writes a message with the
 * byte offset ("json: offset 12: expected ':'"). */
jm_node *jm_parse(const char *text, size_t len, char *err, size_t errlen);
void jm_free(jm_node *n);

/* NULL when obj is not an object or has no such key. */
const jm_node *jm_get(const jm_node *obj, const char *key);
/* NULL when arr is not an array/object or i is out of range. */
const jm_node *jm_at(const jm_node *arr, size_t i);

/* Convenience accessors: false when the node is missing or of another type. */
bool jm_is_null(const jm_node *n);
bool jm_number(const jm_node *n, double *out);
const char *jm_string(const jm_node *n); /* NULL unless a string */

#endif
