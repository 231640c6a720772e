#include "timefmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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
    if (u == 0 && v == floor(v))
        snprintf(buf, len, "%.0f %s", v, units[u]);
    else if (a < 9.9995)
        snprintf(buf, len, "%.3f %s", v, units[u]);
    else if (a < 99.995)
        snprintf(buf, len, "%.2f %s", v, units[u]);
    else
        snprintf(buf, len, "%.1f %s", v, units[u]);
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
