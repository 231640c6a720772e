#!/bin/sh
# Headless screens of the flame graph (view 8) and --view.  The expected widths and shares are
# computed here with awk from the raw calls (--events REGION --csv: start and end of every call),
# never taken from the view: on flame.h5 (tests/gen/FIXTURES.md) each region has one call path
# (main > {io, solve > rhs}), so a path's inclusive time is its region's summed durations, and its
# exclusive time that less its children's (main - io - solve, solve - rhs).  A frame of time w
# in a row of W cells for R in all must be within one cell of w W / R and say 100 w / R to the
# printed tenth.  The screens are read in --ascii, where a frame ends with '|'.
# Prints "N passed, N failed"; exits non-zero when anything failed.
. "${0%/*}/../lib.sh"
scr="$tmp/s"
f="$fx/flame.h5"
need_fixture "$f"

# total NAME [B0 B1]: the summed durations (ns) of NAME's calls over every rank, each clipped
# to [B0, B1) when a band is given.
total() {
    "$sv" --events "$1" --csv "$f" >"$tmp/ev" 2>/dev/null || return 1
    awk -F, -v b0="${2:-}" -v b1="${3:-}" 'NR > 1 {
        s = sprintf("%.0f", $3 * 1e9) + 0; e = sprintf("%.0f", $4 * 1e9) + 0
        if (b0 != "") { if (s < b0) s = b0; if (e > b1) e = b1 }
        if (e > s) t += e - s
    } END { printf("%.0f\n", t) }' "$tmp/ev"
}

# frames ROW: the frames of screen row ROW, one "x0 x1 label" line each (cells from 0).
frames() {
    row "$1" | awk '{
        n = length($0); start = -1; lab = ""
        for (i = 1; i <= n; i++) {
            c = substr($0, i, 1)
            if (c == "|") {
                x0 = start < 0 ? i - 1 : start
                print x0, i, lab
                start = -1; lab = ""
            } else if (c != " " && start < 0) {
                start = i - 1; lab = c
            } else if (start >= 0) {
                lab = lab c
            }
        }
    }' | sed 's/ *$//'
}

# frame_ok ROW NAME TIME ALL [X0]: row ROW has a frame labelled NAME whose width is within one
# cell of TIME * W / ALL (and, given X0 in ns, whose left edge within one cell of X0 * W / ALL;
# W is 80 unless set),
# and whose label says the share 100 * TIME / ALL to the tenth (its share of the scope, SCOPE
# when given as the 6th argument).
frame_ok() {
    frames "$1" | awk -v name="$2" -v w="$3" -v all="$4" -v x="${5:-}" -v scope="${6:-$4}" -v W="${W:-80}" '
        function abs(v) { return v < 0 ? -v : v }
        $3 == name {
            found = 1
            exact = w * W / all
            if (abs(($2 - $1) - exact) > 1) { print "width " $2 - $1 " for " exact; bad = 1 }
            if (x != "" && abs($1 - x * W / all) > 1) { print "x0 " $1 " for " x * W / all; bad = 1 }
            share = sprintf("%.1f%%", 100 * w / scope)
            if ($4 != share) { print "share " $4 " for " share; bad = 1 }
        }
        END { if (!found) print "no frame " name; exit !found || bad }'
}

for r in main io solve rhs; do
    eval "t_$r=\$(total $r)"
done
all=$t_main
check "the raw calls add up (main $t_main ns)" [ "$t_main" = 2000000 ]

# --- top-down, by first call: all / main / io solve / rhs
screen 80x24 "" "$f" --view flame --ascii
check "--view flame opens view 8" rowhas 1 "\[8 flame\]"
check "80x24: 24 lines, at most 80 columns" [ "$(lines)" = 24 ] && [ "$(widest)" -le 80 ]
check "ASCII only" ascii_only
check "the header says the scope, the mode and the order" rowhas 2 "scope: all ranks  top-down  by first call  colour: region"
check "the root row spans the width" frame_ok 3 all "$all" "$all" 0
check "main: 100% of the scope" frame_ok 4 main "$t_main" "$all" 0
check "io first (same first start as solve, its name first)" frame_ok 5 io "$t_io" "$all" 0
check "solve after io" frame_ok 5 solve "$t_solve" "$all" "$t_io"
check "rhs under solve, at its left edge" frame_ok 6 rhs "$t_rhs" "$all" "$t_io"
check "main's own time is left blank (row 5 ends before 80)" \
    [ "$(frames 5 | awk 'END { print $2 }')" -lt 80 ]
check "the details line: the root's figures" rowhas 23 "incl 2.000 ms  excl 0 ns  calls 10  100.0% of parent  100.0% of scope"

# --- o: heaviest first puts solve at the left edge
screen 80x24 "o" "$f" --view flame --ascii
check "o: heaviest first" rowhas 2 "heaviest first"
check "o: solve at the left" frame_ok 5 solve "$t_solve" "$all" 0
check "o: io after solve" frame_ok 5 io "$t_io" "$all" "$t_solve"

# --- the cursor and the details: down to main, to io, right to solve
screen 80x24 "jjl" "$f" --view flame --ascii
excl_solve=$((t_solve - t_rhs))
check "details: the path" rowhas 22 " main > solve$"
ms_incl=$(awk -v x="$t_solve" 'BEGIN { printf("%.3f ms", x / 1e6) }')
us_excl=$(awk -v x="$excl_solve" 'BEGIN { printf("%.1f us", x / 1e3) }')
share=$(awk -v w="$t_solve" -v a="$all" 'BEGIN { printf("%.1f%%", 100 * w / a) }')
check "details: solve's incl $ms_incl, excl $us_excl, 3 calls, $share of parent and scope" \
    rowhas 23 "incl $ms_incl  excl $us_excl  calls 3  $share of parent  $share of scope"

# --- Enter zooms into solve: it fills the row, rhs is rhs / solve of it; Esc back out
screen 80x24 "jjl<Enter>" "$f" --view flame --ascii
check "Enter: solve fills the top row" frame_ok 3 solve "$t_solve" "$t_solve" 0 "$all"
check "Enter: rhs as wide as its share of solve" frame_ok 4 rhs "$t_rhs" "$t_solve" 0 "$all"
screen 80x24 "jjl<Enter><Esc>" "$f" --view flame --ascii
check "Esc: back to the whole scope" frame_ok 3 all "$all" "$all" 0
check "Esc: the cursor stays on solve" rowhas 22 " main > solve$"
screen 80x24 "jjl<Enter><Esc><Esc>" "$f" --view flame --ascii
check "Esc at the top is the app's (no crash, still view 8)" rowhas 1 "\[8 flame\]"

# --- i: inverted, widths by exclusive time
screen 80x24 "i" "$f" --view flame --ascii
ex_main=$((t_main - t_io - t_solve))
check "inverted: the header says so" rowhas 2 "inverted"
check "inverted: the root is the exclusive total" frame_ok 3 all "$all" "$all" 0
check "inverted: solve by its exclusive time ($excl_solve)" frame_ok 4 solve "$excl_solve" "$all"
check "inverted: rhs by its exclusive time" frame_ok 4 rhs "$t_rhs" "$all"
check "inverted: io by its exclusive time" frame_ok 4 io "$t_io" "$all"
check "inverted: the top row adds up to the scope" \
    [ "$(frames 4 | awk '{ w += $2 - $1 } END { print w }')" -ge 78 ]
x_rhs=$(frames 4 | awk '$3 == "rhs" { print $1 }')
check "inverted: under rhs its caller solve" \
    sh -c "printf '%s\n' \"\$(sed -n 5p '$scr')\" | cut -c$((x_rhs + 1))- | grep -q '^solve'"
# io, main, rhs, solve all first start at 0: by name.  main's own time is 4 cells, too narrow
# for its name: an ellipsis.
second=$(frames 4 | sed -n 2p)
check "inverted: main's frame is ~ and within a cell of its time ($second)" \
    awk -v l="$second" -v w="$ex_main" -v a="$all" 'BEGIN { split(l, v, " "); d = v[2] - v[1] - w * 80 / a; exit !(v[3] == "~" && d <= 1 && d >= -1) }'

# --- / highlights matches and says their share of the scope: rhs, and rhs|solve (once each)
screen 80x24 "/rhs<Enter>" "$f" --view flame --ascii
share=$(awk -v w="$t_rhs" -v a="$all" 'BEGIN { printf("%.1f%%", 100 * w / a) }')
check "/rhs: matches: $share of 2.000 ms" rowhas 2 "matches: $share of 2.000 ms"
screen 80x24 "/solve|rhs<Enter>" "$f" --view flame --ascii
share=$(awk -v w="$t_solve" -v a="$all" 'BEGIN { printf("%.1f%%", 100 * w / a) }')
check "/solve|rhs: rhs inside solve counts once ($share)" rowhas 2 "matches: $share of 2.000 ms"
screen 80x24 "/rhs<Enter>n" "$f" --view flame --ascii
check "n: the cursor on the match" rowhas 22 " main > solve > rhs$"

# --- f: only the frames on a path to a match, in place
screen 80x24 "/rhs<Enter>f" "$f" --view flame --ascii
check "f: the title says filter" rowhas 1 "filter /rhs/"
check "f: io, off the path to rhs, is hidden" [ -z "$(frames 5 | awk '$3 == "io"')" ]
check "f: solve stays where it was" frame_ok 5 solve "$t_solve" "$all" "$t_io"
check "f: rhs stays where it was" frame_ok 6 rhs "$t_rhs" "$all" "$t_io"
screen 80x24 "/rhs<Enter>ff" "$f" --view flame --ascii
check "f again: io is back" frame_ok 5 io "$t_io" "$all" 0

# --- c: heat colours (the header says so; the frames stay)
screen 80x24 "c" "$f" --view flame --ascii
check "c: self-time heat" rowhas 2 "colour: self-time heat"
check "c: the frames are unchanged" frame_ok 5 solve "$t_solve" "$all" "$t_io"

# --- t: the frame's slowest call in the timeline (rank 0's solve [0, 600 us))
screen 80x24 "jjlt" "$f" --view flame --ascii
check "t: the timeline" rowhas 1 "\[1 timeline\]"
check "t: solve's slowest call selected" has "solve  rank 0  start 0 ns  dur 600.0 us"
check "t: says which of how many" has "slowest of the frame's 3 calls: 600.0 us (rank 0)"

# --- F in the timeline: the selected call's span over every rank
screen 80x24 "/solve<Enter>n" "$f" --ascii
sel=$(grep -o "start [0-9.]* us  dur [0-9.]* us" "$scr" | awk '{ print $2 * 1000, ($2 + $5) * 1000 }')
set -- $sel
b0=$1 b1=$2
check "a solve call is selected ($b0 .. $b1 ns)" [ -n "$b1" ]
bm=$(total main "$b0" "$b1")
bs=$(total solve "$b0" "$b1")
br=$(total rhs "$b0" "$b1")
screen 80x24 "/solve<Enter>nF" "$f" --ascii
check "F: the flame graph" rowhas 1 "\[8 flame\]"
check "F: the header names the band" rowhas 2 "scope: all ranks, "
check "F: the band's root is main's time inside it ($bm)" frame_ok 3 all "$bm" "$bm" 0
check "F: solve inside the band ($bs)" frame_ok 5 solve "$bs" "$bm"
check "F: rhs inside the band ($br)" frame_ok 6 rhs "$br" "$bm"
screen 80x24 "/solve<Enter>nFr<Enter>" "$f" --ascii
check "r, Enter: all ranks again, the band ended" frame_ok 3 all "$all" "$all" 0

# --- r: one rank
screen 80x24 "r<Down><Enter>" "$f" --view flame --ascii
check "r: rank 0" rowhas 2 "scope: rank 0"
check "r: rank 0's main is 1 ms" rowhas 23 "incl 1.000 ms"

# --- r: one task, one inferred lane (FIXTURES.md).  tasks_unfinished.h5: serve's calls 400 ns
# (task Task-1), 100 + 150 ns (Task-2).  legacy_small.h5: c[0] overlaps b[0] partly and opens
# inferred lane 2 with c[1] (20 + 300 = 320 ns, exclusive too); lane 1 holds a (1000 ns, a[1]
# nested in a[0]) and b (b[0] 40 + b[1] 100 under a: 140 ns, 14.0% of the lane)
screen 80x24 "r" "$fx/tasks_unfinished.h5" --view flame --ascii
check "r: the tasks are offered" hasf "rank 0, task Task-2"
check "r: the picker's heading names tasks and inferred lanes too" hasx "Scope: .*a task or an inferred lane"
screen 80x24 "r<End><Enter>" "$fx/tasks_unfinished.h5" --view flame --ascii
check "task Task-2: the header names it" rowhas 2 "scope: rank 0, task Task-2"
check "task Task-2: serve 250 ns, its 2 calls" hasx "incl 250 ns .*calls 2"
screen 80x24 "r<End><Up><Enter>" "$fx/tasks_unfinished.h5" --view flame --ascii
check "task Task-1: serve 400 ns, 1 call" hasx "incl 400 ns .*calls 1"
screen 80x24 "r" "$fx/legacy_small.h5" --view flame --ascii
check "r: the inferred lanes are offered" hasf "rank 0, lane 2 (inferred)"
screen 80x24 "r<End><Enter>" "$fx/legacy_small.h5" --view flame --ascii
check "lane 2: the header names it" rowhas 2 "scope: rank 0, lane 2 (inferred)"
check "lane 2: c alone, 320 ns" hasx "incl 320 ns .*calls 2"
check "lane 2: no frame of a or b" sh -c "! sed -n '3,20p' '$scr' | grep -q '\\(^\\|[|]\\)[ab] '"
screen 80x24 "r<End><Up><Enter>j" "$fx/legacy_small.h5" --view flame --ascii
check "lane 1: a 1000 ns, excl 760 ns" hasx "incl 1.000 us  excl 760 ns  calls 1"
check "lane 1: b 14.0% of the lane" hasf "b 14.0%"
screen 80x24 "r<End><Enter>" "$fx/legacy_small.h5" --view flame --ascii --out-of-core
check "out of core: no lane scope offered, the scope is all ranks" rowhas 2 "scope: all ranks"

# --- a click selects the frame under it (the headless click is the view's middle: at 80x10
# row 5, column 40, inside rhs [24, 48) on row 6 of the screen)
screen 80x10 "<Click>" "$f" --view flame --ascii
check "a click selects the frame under the pointer" rowhas 8 " main > solve > rhs$"

# --- Unicode, mono, the smallest screen
screen 80x24 "" "$f" --view flame
check "Unicode: frames end with a box line" rowhas 5 "io 30.0% *│solve"
screen 80x24 "" "$f" --view flame --mono
check "mono: the same frames" rowhas 5 "io 30.0% *│solve"
screen 40x10 "jjl" "$f" --view flame --ascii
check "40x10: draws, 10 lines, 40 columns" [ "$rc" = 0 ] && [ "$(lines)" = 10 ] && [ "$(widest)" -le 40 ]
check "40x10: solve's frame" hasx "solve"
screen 80x24 "" "$fx/legacy_empty_region.h5" --view flame --ascii
check "a profile without nested calls draws" [ "$rc" = 0 ]

# --- out of core: the same frames from the loading child's call paths (top-down, inverted,
# heaviest first, a rank); a time band's graph needs single calls and says so
for k in "" i o r "i<Right><Right>"; do
    screen 80x24 "$k" "$f" --view flame --ascii
    cp "$scr" "$tmp/mem"
    screen 80x24 "$k" "$f" --view flame --ascii --out-of-core
    check "out of core '$k': the in-memory frames" cmp -s "$scr" "$tmp/mem"
done

# --- the compare view's differential flame graph marks exactly the paths --diff flags: every
# frame is visited with n over the search /./ and its details read (path, flag), against the
# path rows of --diff --csv whose flag is not "none"
svgen="$top_build/svgen"
"$svgen" demo --seed 1 "$tmp/a.h5" >/dev/null && "$svgen" demo --seed 2 --slow solve=40 "$tmp/b.h5" >/dev/null ||
    exit 99
"$sv" --diff "$tmp/a.h5" "$tmp/b.h5" --csv >"$tmp/d.csv"
awk -F, '$1 == "path" && $NF != "none" { print $3 "\t" $NF }' "$tmp/d.csv" | sort >"$tmp/flagged"
check "--diff flags some paths ($(wc -l <"$tmp/flagged"))" [ -s "$tmp/flagged" ]
screen 200x50 "6mmm" "$tmp/b.h5" --diff "$tmp/a.h5" --ascii
check "compare: the flame screen" rowhas 2 "\[flame\]"
nslow=$(grep -c 'slower$' "$tmp/flagged")
check "compare: the header counts the flagged paths" rowhas 3 "flagged ($nslow 0)"
check "compare: as many ^ marks as slower paths ($nslow)" \
    [ "$(sed -n '4,47p' "$scr" | grep -o '[|]^[a-z]\|^^[a-z]' | wc -l | tr -d ' ')" = "$nslow" ]
first= keys="6mmm/.<Enter>"
: >"$tmp/seen"
for k in $(seq 1 80); do
    keys="${keys}n"
    screen 200x50 "$keys" "$tmp/b.h5" --diff "$tmp/a.h5" --ascii
    p=$(sed -n 48p "$scr" | sed 's/^ //; s/ *$//')
    [ "$p" = "$first" ] && break
    [ -n "$first" ] || first=$p
    flag=none
    sed -n 49p "$scr" | grep -q 'slower (significant)' && flag=slower
    sed -n 49p "$scr" | grep -q 'faster (significant)' && flag=faster
    printf '%s\t%s\n' "$p" "$flag" >>"$tmp/seen"
done
grep -v 'none$' "$tmp/seen" | sort >"$tmp/marked"
check "compare: n visits every frame ($(wc -l <"$tmp/seen") paths)" [ "$(wc -l <"$tmp/seen")" -gt 10 ]
check "compare: the marked paths are exactly the flagged ones" cmp -s "$tmp/flagged" "$tmp/marked"
[ "$failed" = 0 ] || diff "$tmp/flagged" "$tmp/marked"
# paths of one run only: flame.h5's four are the base's, small.h5's are new
screen 80x24 "6mmm" "$fx/small.h5" --diff "$f" --ascii
check "compare: base-only paths counted" rowhas 3 "base only: 4 paths"
check "compare: new paths labelled" has "+outer new"

# --- the shared solver profiles (one call path per region: main > timestep > {assemble, solve
# > {rhs, precond}, io/checkpoint}) against the independently computed statistics in expected/:
# widths by total_duration top-down, by total_exclusive_duration inverted, ranks summed
if need_shared "the shared solver profiles"; then
    for name in solver solver_mpi4; do
        h5="$shared_root/data/real/$name.h5" js="$shared_root/data/expected/$name.json"
        awk -F': ' '/"name":/ { n = $2; gsub(/[",]/, "", n) }
            /"total_duration":/ { t[n] += $2 + 0 }
            /"total_exclusive_duration":/ { e[n] += $2 + 0; ex += $2 + 0 }
            END { for (k in t) printf("%s %.0f %.0f\n", k, t[k] * 1e9, e[k] * 1e9); printf("ALLEX %.0f 0\n", ex * 1e9) }' \
            "$js" >"$tmp/exp"
        v() { awk -v k="$1" -v c="$2" '$1 == k { print $c }' "$tmp/exp"; }
        W=200
        screen 200x30 "" "$h5" --view flame --ascii
        check "$name: main fills the row" frame_ok 4 main "$(v main 2)" "$(v main 2)" 0
        check "$name: timestep" frame_ok 5 timestep "$(v timestep 2)" "$(v main 2)" 0
        check "$name: assemble" frame_ok 6 assemble "$(v assemble 2)" "$(v main 2)" 0
        check "$name: solve" frame_ok 6 solve "$(v solve 2)" "$(v main 2)" "$(v assemble 2)"
        check "$name: rhs" frame_ok 7 rhs "$(v rhs 2)" "$(v main 2)"
        check "$name: precond" frame_ok 7 precond "$(v precond 2)" "$(v main 2)"
        screen 200x30 "i" "$h5" --view flame --ascii
        for r in assemble rhs precond; do
            check "$name inverted: $r by its exclusive time" frame_ok 4 "$r" "$(v $r 3)" "$(v ALLEX 2)"
        done
        W=80
    done
fi

# --- --view
for v in timeline tree regions calls info lanes flame; do
    screen 80x24 "" "$f" --view "$v"
    check "--view $v opens $v" rowhas 1 "\[[0-9] $v\]"
done
run --view nosuch "$f"
check "--view nosuch: exit 2" [ "$rc" = 2 ]
check "--view nosuch: says so" grep -q "view name" "$tmp/err"
run --view compare "$f"
check "--view compare without --diff: exit 2" [ "$rc" = 2 ]
run --view tree --json "$f"
check "--view with --json: exit 2" [ "$rc" = 2 ]

finish
