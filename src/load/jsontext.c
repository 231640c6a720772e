/* jsontext: see jsontext.h. */
#include "jsontext.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define JT_MAX_DEPTH 256

void jt_free(char **v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    return s;
}

static int hex4(const char *s, uint32_t *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return -1;
        *v = *v * 16 + (uint32_t)d;
    }
    return 0;
}

static size_t put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* The end of the string starting at s ('"'), or NULL; with out, decodes
 * it there (out has room for the raw length + 1). */
static const char *scan_string(const char *s, char *out)
{
    size_t o = 0;
    bool ended = false;
    s++;
    while (*s && *s != '"') {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20)
            return NULL;
        if (c != '\\') {
            if (out && !ended)
                out[o++] = (char)c;
            s++;
            continue;
        }
        s++;
        uint32_t cp;
        switch (*s) {
        case '"':
            cp = '"';
            break;
        case '\\':
            cp = '\\';
            break;
        case '/':
            cp = '/';
            break;
        case 'b':
            cp = '\b';
            break;
        case 'f':
            cp = '\f';
            break;
        case 'n':
            cp = '\n';
            break;
        case 'r':
            cp = '\r';
            break;
        case 't':
            cp = '\t';
            break;
        case 'u':
            if (hex4(s + 1, &cp) < 0)
                return NULL;
            s += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && s[1] == '\\' && s[2] == 'u') {
                uint32_t lo;
                if (hex4(s + 3, &lo) == 0 && lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    s += 6;
                }
            }
            if (cp >= 0xD800 && cp < 0xE000)
                cp = 0xFFFD; /* a lone surrogate */
            break;
        default:
            return NULL;
        }
        if (out && cp == 0)
            ended = true; /* strings in the model end at a NUL */
        if (out && !ended)
            o += put_utf8(out + o, cp);
        s++;
    }
    if (*s != '"')
        return NULL;
    if (out)
        out[o] = '\0';
    return s + 1;
}

/* The end of one JSON value starting at s (strings and brackets followed;
 * scalars run to the next ',', ']' or '}'), or NULL. */
static const char *scan_value(const char *s)
{
    int depth = 0;
    char stack[JT_MAX_DEPTH];
    do {
        s = skip_ws(s);
        if (*s == '"') {
            if (!(s = scan_string(s, NULL)))
                return NULL;
        } else if (*s == '[' || *s == '{') {
            if (depth == JT_MAX_DEPTH)
                return NULL;
            stack[depth++] = *s == '[' ? ']' : '}';
            s++;
        } else if (*s == ']' || *s == '}') {
            if (depth == 0 || stack[depth - 1] != *s)
                return NULL;
            depth--;
            s++;
        } else if (*s == ',' || *s == ':') {
            if (depth == 0)
                return NULL;
            s++;
        } else if (*s) {
            const char *b = s;
            while (*s && !strchr(",]} \t\r\n:\"[{", *s))
                s++;
            if (s == b)
                return NULL;
        } else {
            return NULL;
        }
    } while (depth > 0);
    return s;
}

static jt_status push(char ***v, size_t *n, size_t *cap, char *item)
{
    if (!item)
        return JT_NOMEM;
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 4;
        char **g = realloc(*v, c * sizeof *g);
        if (!g) {
            free(item);
            return JT_NOMEM;
        }
        *v = g;
        *cap = c;
    }
    (*v)[(*n)++] = item;
    return JT_OK;
}

/* Walks the elements of the array s; each element [b, e) goes to fn. */
static jt_status walk_array(const char *s, bool strings_only, char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    s = skip_ws(s);
    if (*s != '[')
        return JT_BAD;
    s = skip_ws(s + 1);
    jt_status st = JT_OK;
    if (*s == ']') {
        s++;
    } else {
        for (;;) {
            s = skip_ws(s);
            const char *b = s;
            const char *e = strings_only && *s != '"' ? NULL : scan_value(s);
            if (!e) {
                st = JT_BAD;
                break;
            }
            char *item;
            if (strings_only) {
                item = malloc((size_t)(e - b) + 1);
                if (item)
                    scan_string(b, item);
            } else {
                item = strndup(b, (size_t)(e - b));
            }
            if ((st = push(out, n, &cap, item)) != JT_OK)
                break;
            s = skip_ws(e);
            if (*s == ',') {
                s++;
                continue;
            }
            if (*s == ']') {
                s++;
                break;
            }
            st = JT_BAD;
            break;
        }
    }
    if (st == JT_OK && *skip_ws(s) != '\0')
        st = JT_BAD;
    if (st != JT_OK) {
        jt_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return st;
}

jt_status jt_string_array(const char *s, char ***out, size_t *n)
{
    return walk_array(s, true, out, n);
}

jt_status jt_split_array(const char *s, char ***out, size_t *n)
{
    return walk_array(s, false, out, n);
}
