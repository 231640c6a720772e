/* Ruler: 1-2-5 tick steps with labels that never touch. */
#include "ruler.h"

#include <stdio.h>
#include <string.h>

static const char *const unit_names[] = {"ns", "us", "ms", "s"};

static int64_t pow10i(int e)
{
    int64_t v = 1;
    while (e-- > 0)
        v *= 10;
    return v;
}

int64_t ruler_nice_step(int64_t v)
{
    if (v <= 1)
        return 1;
    for (int64_t base = 1; base <= INT64_MAX / 10; base *= 10) {
        if (v <= base)
            return base;
        if (v <= 2 * base)
            return 2 * base;
        if (v <= 5 * base)
            return 5 * base;
    }
    return INT64_MAX;
}

/* The next 1-2-5 step after s. */
static int64_t next_step(int64_t s)
{
    return s >= INT64_MAX / 3 ? INT64_MAX : ruler_nice_step(s + 1);
}

char *ruler_label(char *buf, size_t len, int64_t t, int unit_exp, int decimals)
{
    uint64_t a = t < 0 ? (uint64_t)0 - (uint64_t)t : (uint64_t)t;
    const char *name = unit_names[unit_exp / 3];
    decimals = decimals <= 0 ? 0 : decimals > unit_exp ? unit_exp : decimals;
    /* Rounded to the last digit shown, half up, as timefmt rounds: the
     * timeline's 740.4 ms is the lanes view's 740.4 ms. */
    uint64_t step = (uint64_t)pow10i(unit_exp - decimals);
    a = a / step + (a % step >= (step + 1) / 2 && step > 1);
    uint64_t scale = (uint64_t)pow10i(decimals);
    uint64_t whole = a / scale, frac = a % scale;
    const char *sign = t < 0 && a ? "-" : "";
    if (decimals == 0) {
        snprintf(buf, len, "%s%llu %s", sign, (unsigned long long)whole, name);
        return buf;
    }
    char digits[16];
    for (int i = decimals - 1; i >= 0; i--, frac /= 10)
        digits[i] = (char)('0' + frac % 10);
    digits[decimals] = '\0';
    snprintf(buf, len, "%s%llu.%s %s", sign, (unsigned long long)whole, digits, name);
    return buf;
}

void ruler_precision(int64_t biggest, int64_t npc, int *unit_exp, int *decimals)
{
    uint64_t a = biggest < 0 ? (uint64_t)0 - (uint64_t)biggest : (uint64_t)biggest;
    int ue = a >= 1000000000u ? 9 : a >= 1000000u ? 6 : a >= 1000u ? 3 : 0;
    int d = 0;
    while (d < ue && pow10i(ue - d) > npc)
        d++;
    *unit_exp = ue;
    *decimals = d < ue ? d + 1 : d;
}

/* Smallest number of decimals that shows every multiple of step exactly. */
static int step_decimals(int64_t step, int unit_exp)
{
    int d = 0;
    while (d < unit_exp && step % pow10i(unit_exp - d) != 0)
        d++;
    return d;
}

/* Fills p->ticks for step; returns the widest label. */
static int place_ticks(ruler_plan *p, int64_t t0, int64_t npc, int width, int64_t step)
{
    p->step = step;
    p->nticks = 0;
    int64_t k0 = t0 / step + (t0 > 0 && t0 % step != 0); /* ceil(t0 / step) */
    uint64_t biggest = 0;
    int64_t ts[RULER_MAX_TICKS];
    size_t n = 0;
    for (int64_t k = k0; n < RULER_MAX_TICKS; k++) {
        if (k > INT64_MAX / step || k < INT64_MIN / step)
            break;
        int64_t t = k * step, off;
        if (__builtin_sub_overflow(t, t0, &off) || off / npc >= width)
            break;
        ts[n++] = t;
        uint64_t a = t < 0 ? (uint64_t)0 - (uint64_t)t : (uint64_t)t;
        biggest = a > biggest ? a : biggest;
    }
    int ue = biggest >= 1000000000u ? 9 : biggest >= 1000000u ? 6 : biggest >= 1000u ? 3 : 0;
    if (biggest == 0)
        ue = step >= 1000000000 ? 9 : step >= 1000000 ? 6 : step >= 1000 ? 3 : 0;
    p->unit_exp = ue;
    p->decimals = step_decimals(step, ue);
    int widest = 0;
    for (size_t i = 0; i < n; i++) {
        ruler_tick *tk = &p->ticks[p->nticks++];
        tk->t = ts[i];
        tk->x = (int)((ts[i] - t0) / npc);
        ruler_label(tk->label, sizeof tk->label, ts[i], ue, p->decimals);
        int w = (int)strlen(tk->label);
        widest = w > widest ? w : widest;
    }
    return widest;
}

void ruler_plan_make(ruler_plan *p, int64_t t0, int64_t npc, int width)
{
    memset(p, 0, sizeof *p);
    npc = npc < 1 ? 1 : npc;
    if (width <= 0)
        return;
    /* Ticks at least two columns apart, then wide enough for the labels
     * plus the tick and two spaces. */
    int64_t step = ruler_nice_step(npc > INT64_MAX / 2 ? INT64_MAX : 2 * npc);
    for (;;) {
        int widest = place_ticks(p, t0, npc, width, step);
        int64_t cols = step / npc;
        if (cols >= widest + 3 || step == INT64_MAX)
            return;
        step = next_step(step);
    }
}
