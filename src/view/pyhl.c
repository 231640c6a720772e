/* pyhl: byte-wise classification of Python source lines.
 *
 * A state machine with one step function per situation (code, string
 * body, f-string replacement field); every step consumes at least one
 * byte, so any input terminates in n steps. */
#include "pyhl.h"

#include <string.h>

typedef struct pyhl_scan {
    const char *s;
    size_t n, i;
    uint8_t *kinds;
    pyhl_state *st;
    bool cont; /* the line ended with a backslash inside a string */
} pyhl_scan;

static const char *const pyhl_keywords[] = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield",
};

bool pyhl_is_keyword(const char *s, size_t n)
{
    for (size_t k = 0; k < sizeof pyhl_keywords / sizeof pyhl_keywords[0]; k++)
        if (strlen(pyhl_keywords[k]) == n && memcmp(pyhl_keywords[k], s, n) == 0)
            return true;
    return false;
}

/* Non-ASCII bytes count as identifier characters: Python allows Unicode
 * names, and a highlighter need not validate them. */
static bool is_ident_start(unsigned char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static bool is_ident(unsigned char c)
{
    return is_ident_start(c) || is_digit(c);
}

static bool is_quote(char c)
{
    return c == '\'' || c == '"';
}

static void mark(pyhl_scan *sc, size_t count, pyhl_kind k)
{
    if (count > sc->n - sc->i)
        count = sc->n - sc->i;
    memset(sc->kinds + sc->i, (int)k, count);
    sc->i += count;
}

/* A string prefix (r, b, u, f, t and their two-letter mixes, any case);
 * *fmt says whether replacement fields are parsed. */
static bool string_prefix(const char *s, size_t n, bool *fmt)
{
    if (n == 0 || n > 2)
        return false;
    bool r = false, b = false, u = false, f = false;
    for (size_t k = 0; k < n; k++) {
        char c = (char)(s[k] | 0x20);
        bool *seen = c == 'r'                 ? &r
                     : c == 'b'               ? &b
                     : c == 'u'               ? &u
                     : (c == 'f' || c == 't') ? &f
                                              : NULL;
        if (!seen || *seen)
            return false;
        *seen = true;
    }
    if (n == 2 && (u || !r)) /* the only two-letter prefixes pair r with b, f or t */
        return false;
    *fmt = f;
    return true;
}

/* Opens a string whose quote is at sc->i (the prefix already marked). */
static void open_string(pyhl_scan *sc, bool fmt)
{
    char q = sc->s[sc->i];
    bool triple = sc->i + 2 < sc->n && sc->s[sc->i + 1] == q && sc->s[sc->i + 2] == q;
    mark(sc, triple ? 3 : 1, PYHL_STRING);
    *sc->st = (pyhl_state){.quote = q, .triple = triple, .fmt = fmt};
}

/* A string inside an f-string replacement field: one line, no fields of
 * its own (enough to keep its quotes from closing the outer string). */
static void nested_string(pyhl_scan *sc)
{
    char q = sc->s[sc->i];
    mark(sc, 1, PYHL_STRING);
    while (sc->i < sc->n) {
        char c = sc->s[sc->i];
        mark(sc, c == '\\' ? 2 : 1, PYHL_STRING);
        if (c == q)
            return;
    }
}

static void comment(pyhl_scan *sc)
{
    mark(sc, sc->n - sc->i, PYHL_COMMENT);
}

static bool only_space_before(const pyhl_scan *sc)
{
    for (size_t k = 0; k < sc->i; k++)
        if (sc->s[k] != ' ' && sc->s[k] != '\t')
            return false;
    return true;
}

/* "@name.attr" at the start of a line; the arguments stay code. */
static void decorator(pyhl_scan *sc)
{
    size_t j = sc->i + 1;
    while (j < sc->n && (sc->s[j] == ' ' || sc->s[j] == '\t'))
        j++;
    while (j < sc->n && (is_ident((unsigned char)sc->s[j]) || sc->s[j] == '.'))
        j++;
    mark(sc, j - sc->i, PYHL_DECORATOR);
}

/* 12, 0x1F, 1_000, 3.5e-7, .5, 2j: the digits and letters that follow,
 * and a sign right after a decimal exponent. */
static void number(pyhl_scan *sc)
{
    const char *s = sc->s;
    size_t j = sc->i;
    bool hex = s[j] == '0' && j + 1 < sc->n && (s[j + 1] | 0x20) == 'x';
    while (j < sc->n) {
        unsigned char c = (unsigned char)s[j];
        bool sign = (c == '+' || c == '-') && !hex && j > sc->i && (s[j - 1] | 0x20) == 'e' &&
                    j + 1 < sc->n && is_digit((unsigned char)s[j + 1]);
        if (!(is_ident(c) && c < 0x80) && c != '.' && !sign)
            break;
        j++;
    }
    mark(sc, j - sc->i, PYHL_NUMBER);
}

/* An identifier: a keyword, a string prefix, or a plain name. */
static void word(pyhl_scan *sc, bool in_field)
{
    size_t j = sc->i;
    while (j < sc->n && is_ident((unsigned char)sc->s[j]))
        j++;
    const char *w = sc->s + sc->i;
    size_t len = j - sc->i;
    bool fmt = false;
    if (j < sc->n && is_quote(sc->s[j]) && string_prefix(w, len, &fmt)) {
        mark(sc, len, PYHL_STRING);
        if (in_field)
            nested_string(sc);
        else
            open_string(sc, fmt);
        return;
    }
    mark(sc, len, pyhl_is_keyword(w, len) ? PYHL_KEYWORD : PYHL_TEXT);
}

/* One token of code; in_field: inside an f-string's {...}. */
static void code_step(pyhl_scan *sc, bool in_field)
{
    unsigned char c = (unsigned char)sc->s[sc->i];
    bool next_digit = sc->i + 1 < sc->n && is_digit((unsigned char)sc->s[sc->i + 1]);
    if (in_field && (c == '{' || c == '}')) {
        if (c == '}' || sc->st->fdepth < UINT8_MAX)
            sc->st->fdepth = (uint8_t)(sc->st->fdepth + (c == '{' ? 1 : -1));
        mark(sc, 1, sc->st->fdepth == 0 ? PYHL_STRING : PYHL_TEXT);
    } else if (is_quote((char)c)) {
        if (in_field)
            nested_string(sc);
        else
            open_string(sc, false);
    } else if (c == '#' && !in_field) {
        comment(sc);
    } else if (c == '@' && !in_field && only_space_before(sc)) {
        decorator(sc);
    } else if (is_ident_start(c)) {
        word(sc, in_field);
    } else if (is_digit(c) || (c == '.' && next_digit)) {
        number(sc);
    } else {
        mark(sc, 1, PYHL_TEXT);
    }
}

/* One step inside an open string's text. */
static void string_step(pyhl_scan *sc)
{
    pyhl_state *st = sc->st;
    const char *s = sc->s;
    size_t i = sc->i;
    char c = s[i];
    if (c == '\\') {
        /* Escapes hide a quote even in raw strings (r"\"" is one string). */
        sc->cont = i + 1 == sc->n;
        mark(sc, 2, PYHL_STRING);
    } else if (c == st->quote) {
        bool closes = !st->triple || (i + 2 < sc->n && s[i + 1] == c && s[i + 2] == c);
        mark(sc, closes && st->triple ? 3 : 1, PYHL_STRING);
        if (closes)
            *st = (pyhl_state){0};
    } else if (st->fmt && (c == '{' || c == '}')) {
        bool doubled = i + 1 < sc->n && s[i + 1] == c;
        mark(sc, doubled ? 2 : 1, PYHL_STRING);
        if (c == '{' && !doubled)
            st->fdepth = 1;
    } else {
        mark(sc, 1, PYHL_STRING);
    }
}

void pyhl_line(pyhl_state *st, const char *line, size_t n, uint8_t *kinds)
{
    pyhl_scan sc = {.s = line, .n = n, .i = 0, .kinds = kinds, .st = st, .cont = false};
    while (sc.i < n) {
        sc.cont = false;
        if (!st->quote)
            code_step(&sc, false);
        else if (st->fdepth > 0)
            code_step(&sc, true);
        else
            string_step(&sc);
    }
    /* Only triple-quoted and backslash-continued strings go on. */
    if (st->quote && !st->triple && !sc.cont)
        *st = (pyhl_state){0};
}
