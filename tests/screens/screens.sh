#!/bin/sh
# Headless screens of the UI framework: title and status bars, the help overlay, view cycling,
# the search prompt, tiny and huge sizes, ASCII output and hostile strings.  Runs
# `scopeview --batch --size COLSxROWS --keys KEYS FILE` on the generated fixtures and on the
# shared profiles (skipped, visibly, when absent).
# Prints "N passed, N failed"; exits non-zero when anything failed.
. "${0%/*}/../lib.sh"

title() { head -n 1 "$tmp/out"; }
status_line() { tail -n 1 "$tmp/out"; }
current_tab() { title | grep -o '\[[0-9A-Z] [^]]*\]' | head -n 1; }
# shape COLS ROWS NAME: one line per row, none wider than the screen, exit 0, clean
shape() {
    check "$3: exit 0" [ "$rc" = 0 ]
    check "$3: $2 lines" [ "$(lines)" = "$2" ]
    check "$3: no line wider than $1" [ "$(widest)" -le "$1" ]
    check "$3: no control bytes" clean
}

if [ ! -x "$sv" ] || [ ! -f "$fx/small.h5" ]; then
    echo "screens.sh: $sv or $fx/small.h5 missing (run from make check)"
    exit 99
fi
small="$fx/small.h5"
hostile="$fx/fault_hostile_strings.h5"

# --- the first screen
screen 80x24 "" "$small"
shape 80 24 "first screen"
check "title names the file" sh -c "head -n 1 '$tmp/out' | grep -q 'small\.h5'"
check "title marks the current view as [1 ...]" [ -n "$(current_tab)" ]
check "title's current view is number 1" sh -c "head -n 1 '$tmp/out' | grep -q '\[1 '"
check "status bar shows the help key" sh -c "tail -n 1 '$tmp/out' | grep -q '? help'"
check "nothing on stderr" [ ! -s "$tmp/err" ]
cp "$tmp/out" "$tmp/first"

# The tabs in the title: "N name" each, in order (wide enough for their names: at 80
# columns the title bar lists the other views by key alone).
screen 200x24 "" "$small"
tabs=$(title | grep -o '[[ ][0-9A-Z] [a-z]*[] ]' | sed 's/^.//; s/.$//')
ntabs=$(printf '%s\n' "$tabs" | grep -c .)
check "title lists at least one view" [ "$ntabs" -ge 1 ]

# --- help: ? and F1 open it, q Esc ? close it, q then quits
for k in "?" "<F1>"; do
    screen 80x24 "$k" "$small"
    shape 80 24 "help ($k)"
    check "help ($k) has its title" has "Help: keys and legend"
    check "help ($k) lists the global keys" has "Keys in every view"
    check "help ($k) explains q" grep -q '^ q  *quit' "$tmp/out"
    check "help ($k) explains Tab" has "Tab S-Tab"
    check "help ($k) explains /" has "search region names"
    check "help ($k) shows the scroll position" has "lines 1-21 of"
done
screen 80x24 "?<End>" "$small"
check "help scrolls to the legend's end" has "the ruler highlights"
# The whole help, page by page.
keys="?"
: >"$tmp/help"
i=0
while [ $i -lt 20 ]; do
    screen 80x24 "$keys" "$small"
    sed '1,2d;$d' "$tmp/out" >>"$tmp/help"
    keys="$keys<PgDn>"
    i=$((i + 1))
done
inhelp() { grep -q -- "$1" "$tmp/help"; }
check "help legend explains await shading" inhelp "awaited"
check "help legend explains the density glyph" inhelp "several calls"
check "help legend explains the source pane" inhelp "source pane"
check "help has a section for the source pane" inhelp "^Source pane"
screen 100x300 "?" "$small"
check "help fits in 100x300" has "lines 1-\\([0-9]*\\) of \\1$"
check "help has one legend" [ "$(grep -c "^Legend" "$tmp/out")" = 1 ]
check "help explains the await shading once" [ "$(grep -c "suspended" "$tmp/out")" = 1 ]
for v in $tabs; do
    case $v in [0-9A-Z]) ;; *) check "help has a section for the $v view" inhelp "^[0-9A-Z] $v view" ;; esac
done
for k in "q " "? F1" "Esc" "Tab S-Tab" "Left Right h l" "Up Down k j" "+ = -" "0 " "z " "\[ \]" \
    "Enter" "/ " "n N" "f " "d " "S " "s " "J K" "} {"; do
    check "help explains '$k'" inhelp "^ $k"
done
screen 80x24 "?<PgDn><PgDn><PgUp><PgUp>" "$small"
check "help scrolls back to the top" has "lines 1-21 of"
for k in "?q" "?<Esc>" "??" "<F1><F1>"; do
    screen 80x24 "$k" "$small"
    check "'$k' closes the help" hasnt "Help: keys"
    check "'$k' comes back to the first screen" cmp -s "$tmp/out" "$tmp/first"
done
# After q has closed the help, the next q quits: the keys after it do nothing.
screen 80x24 "?qq?" "$small"
check "q after closing the help quits (later keys ignored)" hasnt "Help: keys"
check "quitting exits 0" [ "$rc" = 0 ]
screen 80x24 "q<Tab>?" "$small"
check "q quits at once from a view" cmp -s "$tmp/out" "$tmp/first"

# --- Tab, Shift-Tab and digits
i=0
expect_tab() { printf '%s\n' "$tabs" | sed -n "$(($1 % ntabs + 1))p"; }
keys=""
while [ $i -le "$ntabs" ]; do
    screen 80x24 "$keys" "$small"
    want=$(expect_tab $i)
    check "Tab x$i shows view [$want]" [ "$(current_tab)" = "[$want]" ]
    keys="$keys<Tab>"
    i=$((i + 1))
done
if [ "$ntabs" -ge 2 ]; then
    screen 80x24 "<Tab><Esc>" "$small"
    check "Esc after Tab stays in the view (only jumps go back)" \
        [ "$(current_tab)" = "[$(expect_tab 1)]" ]
fi
screen 80x24 "<BTab>" "$small"
check "Shift-Tab goes to the last view" [ "$(current_tab)" = "[$(expect_tab $((ntabs - 1)))]" ]
printf '%s\n' "$tabs" | while read -r num name; do
    screen 80x24 "$num" "$small"
    [ "$(current_tab)" = "[$num $name]" ] || echo "digit $num did not open $name" >>"$tmp/digits"
done
check "each digit opens its view" [ ! -s "$tmp/digits" ]
for d in 1 2 3 4 5; do
    printf '%s\n' "$tabs" | grep -q "^$d " && continue
    screen 80x24 "$d" "$small"
    check "digit $d without a view says so" \
        sh -c "tail -n 1 '$tmp/out' | grep -q 'View $d is not available'"
    break
done

# --- search prompt
screen 80x24 "/inn" "$small"
check "/ opens a prompt in the status bar" sh -c "tail -n 1 '$tmp/out' | grep -q '^/inn'"
screen 80x24 "/inn<Esc>" "$small"
check "Esc cancels the prompt" cmp -s "$tmp/out" "$tmp/first"
screen 80x24 "/inx<Backspace><Backspace>" "$small"
check "Backspace edits the prompt" sh -c "tail -n 1 '$tmp/out' | grep -q '^/i *$'"
screen 80x24 "/(<Enter>" "$small"
check "a bad expression is reported in the status bar" \
    sh -c "tail -n 1 '$tmp/out' | grep -q 'Bad regular expression'"
screen 80x24 "n" "$small"
check "n without a search says how to search" sh -c "tail -n 1 '$tmp/out' | grep -q 'No search yet'"
screen 80x24 "/inner<Enter>" "$small"
check "a search is remembered in the status bar" sh -c "tail -n 1 '$tmp/out' | grep -q '/inner/'"
screen 80x24 "/inner<Enter>f" "$small"
check "f with a search shows the filter in the title" sh -c "head -n 1 '$tmp/out' | grep -q 'filter /inner/'"
screen 80x24 "/inner<Enter>ff" "$small"
check "f again turns the filter off" sh -c "! head -n 1 '$tmp/out' | grep -q 'filter /inner/'"
screen 80x24 "f" "$small"
check "f without a search says how to filter" sh -c "tail -n 1 '$tmp/out' | grep -q 'press / first'"

# --- sizes
screen 20x5 "" "$small"
shape 20 5 "20x5"
check "20x5 says the terminal is too small" has "Terminal too small"
check "20x5 gives its size" has "(20x5)"
check "20x5 gives the minimum" has "40x10"
screen 1x1 "" "$small"
shape 1 1 "1x1"
screen 39x24 "" "$small"
check "39x24 is too small" has "Terminal too small"
screen 40x9 "" "$small"
check "40x9 is too small" has "Terminal too small"
screen 40x10 "" "$small"
shape 40 10 "40x10"
check "40x10 draws the interface" sh -c "head -n 1 '$tmp/out' | grep -q '\[1 '"
screen 40x10 "?" "$small"
shape 40 10 "help at 40x10"
screen 500x200 "" "$small"
shape 500 200 "500x200"
check "500x200 draws the title" sh -c "head -n 1 '$tmp/out' | grep -q '\[1 '"
screen 500x200 "?" "$small"
shape 500 200 "help at 500x200"
check "help at 500x200 shows the legend without scrolling" has "Legend"
screen 10000x10000 "" "$small"
check "a 10000x10000 screen is refused with exit 1" [ "$rc" = 1 ]
check "a 10000x10000 screen is refused in one line" \
    sh -c "[ \$(wc -l <'$tmp/err') = 1 ] && grep -q 'too large' '$tmp/err'"
screen 20x5 "<Resize>q" "$small"
check "<Resize> on a small screen keeps the message" has "Terminal too small"

# --- ASCII
for k in "" "?" "?<End>" "/x"; do
    screen 80x24 "$k" "$small" --ascii
    check "--ascii ($k) writes ASCII only" ascii_only
done
screen 20x5 "" "$small" --ascii
check "--ascii too-small screen is ASCII" ascii_only
screen 80x24 "" "$hostile" --ascii
check "--ascii hostile screen is ASCII" ascii_only

# --- hostile strings: escaped everywhere, the screen stays aligned
for size in 80x24 40x10 500x200 20x5; do
    cols=${size%x*}
    rows=${size#*x}
    for k in "" "?" "<Tab>" "/evil<Enter>"; do
        screen "$size" "$k" "$hostile"
        shape "$cols" "$rows" "hostile $size '$k'"
    done
    printf '%s\n' "$tabs" | while read -r num name; do
        screen "$size" "$num" "$hostile"
        [ "$rc" = 0 ] && clean && [ "$(widest)" -le "$cols" ] ||
            echo "view $num at $size" >>"$tmp/hostile_views"
    done
done
check "every view on the hostile fixture is clean and aligned" [ ! -s "$tmp/hostile_views" ]
printf '%s\n' "$tabs" | while read -r num name; do
    screen 80x24 "$num" "$hostile"
    has 'evil\\x1b\[31mred\\x07' && echo "$num" >>"$tmp/hostile_named"
done
check "the hostile region name is shown escaped in some view" [ -s "$tmp/hostile_named" ]

# --- keys and environment
screen 80x24 "<Bogus>" "$small"
check "an unknown <Name> in --keys exits 2" [ "$rc" = 2 ]
check "an unknown <Name> gives one line naming it" \
    sh -c "[ \$(wc -l <'$tmp/err') = 1 ] && grep -q '<Bogus>' '$tmp/err'"
screen 80x24 "<" "$small"
check "a lone < is a key, not an error" [ "$rc" = 0 ]

# --- golden screens: text checked by hand, shown as a diff when it changes
# (SV_UPDATE_GOLDEN=1 rewrites them); without the title bar (it lists the views) and the
# help's line count (it grows with every view's keys).
screen 80x24 "?<Down>" "$small"
sed -i 1,2d "$scr"
check "help's first page (the command table's global keys)" golden help_80x24

# --- the shared profiles
nshared=0
for f in "$shared"/data/real/*.h5 "$shared"/data/extended/*.h5; do
    [ -f "$f" ] || continue
    nshared=$((nshared + 1))
    base=$(basename "$f")
    for k in "" "?" "<Tab>" "jjj<Enter>" "/s<Enter>nN"; do
        screen 80x24 "$k" "$f"
        shape 80 24 "$base '$k'"
    done
    check "$base: title names the file" sh -c "head -n 1 '$tmp/out' | grep -q '$base'"
done
[ "$nshared" = 0 ] && skip "no shared profiles under $shared/data (real, extended)"

finish
