/* timefmt: durations and timestamps with adaptive units (ns, us, ms, s). */
#ifndef SV_TIMEFMT_H
#define SV_TIMEFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The one rule for a time that is out of range: not a finite number, or of
 * a magnitude of 2^64 ns (about 585 years) or more, beyond any difference of
 * two int64 nanosecond times.  Such a time is unknown in every output:
 * "-" in text and on screen, null in JSON, an empty field in CSV. */
#define TIMEFMT_RANGE_NS 18446744073709551616.0
bool timefmt_in_range_ns(double ns);
bool timefmt_in_range_s(double seconds);

/* Four significant digits and a unit: "850 ns", "12.35 us", "1.234 s";
 * "-" for a time out of range (above).
 * Writes into buf (always terminated) and returns buf. */
char *timefmt_ns(char *buf, size_t len, double ns);

/* Seconds with up to 9 decimals, shortest form that round-trips the
 * nanosecond value ("0.0005", "12.000000001"). */
char *timefmt_seconds(char *buf, size_t len, double seconds);

/* A double printed so that strtod() gives back the same value (shortest of
 * %.15g, %.16g, %.17g).  JSON and CSV outputs use it. */
char *fmt_double_exact(char *buf, size_t len, double v);

/* A time as the timeline's ruler writes it: a decimal number and a unit, "1.5 ms", "200us",
 * "2 s", "20 ns" ("µs" too); a bare number is seconds.  Exact: the digits are read as an
 * integer, never through a double.  False for anything else, a negative value, digits below
 * a nanosecond or a value past INT64_MAX ns. */
bool timefmt_parse_ns(const char *s, int64_t *ns);

#endif
