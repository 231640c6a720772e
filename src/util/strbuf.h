/* strbuf: a growable byte buffer, always NUL-terminated. */
#ifndef SV_STRBUF_H
#define SV_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct strbuf {
    char *s;
    size_t len;
    size_t cap;
    bool oom; /* set once an allocation failed; further appends are dropped */
} strbuf;

void sb_init(strbuf *b);
void sb_free(strbuf *b);
void sb_reset(strbuf *b);
bool sb_reserve(strbuf *b, size_t extra);
void sb_putc(strbuf *b, char c);
void sb_putn(strbuf *b, const char *s, size_t n);
void sb_puts(strbuf *b, const char *s);
void sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands the string over to the caller (who frees it) and resets b. */
char *sb_take(strbuf *b);

#endif
