/* ruler: tick steps and labels of the timeline's time axis (no curses).
 *
 * Times are nanoseconds from the profile's zero (minimum_start_time).  Ticks
 * fall on a 1-2-5 step chosen so labels never touch; labels share one unit
 * (ns, us, ms, s) picked from the largest visible value, with just enough
 * decimals for the step ("0.0 ms", "0.5 ms", "1.0 ms"). */
#ifndef SV_RULER_H
#define SV_RULER_H

#include <stddef.h>
#include <stdint.h>

#define RULER_MAX_TICKS 64
#define RULER_LABEL_MAX 32

typedef struct ruler_tick {
    int x;     /* column of the tick */
    int64_t t; /* its time from zero, ns */
    char label[RULER_LABEL_MAX];
} ruler_tick;

typedef struct ruler_plan {
    int64_t step; /* ns between ticks, 1, 2 or 5 times a power of ten */
    int unit_exp; /* 0 ns, 3 us, 6 ms, 9 s */
    int decimals; /* digits after the point in every label */
    size_t nticks;
    ruler_tick ticks[RULER_MAX_TICKS];
} ruler_plan;

/* Plans ticks for a window starting at t0 (ns from zero) with npc ns per
 * column over width columns. */
void ruler_plan_make(ruler_plan *p, int64_t t0, int64_t npc, int width);

/* Formats t (ns from zero) in unit 10^unit_exp ns with decimals digits:
 * "200 us", "1.5 ms", "-20 ns", rounded half up to the last digit shown
 * (integer arithmetic). */
char *ruler_label(char *buf, size_t len, int64_t t, int unit_exp, int decimals);

/* Unit and decimals for times up to |biggest| ns (from zero) on a view of
 * npc ns per column: the unit of the largest value, and one digit more
 * than tells adjacent columns apart, so that a deep zoom never shows
 * "1.538 s .. 1.538 s". */
void ruler_precision(int64_t biggest, int64_t npc, int *unit_exp, int *decimals);

/* The 1-2-5 step at or above v (saturating). */
int64_t ruler_nice_step(int64_t v);

#endif
