/* timefmt: durations and timestamps with adaptive units (ns, us, ms, s). */
#ifndef SV_TIMEFMT_H
#define SV_TIMEFMT_H

#include <stddef.h>

/* Four significant digits and a unit: "850 ns", "12.35 us", "1.234 s".
 * Writes into buf (always terminated) and returns buf. */
char *timefmt_ns(char *buf, size_t len, double ns);

/* Seconds with up to 9 decimals, shortest form that round-trips the
 * nanosecond value ("0.0005", "12.000000001"). */
char *timefmt_seconds(char *buf, size_t len, double seconds);

/* A double printed so that strtod() gives back the same value (shortest of
 * %.15g, %.16g, %.17g).  JSON and CSV outputs use it. */
char *fmt_double_exact(char *buf, size_t len, double v);

#endif
