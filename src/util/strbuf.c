#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_init(strbuf *b)
{
    b->s = NULL;
    b->len = 0;
    b->cap = 0;
    b->oom = false;
}

void sb_free(strbuf *b)
{
    free(b->s);
    sb_init(b);
}

void sb_reset(strbuf *b)
{
    b->len = 0;
    if (b->s)
        b->s[0] = '\0';
}

bool sb_reserve(strbuf *b, size_t extra)
{
    if (b->oom)
        return false;
    if (b->len + extra + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1) {
        if (cap > ((size_t)-1) / 2) {
            b->oom = true;
            return false;
        }
        cap *= 2;
    }
    char *s = realloc(b->s, cap);
    if (!s) {
        b->oom = true;
        return false;
    }
    b->s = s;
    b->cap = cap;
    return true;
}

void sb_putn(strbuf *b, const char *s, size_t n)
{
    if (!sb_reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void sb_putc(strbuf *b, char c)
{
    sb_putn(b, &c, 1);
}

void sb_puts(strbuf *b, const char *s)
{
    sb_putn(b, s, strlen(s));
}

void sb_printf(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[256];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        sb_putn(b, tmp, (size_t)n);
        return;
    }
    if (!sb_reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *sb_take(strbuf *b)
{
    char *s = b->s;
    if (!s)
        s = calloc(1, 1);
    sb_init(b);
    return s;
}
