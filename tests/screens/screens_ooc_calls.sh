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
# 4. Ranks the sweep does not nest (call ids), done in the child's memory: their lists from
#    that nesting, against awk over the ids (exclusive times by hand) and the calls view in
#    memory; S on them.
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
# the region's calls slowest first (longer, then the lower position, which in a row in start
# order is also the earlier start),
# each as the screen's row: "duration|excl|start|position"
slowest() { # REGION
    awk -v r="$1" '$1 == r' "$tmp/excl" | sort -k2,2nr -k5,5n |
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
    sort -k1,1nr -k4,4n -k3,3n |
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

# --- 4. ranks nested from call ids: lists from each rank's nesting, done in the child's memory
# Exclusive time by hand from the ids (a call's duration less the union of its direct
# children, each clipped to it).  ids_calls FILE REGION...: one line a call, "region rank
# duration exclusive start position", start in ns from the earliest start.
ids_calls() {
    f=$1
    shift
    for r in "$@"; do
        "$sv" --events "$r" --csv "$f" | awk -F, -v r="$r" 'NR > 1 {
            printf "%s %s %.0f %.0f %s %s %s\n", r, $1, $3 * 1e9, $4 * 1e9, $2, $13, $14 }'
    done >"$tmp/idraw"
    # the children, clipped to their parent: "rank:parent start end", by parent then start
    awk 'NR == FNR { s[$2 ":" $6] = $3; e[$2 ":" $6] = $4; next }
        $7 >= 0 && ($2 ":" $7) in s { k = $2 ":" $7; a = $3 > s[k] ? $3 : s[k]; b = $4 < e[k] ? $4 : e[k]
            if (b > a) print k, a, b }' "$tmp/idraw" "$tmp/idraw" | sort -k1,1 -k2,2n >"$tmp/idkids"
    awk '{ if ($1 != k) { if (k != "") print k, cov; k = $1; cov = 0; end = -1 }
        a = $2 > end ? $2 : end; if ($3 > a) { cov += $3 - a; end = $3 } }
        END { if (k != "") print k, cov }' "$tmp/idkids" >"$tmp/idcov"
    z=$(sort -k3,3n "$tmp/idraw" | head -1 | cut -d' ' -f3)
    awk -v z="$z" 'NR == FNR { c[$1] = $2; next }
        { k = $2 ":" $6; print $1, $2, $4 - $3, $4 - $3 - c[k], $3 - z, $5 }' "$tmp/idcov" "$tmp/idraw"
}
# a region's calls slowest first (longer, then the lower rank, then the lower position) as rows
ids_rows() { # REGION < ids_calls
    awk -v r="$1" '$1 == r' | sort -k3,3nr -k2,2n -k6,6n |
        awk "$fmt"'{ printf "%s|%s|%s|%s|%s\n", fmt($3), fmt($4), fmt($5), $2, $6 }'
}
# the calls view's rows out of core: "duration|excl|start|rank|position"
ooc_rows() {
    awk '/^[^ ]* +[0-9.]+ [nmu]?s +[0-9.]+ [nmu]?s +[0-9.]+ [nmu]?s +[0-9]+ +[0-9]+$/ {
        printf "%s %s|%s %s|%s %s|%s|%s\n", $(NF - 7), $(NF - 6), $(NF - 5), $(NF - 4), $(NF - 3), $(NF - 2), $(NF - 1), $NF }' "$scr"
}
# in memory: "duration|excl|start|rank" (then thread)
mem_rows() {
    awk '/^[^ ]* +[0-9.]+ [nmu]?s +[0-9.]+ [nmu]?s .* [0-9]+ +[A-Za-z]+$/ {
        sub(/^[^ ]*/, ""); printf "%s %s|%s %s|%s %s|%s\n", $1, $2, $3, $4, $(NF - 3), $(NF - 2), $(NF - 1) }' "$scr"
}
b="$tmp/ids.h5"
"$top_build/svgen" stream-mix "$b" --calls 200000 --ranks 4 --threads --ids >/dev/null 2>&1 ||
    check "svgen stream-mix --ids" false
ids_calls "$b" $("$sv" --csv "$b" | awk -F, 'NR > 1 && $3 > 0 { print $1 }' | sort -u) >"$tmp/idexcl"
ids_rows rec <"$tmp/idexcl" >"$tmp/idrec"
nid=$(wc -l <"$tmp/idrec" | tr -d ' ')
check "call ids: the raw calls of rec, 40 000 and more" [ "$nid" -gt 40000 ]
screen 80x24 "3/^rec\$<Enter>d" "$b" --memory 14M
check "call ids over --memory: out of core, a list of $nid calls" \
    hasx "Calls of rec, all ranks \(4\): the [0-9]+ slowest of $nid calls"
check "call ids: no 'no list'" hasnt "no list"
ooc_rows | head -14 >"$tmp/idooc"
check "call ids: 14 rows shown" [ "$(wc -l <"$tmp/idooc" | tr -d ' ')" = 14 ]
head -14 "$tmp/idrec" >"$tmp/idwant"
check "call ids: the rows are the awk's 14 slowest (duration, excl, start, rank, position)" \
    cmp -s "$tmp/idwant" "$tmp/idooc"
diff "$tmp/idwant" "$tmp/idooc" | head -5
kid=$(sed -n 's/.*the \([0-9]*\) slowest of.*/\1/p' "$scr" | head -1)
screen 80x24 "3/^rec\$<Enter>d<End>" "$b" --memory 14M
IFS='|' read -r d x st rk pos <<EOF
$(sed -n "${kid}p" "$tmp/idrec")
EOF
check "call ids: the last row, the ${kid}th slowest ($d, call $pos of rank $rk)" \
    hasx "^. +$d +$x +$st +$rk +$pos\$"
# the calls view in memory has the same rows (a taller screen: its histogram takes rows)
screen 80x40 "3/^rec\$<Enter>d" "$b"
mem_rows | head -14 >"$tmp/idmem"
cut -d'|' -f1-4 "$tmp/idooc" >"$tmp/idgot4"
check "call ids: in memory the same 14 rows" cmp -s "$tmp/idmem" "$tmp/idgot4"
diff "$tmp/idmem" "$tmp/idgot4" | head -5
# S: the slowest, selected in the timeline
IFS='|' read -r d x st rk pos <<EOF
$(head -1 "$tmp/idrec")
EOF
screen 80x24 "3/^rec\$<Enter>S" "$b" --memory 14M
check "call ids, S: rank $rk, call $pos, $d" has "Slowest call of rec over every rank: rank $rk, call $pos, $d"
check "call ids, S: selected in the timeline" hasx "rec  rank $rk  thread [A-Za-z]+  start $st  dur $d  excl $x"

# one region nested 50 deep by ids, out of core through the child's in-memory route: each
# call's exclusive time is its own 20 ns
dp="$tmp/deep.h5"
"$top_build/svgen" deep "$dp" 50 >/dev/null 2>&1 || check "svgen deep" false
rd=$("$sv" --csv "$dp" | awk -F, 'NR == 2 { print $1 }')
ids_calls "$dp" $("$sv" --csv "$dp" | awk -F, 'NR > 1 && $3 > 0 { print $1 }' | sort -u) | ids_rows "$rd" >"$tmp/deeprows"
screen 80x24 "3/^$rd\$<Enter>d" "$dp" --out-of-core
check "deep ids: a list of its 50 calls" has "Calls of $rd, all ranks (1): 50 calls, slowest first"
ooc_rows | head -14 >"$tmp/deepgot"
head -14 "$tmp/deeprows" >"$tmp/deepwant"
check "deep ids: the rows are the awk's" cmp -s "$tmp/deepwant" "$tmp/deepgot"
check "deep ids: exclusive 20 ns each (by awk)" [ "$(cut -d'|' -f2 "$tmp/deeprows" | sort -u)" = "20 ns" ]
screen 80x24 "3/^$rd\$<Enter>S" "$dp" --out-of-core
check "deep ids: S selects the outermost call" hasx "$rd  rank 0  thread [A-Za-z]+  start 0 ns  dur 1.000 us  excl 20 ns"

# the reference file nested by ids
if need_shared "recursion.h5 out of core"; then
    sh_rec="$shared_root/data/extended/recursion.h5"
    regs=$("$sv" --csv "$sh_rec" | awk -F, 'NR > 1 && $3 > 0 { print $1 }' | sort -u)
    for r in $regs; do
        ids_calls "$sh_rec" $regs | ids_rows "$r" | head -14 >"$tmp/shwant"
        screen 80x24 "3/^$r\$<Enter>d" "$sh_rec" --out-of-core
        ooc_rows | head -14 >"$tmp/shgot"
        check "recursion.h5 $r: the list is the awk's" cmp -s "$tmp/shwant" "$tmp/shgot"
        diff "$tmp/shwant" "$tmp/shgot" | head -3
    done
fi

finish
