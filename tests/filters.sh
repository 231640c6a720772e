#!/bin/sh
# lzf- and zstd-compressed HDF5 files open fully: the generator's col3_full
# with every event column chunked, shuffled and compressed (lzf, filter
# 32000, through Debian's hdf5-plugin-lzf; zstd, 32015, which scopeview
# decodes with libzstd) gives the plain file's --json; with the shared data
# and python3-h5py, an lzf copy of upstream's sp3-basic.h5 (h5py's own lzf)
# matches expected/sp3-basic.json.
. "${0%/*}/lib.sh"
jc="$top_build/tests/jsoncmp"

# same_json A B: --json of A and B equal but for the file names, B without a warning.
same_json() {
    "$sv" --json "$1" 2>"$tmp/err.a" | grep -v '^  "file' >"$tmp/a.json"
    "$sv" --json "$2" 2>"$tmp/err.b" | grep -v '^  "file' >"$tmp/b.json"
    [ -s "$tmp/a.json" ] && cmp -s "$tmp/a.json" "$tmp/b.json" && [ ! -s "$tmp/err.b" ]
}

need_fixture "$fx/col3_full.h5" "$fx/col3_zstd.h5"
for how in lzf zstd; do
    if [ ! -f "$fx/col3_$how.h5" ]; then
        skip "col3_$how.h5 not generated (the lzf plugin, hdf5-plugin-lzf, is not installed)"
        continue
    fi
    check "col3_$how: the plain file's --json, no warning" same_json "$fx/col3_full.h5" "$fx/col3_$how.h5"
    screen 100x30 "5" "$fx/col3_$how.h5"
    check "col3_$how: opens" [ "$rc" = 0 ]
    check "col3_$how: no repack message" hasnt h5repack "$tmp/err"
done

py=
for p in /usr/bin/python3 python3; do
    if "$p" -c 'import h5py' 2>/dev/null; then
        py=$p
        break
    fi
done
# compress SRC DST lzf|zstd: DST is SRC with its numeric datasets compressed.
compress() {
    "$py" - "$@" <<'PY'
import sys, h5py
src, dst, how = sys.argv[1:4]
opts = dict(compression="lzf")
done = 0
with h5py.File(src, "r") as a, h5py.File(dst, "w") as b:
    for k, v in a.attrs.items():
        b.attrs[k] = v
    def walk(name, obj):
        global done
        if isinstance(obj, h5py.Group):
            g = b.require_group(name)
            for k, v in obj.attrs.items():
                g.attrs[k] = v
            return
        parent = name.rsplit("/", 1)[0] if "/" in name else "/"
        b.require_group(parent)
        if obj.dtype.kind in "iuf" or obj.dtype.names:
            if obj.ndim == 1 and obj.size > 0:
                d = b.create_dataset(name, data=obj[()], chunks=True, shuffle=True, **opts)
                done += 1
            else:
                d = b.create_dataset(name, data=obj[()])
        else:
            a.copy(obj, b[parent], name=name.rsplit("/", 1)[-1])
            d = b[name]
        for k, v in obj.attrs.items():
            d.attrs[k] = v
    a.visititems(walk)
print(done)
PY
}

# filtered FILE ID: how many of FILE's /events datasets carry filter ID (read from their
# creation properties: no decoder needed).
filtered() {
    "$py" - "$@" <<'PY'
import sys, h5py
path, fid = sys.argv[1], int(sys.argv[2])
with h5py.File(path, "r") as f:
    e = f["events"]
    n = 0
    for k in e:
        pl = e[k].id.get_create_plist()
        n += any(pl.get_filter(i)[0] == fid for i in range(pl.get_nfilters()))
print(n)
PY
}

if [ -n "$py" ]; then
    for how in lzf:32000 zstd:32015; do
        f="$fx/col3_${how%%:*}.h5"
        [ -f "$f" ] && check "col3_${how%%:*}: its event columns carry filter ${how#*:}" \
            [ "$(filtered "$f" "${how#*:}")" -ge 2 ]
    done
fi
if [ -z "$py" ]; then
    skip "python3-h5py is not installed (scripts/install-deps)"
elif need_shared "upstream/sp3-basic.h5"; then
    up="$shared_root/data/upstream"
    compress "$up/sp3-basic.h5" "$tmp/sp3_lzf.h5" lzf >"$tmp/n"
    check "sp3-basic lzf copy: its columns compressed" [ "$(cat "$tmp/n")" -gt 10 ]
    run --json "$tmp/sp3_lzf.h5"
    check "sp3-basic lzf copy matches expected/sp3-basic.json" \
        "$jc" "$scr" "$up/expected/sp3-basic.json"
    check "sp3-basic lzf copy: no warning" [ ! -s "$tmp/err" ]
fi
finish
