# tests/lib.sh: the helpers every shell test shares.  A test starts with
#
#   . "${0%/*}/lib.sh"
#
# and ends with `finish`.  It gets:
#   top_src top_build   the source and build trees (SV_TOP_SRCDIR/SV_TOP_BUILDDIR
#                       from make check; .. and . otherwise): never an absolute
#                       path compiled in, so the tree can live anywhere
#   sv fx shared        the program, the generated fixtures, the shared data
#                       ($shared_root; it may be absent: see need_shared)
#   tmp                 a private directory, removed on exit (a test with more
#                       to clean defines lib_cleanup)
#   scr                 the file `screen` and `run` write and the checks read
#                       ($tmp/out; a test may point it elsewhere)
#   rc                  the exit status of the last screen/run
#
# check NAME COMMAND...  counts COMMAND's success; on failure prints
# "FAIL: NAME" and, when COMMAND was a screen check (has, hasnt, hasf, hasx,
# rowhas, golden), the pattern it looked for and the whole screen (with
# show_err=1, also $tmp/err, where run and screen put stderr).
# finish prints "N passed, N failed" and exits 1 on a failure, 77 (SKIP for
# automake) when checks were skipped because ../shared is absent, else 0.

top_src=${SV_TOP_SRCDIR:-..}
top_build=$(cd "${SV_TOP_BUILDDIR:-.}" && pwd) || exit 99 # a test may cd
sv="$top_build/scopeview"
fx="$top_build/tests/fixtures"
shared_root=${SV_SHARED_DIR:-$top_src/../shared}
shared=$shared_root
UTF8=C.UTF-8
lib_test=${0##*/}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sv-${lib_test%.sh}.XXXXXX") || exit 99
lib_exit() {
    if command -v lib_cleanup >/dev/null 2>&1; then lib_cleanup; fi
    rm -rf "$tmp"
}
trap lib_exit EXIT
trap 'exit 130' INT TERM
scr="$tmp/out"
# The user's own config file never reaches a test: an empty config home.
XDG_CONFIG_HOME="$tmp/xdg"
export XDG_CONFIG_HOME
passed=0
failed=0
skipped=0
rc=0
lib_pat=
lib_file=

ok() { passed=$((passed + 1)); }
bad() {
    failed=$((failed + 1))
    echo "FAIL: $*"
}

# What the last screen check looked for, printed when it fails.
lib_look() {
    lib_pat=$1
    lib_file=${2:-$scr}
}
lib_explain() {
    [ -n "$lib_file" ] || return 0
    [ -n "$lib_pat" ] && printf '  pattern: %s\n' "$lib_pat"
    if [ -f "$lib_file" ]; then
        printf '  screen (%s lines):\n' "$(wc -l <"$lib_file" | tr -d ' ')"
        sed 's/^/  |/' "$lib_file"
    else
        printf '  (no screen: %s is missing)\n' "$lib_file"
    fi
}

check() { # check NAME COMMAND...
    lib_name=$1
    shift
    lib_pat=
    lib_file=
    if "$@"; then
        ok
        return 0
    fi
    bad "$lib_name"
    lib_explain
    # A test that sets show_err=1 also gets the last command's stderr.
    if [ "${show_err:-0}" = 1 ] && [ -s "$tmp/err" ]; then
        sed 's/^/  stderr: /' "$tmp/err"
    fi
    return 1
}

# Checks on the screen (or FILE): a basic regex, none, a fixed string, an ERE.
has() { lib_look "$1" "$2" && grep -q -- "$1" "$lib_file"; }
hasnt() { lib_look "$1" "$2" && ! grep -q -- "$1" "$lib_file"; }
hasf() { lib_look "$1" "$2" && grep -qF -- "$1" "$lib_file"; }
hasx() { lib_look "$1" "$2" && grep -qE -- "$1" "$lib_file"; }
row() { sed -n "$1p" "$scr"; } # row N of the screen (1-based)
rowhas() { lib_look "row $1: $2" && row "$1" | grep -q -- "$2"; }
lines() { wc -l <"${1:-$scr}" | tr -d ' '; } # of the screen or FILE
widest() { LC_ALL=$UTF8 wc -L <"$scr" | tr -d ' '; } # in display columns
ascii_only() { ! LC_ALL=C grep -q "$(printf '[^\040-\176]')" "$scr"; } # printable ASCII only
# No C0 control (but newline) and no C1 control (UTF-8 \302\200-\237).
clean() { # [FILE]
    ! LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" "${1:-$scr}" &&
        ! LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "${1:-$scr}"
}

# screen SIZE KEYS FILE [OPTIONS...]: the headless screen in $scr, status in $rc.
screen() {
    lib_size=$1 lib_keys=$2 lib_in=$3
    shift 3
    env -u TERM "$sv" --batch --size "$lib_size" --keys "$lib_keys" "$@" "$lib_in" \
        >"$scr" 2>"$tmp/err" </dev/null
    rc=$?
}

# mode_opt MODE: the option that draws in MODE (colour, mono, ascii).
mode_opt() {
    case $1 in
    mono) echo --mono ;;
    ascii) echo --ascii ;;
    *) ;;
    esac
}

# run ARGS...: scopeview's output in $scr, its errors in $tmp/err, status in $rc.
run() {
    "$sv" "$@" >"$scr" 2>"$tmp/err"
    rc=$?
}

# golden NAME: the screen equals tests/golden/NAME.txt, text worked out and
# checked by hand; a difference is shown as a diff.  SV_UPDATE_GOLDEN=1
# rewrites the file instead (then read the diff before committing it).
golden() {
    lib_gold="$top_src/tests/golden/$1.txt"
    lib_look "the golden screen tests/golden/$1.txt" "$scr"
    if [ "${SV_UPDATE_GOLDEN:-0}" = 1 ]; then
        cp "$scr" "$lib_gold"
        return 0
    fi
    if [ ! -f "$lib_gold" ]; then
        echo "  no golden file $lib_gold"
        return 1
    fi
    if ! diff -u "$lib_gold" "$scr" >"$tmp/golden.diff"; then
        echo "  golden screen $1 differs (- expected, + shown):"
        sed 's/^/  /' "$tmp/golden.diff"
        lib_file= # the diff says it all
        return 1
    fi
}

# skip WHAT: says "SKIP: WHAT" and counts it.  A part skipped for want of
# the shared data is a cross-check left out: finish passes the test when
# its own checks passed, and reports it skipped (exit 77) only when nothing
# at all was checked.
skip() {
    skipped=$((skipped + 1))
    echo "SKIP: $*"
}

# need_shared WHAT: true when the shared data ($shared_root/data) is there;
# otherwise skips WHAT.
need_shared() {
    [ -d "$shared_root/data" ] && return 0
    skip "$* (no shared data at $shared_root)"
    return 1
}

# need_fixture FILE...: the generated fixtures must exist (make check writes them).
need_fixture() {
    for lib_f in "$@"; do
        if [ ! -f "$lib_f" ]; then
            echo "$lib_test: $lib_f missing (run from make check)"
            exit 99
        fi
    done
}

finish() {
    if [ "$skipped" -gt 0 ]; then
        echo "$passed passed, $failed failed, $skipped parts skipped"
    else
        echo "$passed passed, $failed failed"
    fi
    [ "$failed" = 0 ] || exit 1
    [ "$skipped" = 0 ] || [ "$passed" -gt 0 ] || exit 77
    exit 0
}
