#!/bin/sh
# The config file (src/ui/settings.c): a rebound key, a default view, the tree's first sort
# and scope, the source pane's width, a bad line (FILE:LINE on stderr and in the status line,
# the other lines applied), the XDG default path, --config FILE that is missing, a theme's
# colours in a real terminal (tmux), and --dump-config: commented, and read back it gives the
# same screens as no config at all.
. "${0%/*}/lib.sh"
need_fixture "$fx/small.h5" "$fx/nested_names.h5"
small="$fx/small.h5"
cfg="$tmp/config"

# --- a rebound key: x opens the help, and the help lists it
printf 'bind global x help\n' >"$cfg"
screen 80x24 "x" "$small" --config "$cfg"
check "bind global x help: x opens the help" has "Help: keys and legend"
check "... and the help lists x beside ? F1" has "^ ? F1 x  *show or hide this help"
check "... nothing on stderr" [ ! -s "$tmp/err" ]
screen 80x24 "x" "$small"
check "without the config, x does nothing" hasnt "Help: keys"
# A view's binding: z unbound in the timeline, e in the tree turned into a sort key.
printf 'bind timeline z none\nbind tree e sort-invert\n' >"$cfg"
screen 80x24 "2e" "$small" --config "$cfg"
check "bind tree e sort-invert: the sort is inverted" has "sort: Incl asc"

# --- settings
printf 'set default-view tree\nset tree-sort excl\n' >"$cfg"
screen 80x24 "" "$small" --config "$cfg"
check "set default-view tree: the tree first" rowhas 1 "\[2 tree\]"
check "set tree-sort excl: sorted by Excl" has "sort: Excl desc"
printf 'set default-view tree\nset tree-scope rank\n' >"$cfg"
screen 100x24 "" "$fx/nested_names.h5" --config "$cfg"
check "set tree-scope rank: the first rank" has "scope: rank 0"
screen 100x24 "2" "$fx/nested_names.h5"
check "by default all ranks" has "scope: all ranks"
# The source pane beside the view: 60 columns of a 160-column screen, the view keeps 100
# (the width before the pane's first border on row 2).
view_width() { sed -n 2p "$scr" | sed 's/│.*//' | LC_ALL=$UTF8 wc -L | tr -d ' '; }
printf 'set source-width 60\n' >"$cfg"
screen 160x30 "2s" "$small" --config "$cfg"
check "set source-width 60: the view keeps 100 columns" [ "$(view_width)" = 100 ]
screen 160x30 "2s" "$small"
check "by default the pane takes two fifths: the view keeps 96" [ "$(view_width)" = 96 ]

# --- a bad line: reported with its line number, the others applied
printf 'set default-view regions\nfrobnicate now\nbind global x help\n' >"$cfg"
screen 80x24 "" "$small" --config "$cfg"
check "bad line: exit 0" [ "$rc" = 0 ]
check "bad line: stderr names file and line" hasf "scopeview: $cfg:2: unknown statement 'frobnicate'" "$tmp/err"
check "bad line: one message" [ "$(lines "$tmp/err")" = 1 ]
check "bad line: the status line says it too" sh -c "tail -n 1 '$scr' | grep -q 'config:2: unknown'"
check "bad line: line 1 applied" rowhas 1 "\[3 regions\]"
screen 80x24 "x" "$small" --config "$cfg"
check "bad line: line 3 applied" has "Help: keys and legend"

# --- the default path, and a missing --config
mkdir -p "$XDG_CONFIG_HOME/scopeview"
printf 'set default-view info\n' >"$XDG_CONFIG_HOME/scopeview/config"
screen 80x24 "" "$small"
check "XDG_CONFIG_HOME/scopeview/config is read" rowhas 1 "\[5 info\]"
rm "$XDG_CONFIG_HOME/scopeview/config"
screen 80x24 "" "$small" --config "$tmp/nonexistent"
check "a missing --config file: exit 2" [ "$rc" = 2 ]
check "... saying which" hasf "$tmp/nonexistent: No such file or directory" "$tmp/err"

# --- one rule for a file that cannot be read as a config file, --config's or the default
# one: its message and exit 2, at once (a FIFO without a writer must not block the viewer)
mkfifo "$tmp/fifo"
head -c 1100000 /dev/zero | tr '\0' '#' >"$tmp/big"
for c in "$tmp/fifo:not a regular file" "$tmp:a directory, not a config file" \
    "/dev/zero:not a regular file" "$tmp/big:larger than 1 MiB"; do
    f=${c%%:*} why=${c#*:}
    timeout 20 env -u TERM "$sv" --batch --size 80x24 --keys "" --config "$f" "$small" \
        >"$scr" 2>"$tmp/err" </dev/null
    rc=$?
    check "--config $f: exit 2" [ "$rc" = 2 ]
    check "... saying why" hasf "scopeview: $f: $why" "$tmp/err"
    check "... one line" [ "$(lines "$tmp/err")" = 1 ]
done
rm -f "$XDG_CONFIG_HOME/scopeview/config"
mkfifo "$XDG_CONFIG_HOME/scopeview/config"
timeout 20 env -u TERM "$sv" --batch --size 80x24 --keys "" "$small" >"$scr" 2>"$tmp/err" </dev/null
rc=$?
check "a FIFO at the default path: exit 2" [ "$rc" = 2 ]
check "... saying why" hasf "scopeview: $XDG_CONFIG_HOME/scopeview/config: not a regular file" "$tmp/err"
rm "$XDG_CONFIG_HOME/scopeview/config"

# --- --dump-config: commented defaults that read back to the same behaviour
run --dump-config
check "--dump-config exits 0" [ "$rc" = 0 ]
check "--dump-config is commented" has "^# scopeview config"
check "--dump-config has the zoom key" has "^bind timeline + zoom-in$"
check "--dump-config has every setting" sh -c "grep -c '^set ' '$scr' | grep -qx 4"
cp "$scr" "$cfg"
for k in "" "?" "2" "2e<Down>c" "3<Down>b" "4" "5" "s" "/o<Enter>n" "+++z[" "1<Tab><Tab>"; do
    screen 100x30 "$k" "$small"
    cp "$scr" "$tmp/plain"
    screen 100x30 "$k" "$small" --config "$cfg"
    check "dumped defaults, keys '$k': the same screen" cmp -s "$scr" "$tmp/plain"
    check "dumped defaults, keys '$k': no message" [ ! -s "$tmp/err" ]
done

# --- a theme's colours, in a real terminal
if command -v tmux >/dev/null 2>&1; then
    sock="sv-config-$$"
    t() { tmux -L "$sock" -f /dev/null "$@"; }
    lib_cleanup() { t kill-server 2>/dev/null; }
    svabs=$sv
    smallabs=$(cd "$fx" && pwd)/small.h5
    for theme in default light dark mono; do
        printf 'theme %s\n' "$theme" >"$tmp/$theme.conf"
        t new-session -d -s "$theme" -x 80 -y 24 \
            "env TERM=xterm-256color LANG=C.UTF-8 '$svabs' --config '$tmp/$theme.conf' '$smallabs'; sleep 60"
    done
    for theme in default light dark mono; do # up to 10 s each for the first frame
        n=0
        while [ $n -lt 100 ]; do
            t capture-pane -p -e -t "$theme" >"$tmp/$theme.sgr"
            grep -q "small\.h5" "$tmp/$theme.sgr" && break
            sleep 0.1
            n=$((n + 1))
        done
    done
    # Row 2 is the timeline's header line (role header): cyan on the terminal's own
    # background by default, blue on white with light, cyan on black with dark.
    e=$(printf '\033')
    check "theme default: the header cyan on the default background" \
        sh -c "printf '%s' \"\$(sed -n 2p '$tmp/default.sgr')\" | grep -q '^$e\[36m$e\[49m'"
    check "theme light: the header blue on white" \
        sh -c "printf '%s' \"\$(sed -n 2p '$tmp/light.sgr')\" | grep -q '^$e\[34m$e\[47m'"
    check "theme dark: the header cyan on black" \
        sh -c "printf '%s' \"\$(sed -n 2p '$tmp/dark.sgr')\" | grep -q '^$e\[36m$e\[40m'"
    check "theme mono: no colours" sh -c "! grep -q '\[[0-9;]*[34][0-7]m' '$tmp/mono.sgr' && ! grep -q '[34]8;5;' '$tmp/mono.sgr'"
    check "theme mono: still reverse video" grep -q "$(printf '\033')\[[0-9;]*7m" "$tmp/mono.sgr"
else
    skip "tmux is not installed: the theme colours"
fi
finish
