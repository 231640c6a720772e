/* text: UTF-8 decoding and escaping of untrusted strings.
 *
 * Every string that comes from a profile may hold control characters,
 * terminal escape sequences or invalid UTF-8.  These functions are the only
 * way such a string reaches a terminal or an output file. */
#ifndef SV_TEXT_H
#define SV_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

/* Decodes one UTF-8 sequence from s (n bytes available).  Returns the
 * number of bytes used, or 0 when the bytes there are not valid UTF-8
 * (overlong forms, surrogates and code points above U+10FFFF included). */
size_t utf8_decode(const char *s, size_t n, uint32_t *cp);

/* True for code points that must never reach a terminal raw: C0 controls,
 * DEL, C1 controls, and the bidirectional overrides/isolates and line or
 * paragraph separators that can reorder or break what is shown. */
bool text_is_unsafe_cp(uint32_t cp);

/* Appends s to b for a text output: tab, newline and CR as \t \n \r, other
 * unsafe code points as \xNN or \uNNNN, invalid bytes as \xNN.  At most
 * max_bytes of s are read (SIZE_MAX for all); a cut is marked with "...". */
void text_escape(strbuf *b, const char *s, size_t max_bytes);

/* Like text_escape but keeps newlines (for multi-line source text). */
void text_escape_keep_newlines(strbuf *b, const char *s, size_t max_bytes);

/* Escapes s into a fixed buffer (always NUL-terminated, cut with "..."). */
void text_escape_buf(char *dst, size_t cap, const char *s);

/* Appends s as a quoted JSON string: control and C1 characters as \u00XX,
 * invalid UTF-8 bytes as U+FFFD, so the output is valid JSON whatever the input. */
void json_escape(strbuf *b, const char *s);

/* True when s is valid UTF-8 holding no unsafe code point. */
bool text_is_clean(const char *s);

#endif
