/* checked: int64 arithmetic that cannot overflow, for time stamps, durations
 * and line numbers taken from a file.
 *
 * A file may hold any int64: the difference of two time stamps, a sum of
 * durations or "first line + count" can leave the int64 range, which is
 * undefined behaviour in C (the sanitized build aborts, the plain build
 * prints a wrapped, wrong-signed value).  These saturate at INT64_MIN /
 * INT64_MAX instead: a clamped value is the nearest representable one and
 * keeps its sign, so a screen or an output never shows a time before zero
 * that is not there. */
#ifndef SV_CHECKED_H
#define SV_CHECKED_H

#include <stdbool.h>
#include <stdint.h>

/* a + b, saturated. */
static inline int64_t ck_add(int64_t a, int64_t b)
{
    int64_t r;
    if (!__builtin_add_overflow(a, b, &r))
        return r;
    return b > 0 ? INT64_MAX : INT64_MIN;
}

/* a - b, saturated. */
static inline int64_t ck_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (!__builtin_sub_overflow(a, b, &r))
        return r;
    return b < 0 ? INT64_MAX : INT64_MIN;
}

/* a * b, saturated. */
static inline int64_t ck_mul(int64_t a, int64_t b)
{
    int64_t r;
    if (!__builtin_mul_overflow(a, b, &r))
        return r;
    return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
}

/* -a, saturated (-INT64_MIN is INT64_MAX). */
static inline int64_t ck_neg(int64_t a)
{
    return a == INT64_MIN ? INT64_MAX : -a;
}

/* |a|, saturated. */
static inline int64_t ck_abs(int64_t a)
{
    return a < 0 ? ck_neg(a) : a;
}

/* a - b exactly, as a double (widened: exact up to 2^53, then rounded
 * like any double, never wrapped). */
static inline double ck_diff_f64(int64_t a, int64_t b)
{
    int64_t r;
    if (!__builtin_sub_overflow(a, b, &r))
        return (double)r;
    return (double)a - (double)b;
}

/* True when a - b fits an int64 (*out set), false when it overflows. */
static inline bool ck_sub_ok(int64_t a, int64_t b, int64_t *out)
{
    return !__builtin_sub_overflow(a, b, out);
}

#endif
