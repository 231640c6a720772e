#!/bin/sh
# keys_gen.sh [N [SEED]]: prints N (default 300) timeline navigation keys in
# the --keys syntax, the same sequence for the same N and SEED.
#
# The mix is what a person exploring a profile types: pan (h l <Left>
# <Right>), zoom (+ - around the cursor, z to the selected call, 0 to fit),
# lane and depth moves (j k <Up> <Down>), selection ([ ] <Enter>).  The zoom
# level is kept between 0 and 14 steps in, so the walk visits both dense
# overviews and close-ups.  Keys that leave the timeline (Tab, digits, /, q,
# ?) are never produced.
n=${1:-300}
seed=${2:-12345}
awk -v n="$n" -v seed="$seed" '
# Park-Miller: every product stays exact in a double, so any awk agrees.
function rnd() { state = (state * 16807) % 2147483647; return state / 2147483647 }
function pick(list,   k, m, a) { m = split(list, a, " "); k = int(rnd() * m) + 1; return a[k] }
BEGIN {
    state = seed
    zoom = 0
    out = ""
    for (i = 0; i < n; i++) {
        r = rnd()
        if (r < 0.30)      { k = pick("l h <Right> <Left> l l") }
        else if (r < 0.50) {
            k = (zoom < 14 && (zoom < 3 || rnd() < 0.6)) ? "+" : "-"
            if (zoom == 0 && k == "-") k = "+"
            zoom += (k == "+") ? 1 : -1
        }
        else if (r < 0.72) { k = pick("j k <Down> <Up> j") }
        else if (r < 0.92) { k = pick("] [ ] <Enter>") }
        else if (r < 0.97) { k = "z"; zoom = 8 }
        else               { k = "0"; zoom = 0 }
        out = out k
    }
    printf "%s\n", out
}'
