#!/usr/bin/python3
"""The Python path a scope-profiler user takes instead of scopeview, as the
benchmark's baseline: h5py reads the columns, numpy computes each region's
count, total, mean, min, max, std, p50/p95/p99 and first start.

Columnar files (schema 2/3): events/durations and start_deltas (or
start_times and end_times) read whole, one row of rank_region_index a
region.  Legacy files: each region's start_times and end_times.  Prints one
line per region (the bench only times it).  Needs python3-h5py and
python3-numpy."""
import sys

import h5py
import numpy as np


def stats(name, dur, first):
    if dur.size == 0:
        return f"{name} 0"
    p50, p95, p99 = np.percentile(dur, [50, 95, 99])
    return (f"{name} {dur.size} {int(dur.sum())} {dur.mean():.6g} {int(dur.min())} "
            f"{int(dur.max())} {dur.std():.6g} {p50:.6g} {p95:.6g} {p99:.6g} {int(first)}")


def columnar(f, out):
    ev, ix = f["events"], f["rank_region_index"]
    off, cnt = ix["event_offsets"][...], ix["event_counts"][...]
    if "durations" in ev:
        dur, starts = ev["durations"][...], ev["start_deltas"][...]
    else:
        starts = ev["start_times"][...]
        dur = ev["end_times"][...] - starts
    for row, (o, c) in enumerate(zip(off, cnt)):
        # schema 3: the row's first delta is its absolute first start
        first = starts[o] if c else 0
        out.append(stats(f"row{row}", dur[o:o + c], first))


def legacy(f, out):
    def visit(name, obj):
        if isinstance(obj, h5py.Group) and "start_times" in obj and "end_times" in obj:
            s = obj["start_times"][...]
            d = obj["end_times"][...] - s
            out.append(stats(name, d, s.min() if s.size else 0))
    f.visititems(visit)


def main():
    out = []
    with h5py.File(sys.argv[1], "r") as f:
        if "events" in f:
            columnar(f, out)
        else:
            legacy(f, out)
    print("\n".join(out))


if __name__ == "__main__":
    main()
