#include "timefmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool timefmt_in_range_ns(double ns)
{
    return isfinite(ns) && fabs(ns) < TIMEFMT_RANGE_NS;
}

bool timefmt_in_range_s(double seconds)
{
    return isfinite(seconds) && fabs(seconds) < TIMEFMT_RANGE_NS / 1e9;
}

char *timefmt_ns(char *buf, size_t len, double ns)
{
    static const char *const units[] = {"ns", "us", "ms", "s"};
    double v = ns, a = fabs(ns);
    int u = 0;
    if (!timefmt_in_range_ns(ns)) {
        snprintf(buf, len, "-");
        return buf;
    }
    while (u < 3 && a >= 999.95) {
        v /= 1000.0;
        a /= 1000.0;
        u++;
    }
    int prec = a < 9.9995 ? 3 : a < 99.995 ? 2 : 1;
    /* Whole nanoseconds print whole, also when a quotient (a time per hit)
     * misses the integer by a rounding error: 30 ns beside 50 ns, never
     * "30.00 ns".  A fraction the shown digits keep stays (333.3 ns). */
    if (u == 0 && fabs(v - round(v)) < 0.5 * pow(10, -prec))
        snprintf(buf, len, "%.0f %s", round(v) == 0 ? 0.0 : round(v), units[u]);
    else
        snprintf(buf, len, "%.*f %s", prec, v, units[u]);
    return buf;
}

char *timefmt_seconds(char *buf, size_t len, double seconds)
{
    snprintf(buf, len, "%.9f", seconds);
    /* Trim trailing zeros but keep one digit after the point. */
    char *dot = NULL;
    for (char *p = buf; *p; p++)
        if (*p == '.')
            dot = p;
    if (dot) {
        char *end = dot;
        while (end[1])
            end++;
        while (end > dot + 1 && *end == '0')
            *end-- = '\0';
    }
    return buf;
}

char *fmt_double_exact(char *buf, size_t len, double v)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "null");
        return buf;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

/* The unit after a number: its exponent (ns = 0 ... s = 9), or -1. */
static int parse_unit(const char *u)
{
    static const struct {
        const char *name;
        int exp;
    } units[] = {{"ns", 0}, {"us", 3}, {"\xc2\xb5s", 3}, {"ms", 6}, {"s", 9}, {"", 9}};
    while (*u == ' ')
        u++;
    for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
        if (strcmp(u, units[k].name) == 0)
            return units[k].exp;
    return -1;
}

bool timefmt_parse_ns(const char *s, int64_t *ns)
{
    uint64_t whole = 0;
    const char *q = s, *frac = NULL;
    size_t nfrac = 0;
    for (; *q >= '0' && *q <= '9'; q++) {
        if (whole > (UINT64_MAX - 9) / 10)
            return false;
        whole = whole * 10 + (uint64_t)(*q - '0');
    }
    bool digits = q > s;
    if (*q == '.') {
        frac = ++q;
        for (; *q >= '0' && *q <= '9'; q++)
            nfrac++;
    }
    int exp = digits || nfrac ? parse_unit(q) : -1;
    if (exp < 0)
        return false;
    uint64_t scale = 1, fns = 0;
    for (int k = 0; k < exp; k++)
        scale *= 10;
    /* The fraction's first exp digits are nanoseconds; any further digit must be 0. */
    for (size_t k = 0; k < nfrac; k++) {
        if ((int)k >= exp && frac[k] != '0')
            return false;
        if ((int)k < exp)
            fns = fns * 10 + (uint64_t)(frac[k] - '0');
    }
    for (size_t k = nfrac; (int)k < exp; k++)
        fns *= 10;
    if (whole > (uint64_t)INT64_MAX / scale || whole * scale > (uint64_t)INT64_MAX - fns)
        return false;
    *ns = (int64_t)(whole * scale + fns);
    return true;
}
