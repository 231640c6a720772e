#include "text.h"

#include <string.h>

size_t utf8_decode(const char *str, size_t n, uint32_t *cp)
{
    const unsigned char *s = (const unsigned char *)str;
    if (n == 0)
        return 0;
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t len;
    uint32_t v, min;
    if ((c & 0xE0) == 0xC0) {
        len = 2, v = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3, v = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

bool text_is_unsafe_cp(uint32_t cp)
{
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F))
        return true;
    if (cp == 0x2028 || cp == 0x2029)
        return true;
    if ((cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069))
        return true;
    return false;
}

static void escape_cp(strbuf *b, uint32_t cp)
{
    switch (cp) {
    case '\t':
        sb_puts(b, "\\t");
        return;
    case '\n':
        sb_puts(b, "\\n");
        return;
    case '\r':
        sb_puts(b, "\\r");
        return;
    default:
        break;
    }
    if (cp < 0x80)
        sb_printf(b, "\\x%02x", (unsigned)cp);
    else
        sb_printf(b, "\\u%04x", (unsigned)cp);
}

static void escape_impl(strbuf *b, const char *s, size_t max_bytes, bool keep_nl)
{
    size_t n = strlen(s);
    bool cut = n > max_bytes;
    if (cut)
        n = max_bytes;
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        size_t k = utf8_decode(s + i, n - i, &cp);
        if (k == 0) {
            sb_printf(b, "\\x%02x", (unsigned)(unsigned char)s[i]);
            i++;
            continue;
        }
        if (cp == '\n' && keep_nl)
            sb_putc(b, '\n');
        else if (text_is_unsafe_cp(cp))
            escape_cp(b, cp);
        else
            sb_putn(b, s + i, k);
        i += k;
    }
    if (cut)
        sb_puts(b, "...");
}

void text_escape(strbuf *b, const char *s, size_t max_bytes)
{
    escape_impl(b, s, max_bytes, false);
}

void text_escape_keep_newlines(strbuf *b, const char *s, size_t max_bytes)
{
    escape_impl(b, s, max_bytes, true);
}

void text_escape_buf(char *dst, size_t cap, const char *s)
{
    if (cap == 0)
        return;
    strbuf b;
    sb_init(&b);
    escape_impl(&b, s ? s : "(null)", cap * 4, false);
    if (!b.s || b.oom) {
        dst[0] = '\0';
    } else if (b.len < cap) {
        memcpy(dst, b.s, b.len + 1);
    } else {
        /* Cut at a UTF-8 boundary so the message stays valid text. */
        size_t keep = cap > 4 ? cap - 4 : 0;
        while (keep > 0 && ((unsigned char)b.s[keep] & 0xC0) == 0x80)
            keep--;
        memcpy(dst, b.s, keep);
        memcpy(dst + keep, "...", cap - keep > 3 ? 4 : cap - keep);
        dst[cap - 1] = '\0';
    }
    sb_free(&b);
}

void json_escape(strbuf *b, const char *s)
{
    sb_putc(b, '"');
    size_t n = strlen(s), i = 0;
    while (i < n) {
        uint32_t cp;
        size_t k = utf8_decode(s + i, n - i, &cp);
        if (k == 0) {
            sb_puts(b, "\\ufffd");
            i++;
            continue;
        }
        if (cp == '"')
            sb_puts(b, "\\\"");
        else if (cp == '\\')
            sb_puts(b, "\\\\");
        else if (cp == '\n')
            sb_puts(b, "\\n");
        else if (cp == '\t')
            sb_puts(b, "\\t");
        else if (cp == '\r')
            sb_puts(b, "\\r");
        else if (text_is_unsafe_cp(cp))
            sb_printf(b, "\\u%04x", (unsigned)cp);
        else
            sb_putn(b, s + i, k);
        i += k;
    }
    sb_putc(b, '"');
}

bool text_is_clean(const char *s)
{
    size_t n = strlen(s), i = 0;
    while (i < n) {
        uint32_t cp;
        size_t k = utf8_decode(s + i, n - i, &cp);
        if (k == 0 || text_is_unsafe_cp(cp))
            return false;
        i += k;
    }
    return true;
}
