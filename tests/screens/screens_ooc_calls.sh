#!/bin/sh
# The calls view and the slowest call out of core (src/ooc/ooc_slowest.c, calls_ooc.c): the
# loading child's sweep keeps each region's slowest calls, the viewer lists them and jumps to
# them without holding a call.
#
# 1. A generated profile over --memory: the list's title (how many of how many calls), its
#    rows (duration, exclusive time, start, rank, position) in order, its last row, and the
#    statistics line are looked for on the 80x24 screens, all computed here with awk over the
#    raw calls of the same file in memory (--events: nested by containment, the exclusive
#    time a call's duration less its children's); ASCII and mono too.
# 2. S out of core selects the call with the Max duration (the awk maximum, the --csv Max) in
#    the timeline; Enter on a row shows that call there.
# 3. k falls when the regions are many (100 regions within 2 MiB: 40 a region).
# 4. A rank the sweep does not nest (call ids): no list, and why; S says so.
. "${0%/*}/../lib.sh"

p="$tmp/p.h5"
"$top_build/svgen" bench-schema3 "$p" --calls 200000 >/dev/null 2>&1 || check "svgen bench-schema3" false
mem="--memory 2M"

# --- 1. the list, from the raw calls
# every call: rank, start, end (ns), region, position; then nested by containment
for r in main step assemble solve precond; do
    "$sv" --events "$r" --csv "$p" | awk -F, -v r="$r" 'NR > 1 {
        printf "%s %.0f %.0f %s %s\n", $1, $3 * 1e9, $4 * 1e9, r, $2 }'
done | sort -k1,1n -k2,2n -k3,3nr >"$tmp/calls"
check "the raw calls: 200 000 of them" [ "$(wc -l <"$tmp/calls")" -ge 200000 ]
zero=$(sort -k2,2n "$tmp/calls" | head -1 | cut -d' ' -f2)
# One line a call: region, duration, exclusive, start from the profile's zero, position
awk -v z="$zero" '
function pop() {
    printf "%s %d %d %d %s\n", sp_r[sp], sp_e[sp] - sp_s[sp], sp_e[sp] - sp_s[sp] - kids[sp], sp_s[sp] - z, sp_p[sp]
    sp--
}
{
    if ($1 != rank) { while (sp > 0) pop(); rank = $1 }
    s = $2; e = $3
    while (sp > 0 && !(sp_s[sp] <= s && e <= sp_e[sp])) pop()
    if (sp) kids[sp] += e - s
    sp++; sp_s[sp] = s; sp_e[sp] = e; sp_r[sp] = $4; sp_p[sp] = $5; kids[sp] = 0
}
END { while (sp > 0) pop() }' "$tmp/calls" >"$tmp/excl"
fmt='
function fmt(v,   u, x) {
    if (v < 1000) return sprintf("%d ns", v)
    if (v < 1e6) { u = "us"; x = v / 1e3 } else if (v < 1e9) { u = "ms"; x = v / 1e6 } else { u = "s"; x = v / 1e9 }
    if (x < 10) return sprintf("%.3f %s", x, u)
    if (x < 100) return sprintf("%.2f %s", x, u)
    return sprintf("%.1f %s", x, u)
}'
# the region's calls slowest first (longer, then the earlier start, then the lower position),
# each as the screen's row: "duration|excl|start|position"
slowest() { # REGION
    awk -v r="$1" '$1 == r' "$tmp/excl" | sort -k2,2nr -k4,4n -k5,5n |
        awk "$fmt"'{ printf "%s|%s|%s|%s\n", fmt($2), fmt($3), fmt($4), $5 }'
}
slowest solve >"$tmp/solve"
n=$(wc -l <"$tmp/solve" | tr -d ' ')
check "solve: 3999 calls and more" [ "$n" -gt 3999 ]

screen 80x24 "3/solve<Enter>d" "$p" $mem
check "over --memory the calls view opens (exit 0: $(head -c 200 "$tmp/err"))" [ "$rc" = 0 ]
check "not 'not available'" hasnt "not available"
check "the title: the 256 slowest of $n calls" has "Calls of solve, all ranks (1): the 256 slowest of $n calls, slowest first"
k=0
head -14 "$tmp/solve" >"$tmp/top"
while IFS='|' read -r d x st pos; do
    k=$((k + 1))
    check "row $k: $d, excl $x, start $st, call $pos" hasx "^. +$d +$x +$st +0 +$pos\$"
    # in order: row k of the list is screen row 4 + k
    check "row $k in its place" rowhas $((4 + k)) " $pos\$"
done <"$tmp/top"
total=$(awk -v r=solve '$1 == r { t += $2 } END { printf "%.0f", t }' "$tmp/excl")
mean=$(awk "$fmt"' { print fmt($1 / $2) }' <<EOF
$total $n
EOF
)
lo=$(awk -v r=solve '$1 == r && (m == "" || $2 < m) { m = $2 } END { print m }' "$tmp/excl" | awk "$fmt"'{ print fmt($1) }')
hi=$(head -1 "$tmp/solve" | cut -d'|' -f1)
tot=$(echo "$total" | awk "$fmt"'{ print fmt($1) }')
check "the region's own statistics: total $tot, mean $mean, min $lo, max $hi" \
    has "all calls: total $tot  mean $mean  min $lo  max $hi"
check "the cursor call: its position of $n" has "call $(head -1 "$tmp/solve" | cut -d'|' -f4) on rank 0, of $n recorded"
IFS='|' read -r d x st pos <<EOF
$(sed -n 256p "$tmp/solve")
EOF
screen 80x24 "3/solve<Enter>d<End>" "$p" $mem
check "the last row: the 256th slowest, $d, call $pos" hasx "^. +$d +$x +$st +0 +$pos\$"
screen 80x24 "3/solve<Enter>d" "$p" $mem --ascii --mono
check "ASCII and mono: the same title" has "the 256 slowest of $n calls, slowest first"
check "ASCII: the sort mark" has "vduration"
check "ASCII only" ascii_only
# sorted by start: the 256 slowest, earliest first
first=$(head -256 "$tmp/solve" | sort -t'|' -k4,4n | head -1)
screen 80x24 "3/solve<Enter>d>><Home>" "$p" $mem
check "by start: the title says so" has "the 256 slowest of $n calls, by start\$"
check "by start: the earliest of the 256 first, call ${first##*|}" rowhas 5 " ${first##*|}\$"

# --view calls, S: the region with the most exclusive time (awk), its slowest call
hot=$(awk '{ x[$1] += $3 } END { for (r in x) print x[r], r }' "$tmp/excl" | sort -k1,1nr | head -1 | cut -d' ' -f2)
IFS='|' read -r d x st pos <<EOF
$(slowest "$hot" | head -1)
EOF
screen 80x24 "S" "$p" $mem --view calls
check "--view calls, S: $hot, call $pos, $d" has "Most exclusive time: $hot; slowest call: rank 0, call $pos, $d"
check "--view calls, S: the cursor on it" hasx "^▶ +$d +$x +$st +0 +$pos\$"

# --- 2. S and Enter: in the timeline
IFS='|' read -r d x st pos <<EOF
$(head -1 "$tmp/solve")
EOF
max=$("$sv" --csv "$p" | awk -F, '$1 == "solve" { printf "%.0f\n", $8 * 1e9 }' | awk "$fmt"'{ print fmt($1) }')
check "the --csv Max of solve is the awk maximum ($max = $d)" [ "$max" = "$d" ]
screen 80x24 "3/solve<Enter>S" "$p" $mem
check "S: the slowest call of solve, call $pos, $d" has "Slowest call of solve over every rank: rank 0, call $pos, $d"
check "S: selected in the timeline, dur $d" has "solve  rank 0  start $st  dur $d  excl $x"
check "S: from a window of calls" has "out of core"
IFS='|' read -r d x st pos <<EOF
$(sed -n 2p "$tmp/solve")
EOF
screen 80x24 "3/solve<Enter>d<Down><Enter>" "$p" $mem
check "Enter on row 2: that call in the timeline ($d at $st)" has "solve  rank 0  start $st  dur $d  excl $x"
# main spans the profile: the timeline shows its start's part a window may hold
screen 80x24 "3/main<Enter>S" "$p" $mem
d=$(slowest main | head -1 | cut -d'|' -f1)
check "S on main: selected ($d)" has "main  rank 0  start 0 ns  dur $d"

# two ranks with threads (stacks by thread): the ranks' lists merged, against --events of the
# same file in memory (its exclusive column: the in-memory nesting)
t="$tmp/mixt.h5"
"$top_build/svgen" stream-mix "$t" --calls 20000 --ranks 2 --threads >/dev/null 2>&1 || check "svgen stream-mix --threads" false
# the profile's zero: the earliest start of any call
tz=$("$sv" --csv "$t" | awk -F, 'NR > 1 && $3 > 0 { print $1 }' | sort -u | while read -r r; do
    "$sv" --events "$r" --csv "$t" | awk -F, 'NR > 1 { printf "%.0f\n", $3 * 1e9 }'
done | sort -n | head -1)
"$sv" --events rec --csv "$t" | awk -F, -v z="$tz" 'NR > 1 {
    s = sprintf("%.0f", $3 * 1e9); e = sprintf("%.0f", $4 * 1e9)
    printf "%d %d %d %d %d %d\n", e - s, s, $2, $1, sprintf("%.0f", $6 * 1e9), s - z }' |
    sort -k1,1nr -k2,2n -k3,3n -k4,4n |
    awk "$fmt"'{ printf "%s|%s|%s|%s|%s\n", fmt($1), fmt($5), fmt($6), $4, $3 }' >"$tmp/rec"
nrec=$(wc -l <"$tmp/rec" | tr -d ' ')
screen 80x24 "3/^rec\$<Enter>d" "$t" --out-of-core
check "threads, 2 ranks: the 256 slowest of $nrec calls" \
    has "Calls of rec, all ranks (2): the 256 slowest of $nrec calls"
k=0
head -12 "$tmp/rec" >"$tmp/top"
while IFS='|' read -r d x st rk pos; do
    k=$((k + 1))
    check "threads row $k: $d, excl $x, start $st, rank $rk, call $pos" \
        rowhas $((4 + k)) "^. *$d *$x *$st *$rk *$pos\$"
done <"$tmp/top"
awk -F'|' '$4 == 1' "$tmp/rec" | head -1 >"$tmp/r1"
IFS='|' read -r d x st rk pos <"$tmp/r1"
row1=$(grep -n "|1|" "$tmp/rec" | head -1 | cut -d: -f1)
keys="3/^rec\$<Enter>d"
i=1
while [ "$i" -lt "$row1" ]; do keys="$keys<Down>"; i=$((i + 1)); done
screen 80x24 "${keys}r" "$t" --out-of-core
check "r: rank 1 only, its slowest first ($d, call $pos)" rowhas 5 "^. *$d *$x *$st *1 *$pos\$"
check "r: the title says rank 1" has "Calls of rec, rank 1 only: the 256 slowest of"

# --- 3. many regions: fewer a region
w="$tmp/wide.h5"
"$top_build/svgen" many-regions "$w" 100 50 >/dev/null 2>&1 || check "svgen many-regions" false
screen 80x24 "d" "$w" $mem --out-of-core
r1=$("$sv" --csv "$w" | awk -F, 'NR == 2 { print $1 }')
screen 80x24 "3/^$r1\$<Enter>d" "$w" $mem --out-of-core
check "100 regions within 2 MiB: 40 slowest a region" has "the 40 slowest of 50 calls"

# --- 4. no list: said
dp="$tmp/deep.h5"
"$top_build/svgen" deep "$dp" 50 >/dev/null 2>&1 || check "svgen deep" false
rd=$("$sv" --csv "$dp" | awk -F, 'NR == 2 { print $1 }')
screen 80x24 "3/^$rd\$<Enter>d" "$dp" --out-of-core
check "call ids: no list, and why" has "no list for rank 0 out of core: a rank's nesting comes from"
check "call ids: no row of calls" hasnt "duration"
screen 80x24 "3/^$rd\$<Enter>S" "$dp" --out-of-core
check "call ids: S says why" has "is not known out of core"

finish
