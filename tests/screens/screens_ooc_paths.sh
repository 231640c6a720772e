#!/bin/sh
# The tree, the flame graph and the callers view out of core (src/ooc/ooc_paths.c): the loading
# child's sweep sums every call path, the viewer builds the in-memory models from the sums.
#
# 1. A generated profile over --memory: its tree's calls, inclusive, exclusive and mean times,
#    the flame graph's shares (top-down and inverted) and the callers of one region are
#    computed here with awk over the raw calls (--events: nested by containment, the exclusive
#    time a call's duration less its children's) and looked for on the 80x24 screens.
# 2. Screens out of core = in memory, key by key, on a profile with two ranks, threads,
#    recursion, ties and zero-length calls; the scopes a tree from sums cannot give (a thread)
#    are not offered, and a time band's flame graph says why.
# 3. A rank nested from its call ids: the same views, from the in-memory nesting.
# 4. Without the sums (more distinct paths than the budget allows)
#    the three views say why in one line.
# 5. The tree's Await and GPU columns out of core: computed here over the raw calls (a profile
#    nested from its call ids: every path; a swept one: its top level), and equal to the
#    in-memory tree's on every route and on the shared async and GPU profiles.
. "${0%/*}/../lib.sh"

p="$tmp/p.h5"
"$top_build/svgen" bench-schema3 "$p" --calls 200000 >/dev/null 2>&1 || check "svgen bench-schema3" false
mem="--memory 2M"

# --- 1. the figures, from the raw calls
for r in main step assemble solve precond; do
    "$sv" --events "$r" --csv "$p" | awk -F, -v r="$r" 'NR > 1 {
        printf "%s %.0f %.0f %s\n", $1, $3 * 1e9, $4 * 1e9, r }'
done | sort -k1,1n -k2,2n -k3,3nr >"$tmp/calls"
check "the raw calls: 200 000 of them" [ "$(wc -l <"$tmp/calls")" -ge 200000 ]
# One line a path: calls, inclusive, exclusive, mean, path (names joined by ";"), every time
# written as the screens write it (4 significant digits, ns below 1 us).
awk '
function fmt(v,   u, x) {
    if (v < 1000) return sprintf("%d ns", v)
    if (v < 1e6) { u = "us"; x = v / 1e3 } else if (v < 1e9) { u = "ms"; x = v / 1e6 } else { u = "s"; x = v / 1e9 }
    if (x < 10) return sprintf("%.3f %s", x, u)
    if (x < 100) return sprintf("%.2f %s", x, u)
    return sprintf("%.1f %s", x, u)
}
function pop() {
    ex[sp_p[sp]] += (sp_e[sp] - sp_s[sp]) - kids[sp]
    sp--
}
{
    if ($1 != rank) { while (sp > 0) pop(); rank = $1 }
    s = $2; e = $3
    while (sp > 0 && !(sp_s[sp] <= s && e <= sp_e[sp])) pop()
    path = sp ? sp_p[sp] ";" $4 : $4
    if (sp) kids[sp] += e - s
    if (!(path in n)) order[++np] = path
    n[path]++; inc[path] += e - s
    sp++; sp_s[sp] = s; sp_e[sp] = e; sp_p[sp] = path; kids[sp] = 0
}
END {
    while (sp > 0) pop()
    for (i = 1; i <= np; i++) {
        q = order[i]
        printf "%d|%s|%s|%s|%s|%d|%d\n", n[q], fmt(inc[q]), fmt(ex[q]), fmt(inc[q] / n[q]), q, inc[q], ex[q]
    }
}' "$tmp/calls" >"$tmp/paths"
check "five call paths" [ "$(wc -l <"$tmp/paths")" = 5 ]

screen 80x24 "" "$p" --view tree $mem
check "over --memory the tree opens (exit 0: $(head -c 200 "$tmp/err"))" [ "$rc" = 0 ]
check "the tree from the sums, not 'not available'" hasnt "not available"
while IFS='|' read -r n incl excl mean path ins exs; do
    leaf=${path##*;}
    check "tree: $path: $n calls, $incl incl, $excl excl, mean $mean" \
        hasx "^. +$n +$incl +$excl +$mean .* $leaf\$"
done <"$tmp/paths"

# flame graph: a frame's share of the scope (top-down: inclusive over the root's; inverted: a
# region's exclusive time over the scope's)
root=$(awk -F'|' '$5 !~ /;/ { s += $6 } END { print s }' "$tmp/paths")
excl_all=$(awk -F'|' '{ s += $7 } END { print s }' "$tmp/paths")
screen 80x24 "" "$p" --view flame --ascii $mem
for q in "main" "main;step" "main;step;assemble" "main;step;solve"; do
    want=$(awk -F'|' -v q="$q" -v r="$root" '$5 == q { printf "%s %.1f%%", q, 100 * $6 / r }' "$tmp/paths" | sed 's/.*;//')
    check "flame: $want" hasf "$want"
done
screen 80x24 "i" "$p" --view flame --ascii $mem
for leaf in assemble precond; do
    want=$(awk -F'|' -v l="$leaf" -v t="$excl_all" '$5 ~ ";" l "$" { printf "%s %.1f%%", l, 100 * $7 / t }' "$tmp/paths")
    check "inverted flame: $want" hasf "$want"
done

# callers of solve: one caller path (main > step) with all its calls and time; what it calls
screen 80x24 "3/solve<Enter>B" "$p" $mem
IFS='|' read -r n incl excl mean path ins exs <<EOF
$(grep '|main;step;solve|' "$tmp/paths")
EOF
check "callers: solve, $n calls, $incl" has "solve  all ranks: $n calls, $incl"
check "callers: main > step, $n calls, $incl, 100%" hasx "^. main > step +$n +$incl +100\.0%\$"
check "callers: solve's own time $excl" hasx "self: its own exclusive time\) +$excl "
IFS='|' read -r n2 incl2 excl2 mean2 path2 ins2 exs2 <<EOF
$(grep '|main;step;solve;precond|' "$tmp/paths")
EOF
check "callers: precond, $n2 calls, $incl2" hasx "^. precond +$n2 +$incl2 .* $excl2 "

# --- 2. out of core = in memory, key by key
same() { # NAME FILE KEYS [OPTIONS...]
    sm_name=$1 sm_file=$2 sm_keys=$3
    shift 3
    screen 80x24 "$sm_keys" "$sm_file" "$@"
    cp "$scr" "$tmp/mem"
    screen 80x24 "$sm_keys" "$sm_file" --out-of-core "$@"
    if ! cmp -s "$scr" "$tmp/mem"; then
        echo "  $sm_name, keys '$sm_keys' (- in memory, + out of core):"
        diff -u "$tmp/mem" "$scr" | sed 's/^/  /' | head -40
    fi
    check "$sm_name '$sm_keys': out of core = in memory" cmp -s "$scr" "$tmp/mem"
}
m="$tmp/mix.h5"
"$top_build/svgen" stream-mix "$m" --calls 20000 --ranks 2 >/dev/null 2>&1 || check "svgen stream-mix" false
for f in "$fx/agg4.h5" "$fx/legacy_threads2.h5" "$fx/flame.h5" "$m"; do
    for k in "" R "rj<Enter>" "rjj<Enter>R" "jjj<Enter>" "s"; do
        same "tree ${f##*/}" "$f" "$k" --view tree
    done
done
for k in "" i o "jj<Enter>" "rj<Enter>" "ijl"; do
    same "flame" "$m" "$k" --view flame --ascii
done
for k in "3/rec<Enter>B" "3/step<Enter>B" "3/step<Enter>B<End><Enter>" "3/rec<Enter>Br"; do
    same "callers" "$m" "$k"
done
t="$tmp/mixt.h5"
"$top_build/svgen" stream-mix "$t" --calls 20000 --ranks 2 --threads >/dev/null 2>&1 || check "svgen stream-mix --threads" false
same "flame, threads" "$t" "" --view flame --ascii
same "callers, threads" "$t" "3/rec<Enter>B"
screen 80x24 "r" "$t" --view tree --out-of-core
check "out of core the scopes are all ranks and each rank (no thread)" hasnt "rank 0, thread"
check "... rank 1 offered" hasf "rank 1"
screen 80x24 "r" "$t" --view tree
check "(in memory a thread is offered)" hasf "rank 1, thread"

# --- 3. a rank nested from its call ids: its paths follow the parents, in memory
# (svgen deep: 50 nested calls of rec, each 20 ns longer than the one inside it, the
# innermost 20 ns: every call's exclusive time is 20 ns)
d="$tmp/deep.h5"
"$top_build/svgen" deep "$d" 50 >/dev/null 2>&1 || check "svgen deep" false
same "tree, call ids" "$d" "" --view tree
same "flame, call ids" "$d" "" --view flame --ascii
same "callers, call ids" "$d" "3B"
screen 80x24 "" "$d" --view tree --out-of-core
check "call ids: the outermost rec, 1.000 us inclusive, 20 ns its own" \
    rowhas 4 "^.       1  1.000 us     20 ns  1.000 us"
check "call ids: the next, 980 ns" rowhas 5 "^        1    980 ns     20 ns"

# --- 4. no sums: said in one line
w="$tmp/wide.h5"
"$top_build/svgen" many-regions "$w" 5000 1 >/dev/null 2>&1 || check "svgen many-regions" false
screen 80x24 "" "$w" --view flame --out-of-core --memory 4M
check "5000 paths within 4 MiB: over the cap, said" hasf "more than 4096 distinct call paths"
screen 80x24 "" "$w" --view flame --out-of-core --memory 8M
check "5000 paths within 8 MiB: the graph" hasnt "not available"

# --- 5. the tree's Await and GPU columns: summed per path by the sweep as in memory
# (await over the calls with the column, GPU over the calls with a timing, "-" without any)
aux_fmt='
function fmt(v,   u, x) {
    if (v < 1000) return sprintf("%d ns", v)
    if (v < 1e6) { u = "us"; x = v / 1e3 } else if (v < 1e9) { u = "ms"; x = v / 1e6 } else { u = "s"; x = v / 1e9 }
    if (x < 10) return sprintf("%.3f %s", x, u)
    if (x < 100) return sprintf("%.2f %s", x, u)
    return sprintf("%.1f %s", x, u)
}
function opt(n, v) { return n ? fmt(v) : "-" }'
# a. svgen extended (threads, tasks, call ids: nested in memory): every path from the parent ids
x="$tmp/ext.h5"
"$top_build/svgen" extended "$x" 3000 >/dev/null 2>&1 || check "svgen extended" false
for r in iteration io/read compute kernel; do
    "$sv" --events "$r" --csv "$x" | awk -F, -v r="$r" 'NR > 1 { print r "," $0 }'
done >"$tmp/xcalls"
awk -F, "$aux_fmt"'
{   k = $2 ":" $14; name[k] = $1; up[k] = $15 == -1 ? "" : $2 ":" $15
    d[k] = $6 * 1e9; aw[k] = $8; gp[k] = $9; keys[++nk] = k }
function path(k) { return up[k] == "" ? name[k] : path(up[k]) ";" name[k] }
END {
    for (i = 1; i <= nk; i++) {
        k = keys[i]; q = path(k)
        if (!(q in n)) order[++np] = q
        n[q]++; inc[q] += d[k]
        if (aw[k] != "") { an[q]++; as[q] += aw[k] * 1e9 }
        if (gp[k] != "" && gp[k] >= 0) { gn[q]++; gs[q] += gp[k] * 1e9 }
    }
    for (i = 1; i <= np; i++) {
        q = order[i]
        printf "%d|%s|%s|%s|%s\n", n[q], fmt(inc[q]), opt(an[q], as[q]), opt(gn[q], gs[q]), q
    }
}' "$tmp/xcalls" >"$tmp/xpaths"
check "extended: four call paths" [ "$(wc -l <"$tmp/xpaths")" = 4 ]
check "extended: GPU time on kernel only" [ "$(grep -vc '|-|[^|]*$' "$tmp/xpaths")" = 1 ]
check "extended: ... GPU time on kernel" grep -q '|[0-9.]* [mun]*s|iteration;kernel$' "$tmp/xpaths"
screen 80x24 "" "$x" --view tree --out-of-core --memory 64M
check "extended out of core: the Await and GPU columns" hasx "Await +GPU"
while IFS='|' read -r n incl aw gp path; do
    check "extended out of core: $path: $n calls, $incl, await $aw, GPU $gp" \
        hasx "^. +$n +$incl .* +$aw +$gp [^a-z]*${path##*;}\$"
done <"$tmp/xpaths"
# b. stream-mix (swept: no call ids, rows in order): the top-level main holds every main call
for r in main; do
    "$sv" --events "$r" --csv "$m" | awk -F, "$aux_fmt"'
    NR > 1 { n++; inc += $5 * 1e9
             if ($7 != "") { an++; as += $7 * 1e9 }
             if ($8 != "" && $8 >= 0) { gn++; gs += $8 * 1e9 } }
    END { printf "%d|%s|%s|%s\n", n, fmt(inc), opt(an, as), opt(gn, gs) }' >"$tmp/main"
done
IFS='|' read -r n incl aw gp <"$tmp/main"
screen 80x24 "" "$m" --view tree --out-of-core $mem
check "stream-mix out of core: main: $n calls, $incl, await $aw, GPU $gp" \
    hasx "^. +$n +$incl .* +$aw +$gp [^a-z]*main\$"
# c. out of core = in memory: swept, with threads, nested from call ids, rows out of order
for v in --threads --ids --unsorted; do
    "$top_build/svgen" stream-mix "$tmp/mix$v.h5" --calls 20000 --ranks 2 $v >/dev/null 2>&1 ||
        check "svgen stream-mix $v" false
    for k in "" R "rj<Enter>" "<End>"; do
        same "tree, stream-mix $v" "$tmp/mix$v.h5" "$k" --view tree
    done
done
same "tree, extended" "$x" "R" --view tree
# d. the shared profiles with await or GPU columns
if need_shared "the tree's Await and GPU columns on the shared async and GPU profiles"; then
    for f in upstream/sp3-threads-async.h5 upstream/sp3-gpu.h5 upstream/json/sp3-gpu.json.gz \
        upstream/json/sp3-threads-async.json.gz extended/async_server.h5 extended/gpu_train.h5; do
        [ -f "$shared_root/data/$f" ] || continue
        same "tree, $f" "$shared_root/data/$f" "" --view tree
        same "tree, $f" "$shared_root/data/$f" "R" --view tree
    done
fi

finish
