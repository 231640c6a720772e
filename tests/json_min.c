/* json_min: see json_min.h. Recursive descent over a byte range. */
#include "json_min.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deep enough for any output we test, shallow enough that recursion cannot blow the stack. */
#define JM_MAX_DEPTH 256

typedef struct jm_parser {
    const char *s;
    size_t len;
    size_t pos;
    int depth;
    char *err;
    size_t errlen;
    bool failed;
} jm_parser;

static jm_node *parse_value(jm_parser *p);

static void fail(jm_parser *p, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = true;
    if (!p->err || p->errlen == 0)
        return;
    int n = snprintf(p->err, p->errlen, "json: offset %zu: ", p->pos);
    if (n < 0 || (size_t)n >= p->errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

static void skip_ws(jm_parser *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

static int peek(const jm_parser *p)
{
    return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static bool expect_word(jm_parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0) {
        fail(p, "invalid literal");
        return false;
    }
    p->pos += n;
    return true;
}

static jm_node *new_node(jm_parser *p, jm_type type)
{
    jm_node *n = calloc(1, sizeof *n);
    if (!n)
        fail(p, "out of memory");
    else
        n->type = type;
    return n;
}

static bool push_child(jm_parser *p, jm_node *parent, jm_node *child, size_t *cap)
{
    if (parent->count == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        jm_node **items = realloc(parent->items, ncap * sizeof *items);
        if (!items) {
            fail(p, "out of memory");
            return false;
        }
        parent->items = items;
        *cap = ncap;
    }
    parent->items[parent->count++] = child;
    return true;
}

/* ------------------------------------------------------------------ strings */

typedef struct jm_buf {
    char *s;
    size_t len, cap;
} jm_buf;

static bool buf_put(jm_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap : 32;
        while (b->len + n + 1 > ncap)
            ncap *= 2;
        char *ns = realloc(b->s, ncap);
        if (!ns)
            return false;
        b->s = ns;
        b->cap = ncap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return true;
}

static bool buf_put_utf8(jm_buf *b, uint32_t cp)
{
    char out[4];
    size_t n;
    if (cp < 0x80) {
        out[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        out[0] = (char)(0xF0 | (cp >> 18));
        out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return buf_put(b, out, n);
}

static bool read_hex4(jm_parser *p, uint32_t *out)
{
    if (p->len - p->pos < 4) {
        fail(p, "short \\u escape");
        return false;
    }
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p->s[p->pos++];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (uint32_t)(c - 'A' + 10);
        else {
            fail(p, "bad hex digit in \\u escape");
            return false;
        }
    }
    *out = v;
    return true;
}

/* After the 'u' of a \u escape: one code point, joining a surrogate pair. */
static bool read_unicode_escape(jm_parser *p, uint32_t *cp)
{
    uint32_t hi;
    if (!read_hex4(p, &hi))
        return false;
    if (hi >= 0xDC00 && hi <= 0xDFFF) {
        fail(p, "lone low surrogate");
        return false;
    }
    if (hi < 0xD800 || hi > 0xDBFF) {
        *cp = hi;
        return true;
    }
    uint32_t lo;
    if (p->len - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u') {
        fail(p, "lone high surrogate");
        return false;
    }
    p->pos += 2;
    if (!read_hex4(p, &lo))
        return false;
    if (lo < 0xDC00 || lo > 0xDFFF) {
        fail(p, "bad low surrogate");
        return false;
    }
    *cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
    return true;
}

static bool read_escape(jm_parser *p, jm_buf *b)
{
    if (p->pos >= p->len) {
        fail(p, "unterminated escape");
        return false;
    }
    char c = p->s[p->pos++];
    const char *map = "\"\"\\\\//b\bf\fn\nr\rt\t";
    for (const char *m = map; *m; m += 2) {
        if (*m == c)
            return buf_put(b, m + 1, 1);
    }
    if (c != 'u') {
        fail(p, "bad escape '\\%c'", c);
        return false;
    }
    uint32_t cp;
    return read_unicode_escape(p, &cp) && buf_put_utf8(b, cp);
}

/* Length of a well-formed UTF-8 sequence starting at s (n bytes available), 0 if malformed. */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
    size_t need;
    uint32_t cp, min;
    if (s[0] < 0x80)
        return 1;
    if ((s[0] & 0xE0) == 0xC0) {
        need = 2, cp = s[0] & 0x1F, min = 0x80;
    } else if ((s[0] & 0xF0) == 0xE0) {
        need = 3, cp = s[0] & 0x0F, min = 0x800;
    } else if ((s[0] & 0xF8) == 0xF0) {
        need = 4, cp = s[0] & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (n < need)
        return 0;
    for (size_t i = 1; i < need; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return need;
}

/* At the opening quote. Returns a malloc'd decoded string. */
static char *parse_string_raw(jm_parser *p, size_t *out_len)
{
    jm_buf b = {0};
    p->pos++; /* opening quote */
    if (!buf_put(&b, "", 0))
        goto oom;
    for (;;) {
        if (p->pos >= p->len) {
            fail(p, "unterminated string");
            goto bad;
        }
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c == '"') {
            p->pos++;
            break;
        }
        if (c < 0x20) {
            fail(p, "raw control character 0x%02x in string", c);
            goto bad;
        }
        if (c == '\\') {
            p->pos++;
            if (!read_escape(p, &b))
                goto bad;
            continue;
        }
        size_t n = utf8_seq_len((const unsigned char *)p->s + p->pos, p->len - p->pos);
        if (n == 0) {
            fail(p, "invalid UTF-8 in string");
            goto bad;
        }
        if (!buf_put(&b, p->s + p->pos, n))
            goto oom;
        p->pos += n;
    }
    *out_len = b.len;
    return b.s;
oom:
    fail(p, "out of memory");
bad:
    free(b.s);
    return NULL;
}

static jm_node *parse_string(jm_parser *p)
{
    size_t n = 0;
    char *s = parse_string_raw(p, &n);
    if (!s)
        return NULL;
    jm_node *node = new_node(p, JM_STRING);
    if (!node) {
        free(s);
        return NULL;
    }
    node->string = s;
    node->string_len = n;
    return node;
}

/* ------------------------------------------------------------------ numbers */

static size_t skip_digits(jm_parser *p)
{
    size_t start = p->pos;
    while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
        p->pos++;
    return p->pos - start;
}

static jm_node *parse_number(jm_parser *p)
{
    size_t start = p->pos;
    if (peek(p) == '-')
        p->pos++;
    if (peek(p) == '0') {
        p->pos++;
    } else if (skip_digits(p) == 0) {
        fail(p, "bad number");
        return NULL;
    }
    if (peek(p) == '.') {
        p->pos++;
        if (skip_digits(p) == 0) {
            fail(p, "digits expected after '.'");
            return NULL;
        }
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        p->pos++;
        if (peek(p) == '+' || peek(p) == '-')
            p->pos++;
        if (skip_digits(p) == 0) {
            fail(p, "digits expected in exponent");
            return NULL;
        }
    }
    if (peek(p) >= '0' && peek(p) <= '9') {
        fail(p, "leading zero in number");
        return NULL;
    }
    /* strtod needs a terminated copy: the input is a byte range. */
    size_t n = p->pos - start;
    char tmp[128];
    char *copy = n < sizeof tmp ? tmp : malloc(n + 1);
    if (!copy) {
        fail(p, "out of memory");
        return NULL;
    }
    memcpy(copy, p->s + start, n);
    copy[n] = '\0';
    double v = strtod(copy, NULL);
    if (copy != tmp)
        free(copy);
    jm_node *node = new_node(p, JM_NUMBER);
    if (node)
        node->number = v;
    return node;
}

/* ------------------------------------------------------------------ containers */

static jm_node *parse_array(jm_parser *p)
{
    jm_node *arr = new_node(p, JM_ARRAY);
    size_t cap = 0;
    if (!arr)
        return NULL;
    p->pos++;
    skip_ws(p);
    if (peek(p) == ']') {
        p->pos++;
        return arr;
    }
    for (;;) {
        jm_node *v = parse_value(p);
        if (!v || !push_child(p, arr, v, &cap)) {
            jm_free(v);
            goto bad;
        }
        skip_ws(p);
        int c = peek(p);
        p->pos++;
        if (c == ']')
            return arr;
        if (c != ',') {
            p->pos--;
            fail(p, "expected ',' or ']'");
            goto bad;
        }
    }
bad:
    jm_free(arr);
    return NULL;
}

static jm_node *parse_member(jm_parser *p)
{
    skip_ws(p);
    if (peek(p) != '"') {
        fail(p, "expected a string key");
        return NULL;
    }
    size_t klen;
    char *key = parse_string_raw(p, &klen);
    if (!key)
        return NULL;
    skip_ws(p);
    if (peek(p) != ':') {
        fail(p, "expected ':'");
        free(key);
        return NULL;
    }
    p->pos++;
    jm_node *v = parse_value(p);
    if (!v) {
        free(key);
        return NULL;
    }
    v->key = key;
    return v;
}

static jm_node *parse_object(jm_parser *p)
{
    jm_node *obj = new_node(p, JM_OBJECT);
    size_t cap = 0;
    if (!obj)
        return NULL;
    p->pos++;
    skip_ws(p);
    if (peek(p) == '}') {
        p->pos++;
        return obj;
    }
    for (;;) {
        jm_node *m = parse_member(p);
        if (!m || !push_child(p, obj, m, &cap)) {
            jm_free(m);
            goto bad;
        }
        skip_ws(p);
        int c = peek(p);
        p->pos++;
        if (c == '}')
            return obj;
        if (c != ',') {
            p->pos--;
            fail(p, "expected ',' or '}'");
            goto bad;
        }
    }
bad:
    jm_free(obj);
    return NULL;
}

static jm_node *parse_value(jm_parser *p)
{
    jm_node *n = NULL;
    skip_ws(p);
    if (++p->depth > JM_MAX_DEPTH) {
        fail(p, "nesting too deep");
        return NULL;
    }
    switch (peek(p)) {
    case '{':
        n = parse_object(p);
        break;
    case '[':
        n = parse_array(p);
        break;
    case '"':
        n = parse_string(p);
        break;
    case 't':
    case 'f': {
        bool is_true = peek(p) == 't';
        if (expect_word(p, is_true ? "true" : "false")) {
            n = new_node(p, JM_BOOL);
            if (n)
                n->boolean = is_true;
        }
        break;
    }
    case 'n':
        if (expect_word(p, "null"))
            n = new_node(p, JM_NULL);
        break;
    case -1:
        fail(p, "unexpected end of input");
        break;
    default:
        if (peek(p) == '-' || (peek(p) >= '0' && peek(p) <= '9'))
            n = parse_number(p);
        else
            fail(p, "unexpected character");
    }
    p->depth--;
    return n;
}

/* ------------------------------------------------------------------ public */

jm_node *jm_parse(const char *text, size_t len, char *err, size_t errlen)
{
    jm_parser p = {.s = text, .len = len, .err = err, .errlen = errlen};
    if (err && errlen)
        err[0] = '\0';
    if (!text) {
        fail(&p, "no input");
        return NULL;
    }
    jm_node *root = parse_value(&p);
    if (!root)
        return NULL;
    skip_ws(&p);
    if (p.pos != p.len) {
        fail(&p, "trailing data after the value");
        jm_free(root);
        return NULL;
    }
    return root;
}

void jm_free(jm_node *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->count; i++)
        jm_free(n->items[i]);
    free(n->items);
    free(n->string);
    free(n->key);
    free(n);
}

const jm_node *jm_get(const jm_node *obj, const char *key)
{
    if (!obj || obj->type != JM_OBJECT || !key)
        return NULL;
    for (size_t i = 0; i < obj->count; i++) {
        if (strcmp(obj->items[i]->key, key) == 0)
            return obj->items[i];
    }
    return NULL;
}

const jm_node *jm_at(const jm_node *arr, size_t i)
{
    if (!arr || (arr->type != JM_ARRAY && arr->type != JM_OBJECT) || i >= arr->count)
        return NULL;
    return arr->items[i];
}

bool jm_is_null(const jm_node *n)
{
    return n && n->type == JM_NULL;
}

bool jm_number(const jm_node *n, double *out)
{
    if (!n || n->type != JM_NUMBER)
        return false;
    if (out)
        *out = n->number;
    return true;
}

const char *jm_string(const jm_node *n)
{
    return n && n->type == JM_STRING ? n->string : NULL;
}
