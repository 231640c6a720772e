#!/bin/sh
# Headless screens that must not mislead, continued: the compare view that
# --diff opens and its columns at 80, ...  Each part runs at 80x24, 120x40
# and 200x50, in colour, mono and ASCII, on profiles svgen writes here.
# Prints "N passed, N failed"; exits non-zero when anything failed.
. "${0%/*}/../lib.sh"
svgen="$top_build/svgen"
sizes="80x24 120x40 200x50"
modes="colour mono ascii"

# shot SIZE KEYS MODE ARGS...: the screen of scopeview ARGS.
shot() {
    lib_size=$1 lib_keys=$2 lib_mode=$3
    shift 3
    # shellcheck disable=SC2046 # mode_opt prints one word or none
    env -u TERM "$sv" --batch --size "$lib_size" --keys "$lib_keys" $(mode_opt "$lib_mode") "$@" \
        >"$scr" 2>"$tmp/err" </dev/null
    rc=$?
}

# --- 4. the compare view: --diff opens on it; every column can be reached
# sideways at any width, the slower / faster mark stays, the counts whole.
a="$tmp/a.h5" b="$tmp/b.h5"
"$svgen" demo --seed 1 "$a" >/dev/null && "$svgen" demo --seed 2 --slow solve=40 "$b" >/dev/null ||
    exit 99
# The flagged paths as --diff --csv lists them (its own output path).
"$sv" --diff "$a" "$b" --csv >"$tmp/d.csv" || exit 99
nslow=$(awk -F, '$1 == "path" && $NF == "slower"' "$tmp/d.csv" | wc -l | tr -d ' ')
nfast=$(awk -F, '$1 == "path" && $NF == "faster"' "$tmp/d.csv" | wc -l | tr -d ' ')
check "compare: the slowed run has slower paths ($nslow)" [ "$nslow" -gt 0 ]
cols="Base New Delta Delta% Calls_b/n Excl_delta p_adj"
for size in $sizes; do
    for mode in $modes; do
        mark="▲ slow"
        [ "$mode" = ascii ] && mark="^ slow"
        shot "$size" "" "$mode" --diff "$a" "$b"
        check "compare $size $mode: --diff opens the compare view" rowhas 2 "\[paths\]"
        check "compare $size $mode: the counts uncut" \
            rowhas 2 "  $nslow slower, $nfast faster\( \|$\)"
        check "compare $size $mode: no line wider than $size" [ "$(widest)" -le "${size%x*}" ]
        # Right (l, then the arrow), step by step: every column title on some
        # screen, the mark on each; then Left (h) back to the start.
        seen=" " keys=""
        for step in l l l l '<Right>' '<Right>' '<Right>' '<Right>' h; do
            shot "$size" "6$keys" "$mode" --diff "$a" "$b"
            check "compare $size $mode '$keys': the mark stays" hasf "$mark"
            for c in $cols; do
                t=$(echo "$c" | tr _ ' ')
                row 3 | grep -qF -- "$t" && seen="$seen$c "
            done
            keys="$keys$step"
        done
        for c in $cols; do
            check "compare $size $mode: column $c reachable" eval "case '$seen' in *' $c '*) true ;; *) false ;; esac"
        done
    done
done
# --batch with --view on another view still opens that view.
shot 80x24 "" colour --diff "$a" "$b" --view regions
check "compare --view regions: the regions view" rowhas 1 "\[3 regions\]"

# --- 5. the source pane keeps the region's own text: col3_callee.h5's outer
# (app.py:10, two lines captured) has a line profile of inner (app.py:20,
# FIXTURES.md): outer's lines first, then inner's under a labelled row, the
# profiled times (150 ns, 90 ns) beside inner's lines only.
callee="$fx/col3_callee.h5"
need_fixture "$callee" "$fx/col3_full.h5"
bar='(│|\|)'
for size in $sizes; do
    for mode in $modes; do
        shot "$size" '3/^outer$<Enter>s' "$mode" "$callee"
        check "source $size $mode: the header names outer's own file and line" has "app\.py:10  outer"
        check "source $size $mode: outer's own text" hasx " 10 $bar def outer\(\):"
        check "source $size $mode: outer's second line, no time beside it" \
            hasx "(^|$bar) +11 $bar     inner\(\)"
        check "source $size $mode: inner's part labelled with its file and line" \
            has "line profile: inner  app\.py:20"
        check "source $size $mode: 150 ns beside line 21" hasx "150 ns.* 21 $bar     x = 1"
        check "source $size $mode: 90 ns beside line 22" hasx "90 ns.* 22 $bar     return x"
        check "source $size $mode: no line wider than $size" [ "$(widest)" -le "${size%x*}" ]
        # A line profile of the region's own lines: one text, no second part.
        shot "$size" '3/^inner$<Enter>s' "$mode" "$fx/col3_full.h5"
        check "source $size $mode: inner's own profile, one part" hasnt "line profile: inner  app"
        check "source $size $mode: inner's own profile beside its lines" hasx "150 ns.* 21 $bar     x = 1"
    done
done

# --- 6. task groups open while their lanes fit (a's 2 ranks ran 18 tasks
# each, FIXTURES.md "svgen demo"): the lane rows fill the screen, and the
# header counts the tasks that stay folded: 36 less those on screen.
# lane_gap: a blank row between the first lane row and the details line.
lane_gap() {
    awk 'NR >= 4 && /No call selected/ { exit } NR >= 4 && /^ *$/ { gap = 1 } END { exit !gap }' "$scr"
}
for size in $sizes; do
    for mode in $modes; do
        shot "$size" "" "$mode" "$a"
        shown=$(grep -c "Task-[0-9]" "$scr")
        check "tasks $size $mode: some shown ($shown)" [ "$shown" -gt 0 ]
        check "tasks $size $mode: no blank row among the lanes" eval '! lane_gap'
        if [ "$shown" -lt 36 ]; then
            check "tasks $size $mode: the header counts $((36 - shown)) folded" \
                rowhas 2 " 42 lanes, $((36 - shown)) tasks folded"
        else
            check "tasks $size $mode: nothing folded, nothing said" hasnt "folded"
        fi
        check "tasks $size $mode: no line wider than $size" [ "$(widest)" -le "${size%x*}" ]
    done
done
# 80x24: r0's group (row 7) opened in part; Enter on it shows all 18, r1's
# 18 stay folded.
shot 80x24 "" colour "$a"
check "tasks 80x24: r0's group in part" rowhas 7 "^ r0 Ma.* ▾[0-9]*/18│"
shot 80x24 "jjj<Enter>" colour "$a"
check "tasks 80x24 Enter: r0's group whole" rowhas 7 "^▶r0 Ma.* ▾18│"
check "tasks 80x24 Enter: r1's 18 folded" rowhas 2 " 42 lanes, 18 tasks folded"

# --- one unit rule: a time per hit of 90 ns over 3 hits is 30 ns, written
# like the 50 ns beside it (col3_full.h5's line profile of inner, FIXTURES.md:
# times 150 and 90 ns, 3 hits each)
need_fixture "$fx/col3_full.h5"
run --lines inner "$fx/col3_full.h5"
check "--lines: 150 ns over 3 hits is 50 ns" has "^  21  *3  *150 ns  *50 ns "
check "--lines: 90 ns over 3 hits is 30 ns, whole" has "^  22  *3  *90 ns  *30 ns "
check "--lines: no 30.00 ns" hasnt "30\.00 ns"

# --- a run given as a directory is called after the directory: title bar,
# info view, --summary header
run_dir="$tmp/solver_run"
mkdir "$run_dir" && "$svgen" spt "$run_dir" 40 >/dev/null || exit 99
for size in $sizes; do
    for mode in $modes; do
        shot "$size" "" "$mode" "$run_dir/"
        check "dir $size $mode: the title names the directory" rowhas 1 "solver_run$"
        check "dir $size $mode: not its first file" hasnt "run_rank00000.spt"
        shot "$size" 5 "$mode" "$run_dir"
        check "dir $size $mode: the info view names the run" has "^   run  *.*solver_run$"
    done
done
run --summary "$run_dir"
check "--summary: the header names the directory" rowhas 1 "^file: .*solver_run  ranks: 0-3 "
# the same in a comparison: each side named as a directory is called after it
run_dir2="$tmp/solver_run2"
mkdir "$run_dir2" && "$svgen" spt "$run_dir2" 40 >/dev/null || exit 99
shot 80x24 "" colour --diff "$run_dir/" "$run_dir2"
check "--diff of directories: the title names the base directory" rowhas 1 "solver_run$"
check "--diff of directories: the header names both" rowhas 2 "solver_run → solver_run2 "
check "--diff of directories: no first file named" hasnt "run_rank00000.spt"
run --diff "$run_dir" "$run_dir2" --summary
check "--diff --summary names the base directory" rowhas 1 "^base: .*/solver_run$"
check "--diff --summary names the new directory" rowhas 2 "^new:  .*/solver_run2$"

finish
