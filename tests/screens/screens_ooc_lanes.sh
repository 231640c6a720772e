#!/bin/sh
# The lanes view out of core (src/ooc/ooc_lanefig.c, src/view/lanes_ooc.c): the loading child's
# sweep keeps each lane's figures, the viewer draws the table from them.
#
# 1. Generated profiles with threads (swept), async tasks and threads with call ids (nested in
#    memory by the child, whole ranks handed on), inferred lanes, a filter: every figure on the
#    out-of-core screen (Busy, Share, Idle, Calls, Busiest, First, Last, Awaited, by lane) equals
#    the in-memory screen's, read column by column under the header's titles.
# 2. The threads profile's figures computed here with awk over --events (a lane's busy time is
#    the union of its calls, every call lying inside its top-level call; idle the span less
#    busy; the busiest region the most exclusive time summed in the lane; awaited the await times
#    of its top-level calls, at most its busy time) and looked for on the out-of-core screen.
# 3. The equations: busy + idle = span for every thread lane; shares are busy over the span.
#    The shared profiles, when there, the same (a cross-check; skipped without them).
# 4. What the figures leave out is said, never drawn as 0: a rank flattened over the budget
#    shows n/a with the reason; the Awaited column is drawn, as in memory.  80x24, ASCII, 24 lines.
. "${0%/*}/../lib.sh"
scr="$tmp/s"

thr="$tmp/thr.h5"
"$top_build/svgen" stream-mix "$thr" --calls 6000 --ranks 2 --threads >/dev/null 2>&1 ||
    check "svgen stream-mix --threads" false
inf="$tmp/inf.h5"
"$top_build/svgen" stream-mix "$inf" --calls 4000 >/dev/null 2>&1 || check "svgen stream-mix" false
demo="$tmp/demo.h5"
"$top_build/svgen" demo "$demo" >/dev/null 2>&1 || check "svgen demo" false

# figures FILE: one line a table row, "label|busy|share|idle|calls|busiest|first|last|awaited",
# each read under its column's title in the header (numbers are right-aligned to their title's
# end, Busiest starts at its title); the Load column is not read.
figures() {
    awk '
    function trim(s) { gsub(/^[ >]+|[ ]+$/, "", s); return s }
    function endof(t,   i) { i = index(hdr, t); return i ? i + length(t) - 1 : 0 }
    function num(r, t, w,   e) { e = endof(t); return e ? trim(substr(r, e - w + 1, w)) : "?" }
    /^ Lane / && !hdr { hdr = $0; next }
    hdr && /^ *$/ { exit }
    hdr {
        lab = trim(substr($0, 1, endof("Busy") - 9))
        b = index(hdr, "Busiest")
        printf "%s|%s|%s|%s|%s|%s|%s|%s|%s\n", lab, num($0, "Busy", 9), num($0, "Share", 6),
            num($0, "Idle", 9), num($0, "Calls", 8), b ? trim(substr($0, b, 14)) : "?",
            num($0, "First", 9), num($0, "Last", 9), num($0, "Awaited", 9)
    }' "$1" | sort
}

# same NAME FILE [OPTIONS...]: the figures out of core equal the in-memory ones.
same() {
    same_name=$1 same_in=$2
    shift 2
    screen 250x60 "" "$same_in" --view lanes --ascii "$@"
    check "$same_name: in memory, exits 0 ($(head -c 200 "$tmp/err"))" [ "$rc" = 0 ]
    figures "$scr" >"$tmp/mem"
    screen 250x60 "" "$same_in" --view lanes --ascii --out-of-core "$@"
    check "$same_name: out of core, exits 0 ($(head -c 200 "$tmp/err"))" [ "$rc" = 0 ]
    check "$same_name: out of core the view opens" hasnt "not available"
    cp "$scr" "$tmp/ooc_screen"
    figures "$scr" >"$tmp/ooc"
    check "$same_name: rows read ($(wc -l <"$tmp/mem"))" [ "$(wc -l <"$tmp/mem")" -ge 3 ]
    check "$same_name: out of core = in memory: $(diff "$tmp/mem" "$tmp/ooc" | head -4 | tr '\n' ' ')" \
        cmp -s "$tmp/mem" "$tmp/ooc"
}

# --- 1. out of core = in memory
same "threads" "$thr"
same "tasks and threads, call ids" "$demo"
same "inferred lanes" "$inf"
same "threads, -x rec" "$thr" -x rec
same "tasks, -i handle_request" "$demo" -i handle_request
# The shared profiles (schema 1 to 3, legacy, MPI, threads and tasks, JSON): the same figures.
if need_shared "the shared profiles out of core"; then
    for f in "$shared_root"/data/*/*.h5 "$shared_root"/data/upstream/*.h5 \
        "$shared_root"/data/upstream/json/*; do
        [ -f "$f" ] || continue
        screen 250x200 "" "$f" --view lanes --ascii
        figures "$scr" >"$tmp/mem"
        screen 250x200 "" "$f" --view lanes --ascii --out-of-core
        figures "$scr" >"$tmp/ooc"
        check "$(basename "$f"): out of core = in memory ($(wc -l <"$tmp/mem") rows): $(diff "$tmp/mem" "$tmp/ooc" | head -3 | tr '\n' ' ')" \
            cmp -s "$tmp/mem" "$tmp/ooc"
    done
fi

# --- 2. the threads profile from its raw calls
for r in $("$sv" --csv "$thr" | awk -F, 'NR > 1 { print $1 }' | sort -u); do
    "$sv" --events "$r" --csv "$thr" | awk -F, -v r="$r" 'NR > 1 {
        printf "%s %s %.0f %.0f %.0f %s %.0f\n", $1, $10, $3 * 1e9, $4 * 1e9, $6 * 1e9, r,
            $7 == "" ? 0 : $7 * 1e9 }'
done | sort -k1,1n -k2,2 -k3,3n -k4,4nr >"$tmp/calls"
check "the raw calls: 6000 of them" [ "$(wc -l <"$tmp/calls")" -ge 6000 ]
awk '
function fmt(v,   u, x) {
    if (v < 1000) return sprintf("%d ns", v)
    if (v < 1e6) { u = "us"; x = v / 1e3 } else if (v < 1e9) { u = "ms"; x = v / 1e6 } else { u = "s"; x = v / 1e9 }
    if (x < 10) return sprintf("%.3f %s", x, u)
    if (x < 100) return sprintf("%.2f %s", x, u)
    return sprintf("%.1f %s", x, u)
}
{
    k = $1 "|" $2
    if (!(k in n)) { order[++nk] = k; first[k] = $3; end[k] = -1e30 }
    n[k]++
    if ($3 < first[k]) first[k] = $3
    if ($4 > last[k]) last[k] = $4
    if ($4 > $3 && $4 > end[k]) { busy[k] += $4 - ($3 > end[k] ? $3 : end[k]); end[k] = $4 }
    # a top-level call: not inside the last one (the calls in (start, -end) order)
    if (!(k in tope) || $3 >= tope[k] || $4 > tope[k]) { tope[k] = $4; if ($7 > 0) aw[k] += $7 }
    ex[k "|" $6] += $5
    if (!((k "|" $6) in seen)) { seen[k "|" $6] = 1; regs[k] = regs[k] " " $6 }
    if (t0 == "" || $3 < t0) t0 = $3
    if ($4 > t1) t1 = $4
}
END {
    span = t1 - t0
    for (i = 1; i <= nk; i++) {
        k = order[i]; split(k, w, "|")
        m = split(regs[k], rr, " "); best = ""; bx = 0
        for (j = 1; j <= m; j++) if (ex[k "|" rr[j]] > bx || (ex[k "|" rr[j]] == bx && rr[j] < best)) { bx = ex[k "|" rr[j]]; best = rr[j] }
        a = aw[k] < busy[k] ? aw[k] : busy[k]
        as = "-"
        if (a > 0) as = fmt(a)
        printf "%s|%s|%s|%.0f%%|%s|%d|%s|%s|%s|%s|%.0f\n", w[1], w[2], fmt(busy[k]), 100 * busy[k] / span,
            fmt(span - busy[k]), n[k], best, fmt(first[k] - t0), fmt(last[k] - t0), as, busy[k]
    }
}' "$tmp/calls" >"$tmp/want"
check "four thread lanes" [ "$(wc -l <"$tmp/want")" = 4 ]
screen 250x60 "" "$thr" --view lanes --ascii --out-of-core
figures "$scr" >"$tmp/ooc"
while IFS='|' read -r rank name busy share idle calls busiest first last awaited ns; do
    check "r$rank $name: busy $busy ($share), idle $idle, $calls calls, busiest $busiest, $first to $last, awaited $awaited" \
        grep -qxF "$name|$busy|$share|$idle|$calls|$busiest|$first|$last|$awaited" "$tmp/ooc"
done <"$tmp/want"

# --- 3. the equations, on the screen's own figures: busy + idle = span per lane (to the screens'
# rounding, 4 significant digits each) and the share is busy over the span.
span=$(sed -n 2p "$scr" | sed -n 's/.* over \([0-9.]* [a-z]*\).*/\1/p')
check "the header names the span ($span)" [ -n "$span" ]
awk -F'|' -v span="$span" '
function ns(t,   v, u) { split(t, v, " "); u = v[2]
    return v[1] * (u == "s" ? 1e9 : u == "ms" ? 1e6 : u == "us" ? 1e3 : 1) }
$1 ~ /^r[0-9]+:/ { next }
{ S = ns(span); b = ns($2); i = ns($4)
  if ((b + i - S) ^ 2 > (S * 0.002) ^ 2) { print "busy + idle != span: " $0; bad = 1 }
  if (((100 * b / S) - ($3 + 0)) ^ 2 > 0.51 ^ 2) { print "share != busy / span: " $0; bad = 1 } }
END { exit bad }' "$tmp/ooc" >"$tmp/eq"
check "busy + idle = span and share = busy / span on every lane row: $(head -2 "$tmp/eq")" [ ! -s "$tmp/eq" ]

# --- Enter: the lane in the timeline, its longest top-level call selected, as in memory (the
# window holding it read first).  On the threads profile the whole timeline is the in-memory one
# but for its header's "out of core"; on the demo (task lanes grouped under their thread, which
# the out-of-core timeline names otherwise) the selected call's details and the status line.
for f in "$thr" "$demo"; do
    keep=cat
    [ "$f" = "$demo" ] && keep="tail -n 4"
    screen 100x30 "<Enter>" "$f" --view lanes
    sed 2d "$scr" | $keep >"$tmp/enter_mem"
    screen 100x30 "<Enter>" "$f" --view lanes --out-of-core
    check "Enter ($(basename "$f")): the timeline opens" rowhas 1 "\[1 timeline\]"
    check "Enter ($(basename "$f")): out of core" rowhas 2 "out of core$"
    sed 2d "$scr" | $keep >"$tmp/enter_ooc"
    check "Enter ($(basename "$f")): the in-memory timeline, the call selected: $(diff "$tmp/enter_mem" "$tmp/enter_ooc" | head -3 | tr '\n' ' ')" \
        cmp -s "$tmp/enter_mem" "$tmp/enter_ooc"
done
check "Enter: a call is selected (its details)" hasx "^ io/flush  rank 0  thread ThreadPoolExecutor-0_0  start"
# A call whose span holds more calls than a window may (Task-1's main, the busiest lane's, first
# by Busy): the overview there, and why.
env -u TERM SCOPEVIEW_TEST_OOC_CAP=100 "$sv" --batch --size 100x30 --view lanes --out-of-core \
    --keys "j<Enter>" "$demo" >"$scr" 2>"$tmp/err"
check "Enter, too many calls: the overview" rowhas 2 "overview (out of core)"
check "Enter, too many calls: says why nothing is selected" \
    hasf "The lane's longest call spans more calls than a window holds"

# --- 4. what is left out, and why; the small screen
screen 80x24 "" "$demo" --view lanes --ascii --out-of-core
check "80x24: exits 0" [ "$rc" = 0 ]
check "80x24: 24 lines" [ "$(lines)" = 24 ]
check "80x24: no line wider than 80" [ "$(widest)" -le 80 ]
check "80x24: only ASCII" ascii_only
check "80x24: the Awaited column" has "Awaited"
check "80x24: no note of a missing Awaited column" hasnt "no Awaited column"
check "80x24: the Load column is drawn" rowhas 3 "Load"
screen 80x24 "" "$demo" --view lanes --out-of-core
check "80x24, UTF-8: exits 0" [ "$rc" = 0 ]
check "80x24, UTF-8: 24 lines" [ "$(lines)" = 24 ]

# A rank nested from call ids whose calls exceed the budget is flattened: no figures.
ids="$tmp/ids.h5"
"$top_build/svgen" stream-mix "$ids" --calls 400000 --ids >/dev/null 2>&1 || check "svgen stream-mix --ids" false
screen 80x24 "" "$ids" --view lanes --ascii --memory 4M
check "flattened: exits 0 ($(head -c 200 "$tmp/err"))" [ "$rc" = 0 ]
check "flattened: the lanes say n/a" has "  n/a"
check "flattened: and why" hasf "without figures: a rank's nesting comes from its call"
check "flattened: no figure drawn as 0" hasnt " 0 ns "

finish
