/* pyhl: a small Python tokenizer for highlighting captured source.
 *
 * Pure (no terminal, no model): it classifies every byte of a line as
 * keyword, string, comment, decorator, number or plain text.  Only what a
 * highlighter needs is recognised; anything it does not understand is
 * plain text, so hostile or non-Python input is shown, never rejected.
 * Multi-line constructs (triple-quoted strings, backslash-continued
 * strings) carry over through a pyhl_state from one line to the next. */
#ifndef SV_PYHL_H
#define SV_PYHL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum pyhl_kind {
    PYHL_TEXT,
    PYHL_KEYWORD,
    PYHL_STRING,
    PYHL_COMMENT,
    PYHL_DECORATOR,
    PYHL_NUMBER
} pyhl_kind;

/* Where a line starts: outside any string, or inside one that an earlier
 * line opened.  Zero-initialise for the first line. */
typedef struct pyhl_state {
    char quote;     /* '\'' or '"' while inside a string, else 0 */
    bool triple;    /* the open string is triple-quoted */
    bool fmt;       /* the open string is an f-string */
    uint8_t fdepth; /* brace depth inside an f-string replacement field */
} pyhl_state;

/* Classifies line[0..n) (no newline) into kinds[0..n), one pyhl_kind per
 * byte, and advances *st to the state at the start of the next line. */
void pyhl_line(pyhl_state *st, const char *line, size_t n, uint8_t *kinds);

/* True when the identifier s[0..n) is a Python keyword. */
bool pyhl_is_keyword(const char *s, size_t n);

#endif
