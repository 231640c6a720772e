#!/usr/bin/env python3
"""The exports read by a viewer no one here wrote: speedscope's own page in headless Chromium.

For each profile given, scopeview writes --export chrome, --export speedscope and --folded
(and --folded-ranks); one Chromium run loads every one of them into speedscope's released
page (dist/release/index.html, through the #localProfilePath hook its command line uses),
presses its Ctrl+S (speedscope's own export of what it parsed) and hands the saved JSON
back.  Read back: the profile names, the frames each profile uses and each profile's weight
outside idle time (the sum of its outermost frames).  They must equal figures computed here
from `scopeview --events` rows, in Python, by the rules of the profile format: a lane per
task, else per thread, else the inferred lanes' first fit; a lane's weight the union of its
calls' spans; the folded total the sum of the calls' exclusive times.  The speedscope export
is also validated against the file-format-schema.json speedscope ships.

usage: export_speedscope.py SCOPEVIEW SPEEDSCOPE_RELEASE_DIR WORKDIR PROFILE...
Prints one line per failed check and "N passed, N failed"; exit 1 on a failure."""
import base64
import json
import os
import re
import subprocess
import sys
from decimal import Decimal

SV, RELEASE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
PROFILES = sys.argv[4:]
# Options every export is written with (--out-of-core: the exports streamed from the sweep).
EXPORT_ARGS = os.environ.get("SV_EXPORT_ARGS", "").split()
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {name}{': ' + detail if detail else ''}")


def sv(*args):
    r = subprocess.run([SV, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise RuntimeError(f"scopeview {' '.join(args)}: exit {r.returncode}: {r.stderr.decode()}")
    return r.stdout


def ns(seconds):
    return int((Decimal(str(seconds)) * 1000000000).to_integral_value())


# ------------------------------------------------------------------ scopeview's own figures


def calls_of(profile):
    """Every recorded call: --json for the region names, --events NAME --json for the rows."""
    doc = json.loads(sv("--json", profile))
    names = sorted({r["name"] for r in doc["regions"] if r["has_event_data"] and r["num_calls"]})
    source = {}
    for r in doc["regions"]:
        source.setdefault(r["name"], (r["source_file"], r["source_lineno"]))
    calls = []
    for name in names:
        ev = json.loads(sv("--events", name, "--json", profile), parse_float=Decimal)
        for e in ev["events"]:
            calls.append({
                "name": name, "rank": e["rank"], "index": e["call_index"],
                "start": ns(e["start"]), "end": ns(e["end"]), "excl": ns(e["exclusive"] or 0),
                "thread": e["thread"], "thread_name": e["thread_name"],
                "task": e["task"], "task_name": e["task_name"], "call_id": e["call_id"],
            })
    return calls, source


def first_fit(calls):
    """FORMAT-REFERENCE's inferred lanes: first fit in (start, -end, name, index) order."""
    contains = lambda p, c: p["start"] <= c["start"] and c["end"] <= p["end"]
    stacks = []
    for c in sorted(calls, key=lambda c: (c["start"], -c["end"], c["name"].encode(), c["index"])):
        for k, st in enumerate(stacks):
            while st and st[-1]["end"] <= c["start"] and not contains(st[-1], c):
                st.pop()
            if not st or contains(st[-1], c):
                st.append(c)
                c["lane"] = k
                break
        else:
            stacks.append([c])
            c["lane"] = len(stacks) - 1
    return len(stacks)


def lanes_of(calls):
    """lane name -> calls, named as the timeline names lanes."""
    lanes = {}
    for rank in sorted({c["rank"] for c in calls}):
        mine = [c for c in calls if c["rank"] == rank]
        plain = [c for c in mine if not (c["task"] is not None and c["task"] >= 0)
                 and not (c["thread"] is not None and c["thread"] >= 0)]
        explicit = all(c["call_id"] is not None for c in mine)
        n = 1 if explicit or not plain else first_fit(plain)
        for c in mine:
            if c["task"] is not None and c["task"] >= 0:
                key = f"r{rank} {c['task_name']}"
            elif c["thread"] is not None and c["thread"] >= 0:
                key = f"r{rank} {c['thread_name']}"
            elif n > 1:
                key = f"r{rank} lane {c['lane'] + 1} (inferred)"
            else:
                key = f"r{rank}"
            lanes.setdefault(key, []).append(c)
    return lanes


def union(spans):
    total, reach = 0, None
    for s, e in sorted(spans):
        if reach is None or s > reach:
            total += e - s
            reach = e
        elif e > reach:
            total += e - reach
            reach = e
    return total


# ------------------------------------------------------------------ what speedscope read


def readback_weights(doc):
    """profile name -> (frames used, weight outside idle time) of speedscope's saved file."""
    frames = doc["shared"]["frames"]
    out = {}
    for p in doc["profiles"]:
        used, depth, opened, busy = set(), 0, None, 0
        for e in p["events"]:
            used.add(frames[e["frame"]]["name"])
            if e["type"] == "O":
                if depth == 0:
                    opened = e["at"]
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    busy += e["at"] - opened
        out[p["name"]] = (used, busy)
    return out


PROBE = r"""(function () {
  var files = %s, k = -1, tries = 0, results = [];
  var origURL = URL.createObjectURL;
  HTMLAnchorElement.prototype.click = function () {};
  function finish() {
    clearInterval(timer);
    var pre = document.createElement('pre');
    pre.id = 'sv-readback';
    pre.textContent = JSON.stringify(results);
    document.body.appendChild(pre);
  }
  function next() {
    k++;
    tries = 0;
    if (k >= files.length) { finish(); return; }
    speedscope.loadFileFromBase64(files[k].name, files[k].data);
  }
  URL.createObjectURL = function (blob) {
    var mine = k;
    blob.text().then(function (t) {
      var doc = JSON.parse(t);
      if (mine !== k || files[k].accept.indexOf(doc.name) < 0) return; /* an earlier profile */
      if (results.length > k) return;
      results.push({ok: true, doc: doc});
      next();
    });
    return origURL.call(URL, blob);
  };
  window.alert = function (m) { if (results.length <= k) { results.push({ok: false, error: String(m)}); next(); } };
  var timer = setInterval(function () {
    if (k < 0 || k >= files.length) return;
    if (++tries > 400) { results.push({ok: false, error: 'nothing loaded'}); next(); return; }
    window.dispatchEvent(new KeyboardEvent('keydown', {key: 's', ctrlKey: true}));
  }, 25);
  next();
})();
"""


def run_speedscope(files):
    probe = os.path.join(WORK, "probe.js")
    with open(probe, "w") as fp:
        fp.write(PROBE % json.dumps(files))
    url = "file://" + os.path.join(RELEASE, "index.html") + "#localProfilePath=" + probe
    chromium = os.environ.get("SV_CHROMIUM", "chromium")
    r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        "--allow-file-access-from-files", "--virtual-time-budget=600000",
                        "--user-data-dir=" + os.path.join(WORK, "chromium"), "--dump-dom", url],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=600)
    m = re.search(r'<pre id="sv-readback">(.*?)</pre>', r.stdout.decode(), re.S)
    if not m:
        return None
    import html
    return json.loads(html.unescape(m.group(1)))


# ------------------------------------------------------------------ the checks


def strip_args(name):
    """speedscope names a trace event's frame 'NAME {args as JSON}'."""
    cut = name.rfind(' {"call_index":')
    return name[:cut] if cut >= 0 else name


def validate_schema(path, label):
    try:
        import jsonschema
    except ImportError:
        check(f"{label}: python3-jsonschema present", False)
        return
    with open(os.path.join(RELEASE, "file-format-schema.json")) as fp:
        schema = json.load(fp)
    with open(path) as fp:
        doc = json.load(fp)
    try:
        jsonschema.validate(doc, schema)
        check(f"{label}: valid against speedscope's schema", True)
    except jsonschema.ValidationError as e:
        check(f"{label}: valid against speedscope's schema", False, e.message)


def main():
    files, expect = [], []
    for n, profile in enumerate(PROFILES):
        stem = os.path.basename(profile).split(".")[0]
        calls, source = calls_of(profile)
        if not calls:
            check_empty(profile)
            continue
        lanes = lanes_of(calls)
        # speedscope keeps no frame of zero length: a zero-length call is in the export
        # (check_own) but not among the frames speedscope read.
        want = {k: ({c["name"] for c in v if c["end"] > c["start"]},
                    union([(c["start"], c["end"]) for c in v])) for k, v in lanes.items()}
        for fmt in ("chrome", "speedscope", "folded", "folded-ranks"):
            out = os.path.join(WORK, f"{n}-{stem}-{fmt}.{'txt' if 'folded' in fmt else 'json'}")
            if fmt == "folded-ranks":
                data = sv(*EXPORT_ARGS, "--folded-ranks", profile)
                with open(out, "wb") as fp:
                    fp.write(data)
            else:
                sv(*EXPORT_ARGS, "--export", fmt, profile, out)
            with open(out, "rb") as fp:
                blob = fp.read()
            name = os.path.basename(out)
            accept = [name, os.path.basename(profile)] if fmt == "speedscope" else [name]
            if fmt == "speedscope" and os.path.isdir(profile):
                # a run given as its directory is named after the run's first file
                accept += sorted(os.listdir(profile))
            files.append({"name": name, "data": base64.b64encode(blob).decode(), "accept": accept})
            expect.append((profile, fmt, name, want, calls, source, out))
            if fmt == "speedscope":
                validate_schema(out, f"{profile} speedscope")
                check_own(f"{profile} speedscope", out, lanes)
    got = run_speedscope(files)
    check("speedscope's page ran and gave its readback", got is not None)
    if got is None:
        return
    for (profile, fmt, name, want, calls, source, out), res in zip(expect, got):
        label = f"{profile} {fmt}"
        check(f"{label}: speedscope imported it", res.get("ok"), res.get("error", ""))
        if not res.get("ok"):
            continue
        read = readback_weights(res["doc"])
        if fmt in ("folded", "folded-ranks"):
            check_folded(label, fmt, read, calls, name)
            continue
        if fmt == "chrome":
            named = {}
            for pname, (used, busy) in read.items():
                m = re.fullmatch(r"rank (\d+) \(pid (\d+)\), (.*) \(tid (\d+)\)", pname)
                check(f"{label}: profile name {pname!r} says rank, pid, lane, tid", m is not None)
                if m:
                    check(f"{label}: pid is rank + 1", int(m.group(2)) == int(m.group(1)) + 1)
                    named[m.group(3)] = ({strip_args(f) for f in used}, busy * 1000)
            read = named
        # A call of no length is an instant in the Trace Event export, which speedscope
        # leaves out: a lane of such calls only has no profile there.
        lanes = {k: v for k, v in want.items() if fmt != "chrome" or v[1] > 0}
        check(f"{label}: the lanes", sorted(read) == sorted(lanes),
              f"{sorted(read)} != {sorted(lanes)}")
        for lane, (frames, busy) in lanes.items():
            if lane not in read:
                continue
            rf, rb = read[lane]
            check(f"{label} {lane}: frames", rf == frames, f"{sorted(rf)} != {sorted(frames)}")
            check(f"{label} {lane}: weight", abs(rb - busy) <= 0.5, f"{rb} != {busy}")
        if fmt == "speedscope":
            check_frame_sources(label, res["doc"], source)


def check_empty(profile):
    """A profile without calls (summaries only): exports without events, nothing to load."""
    for fmt in ("chrome", "speedscope"):
        out = os.path.join(WORK, f"empty-{fmt}.json")
        sv("--export", fmt, profile, out)
        with open(out) as fp:
            doc = json.load(fp)
        events = doc["traceEvents"] if fmt == "chrome" else doc["profiles"]
        check(f"{profile} {fmt}: no calls, no events", events == [], f"{events[:3]}")
    check(f"{profile} folded: no calls, no lines", sv("--folded", profile) == b"")


def check_own(label, path, lanes):
    """The export itself: per lane, opens and closes balanced, properly nested, never
    decreasing in time, within [startValue, endValue], one open per call."""
    with open(path) as fp:
        doc = json.load(fp)
    names = [f["name"] for f in doc["shared"]["frames"]]
    got = {}
    for p in doc["profiles"]:
        stack, last, ok, opens = [], p["startValue"], True, []
        for e in p["events"]:
            ok &= e["at"] >= last and e["at"] <= p["endValue"]
            last = e["at"]
            if e["type"] == "O":
                stack.append(e["frame"])
                opens.append(names[e["frame"]])
            else:
                ok &= bool(stack) and stack.pop() == e["frame"]
        check(f"{label} {p['name']}: balanced, nested, in time order", ok and not stack)
        got[p["name"]] = sorted(opens)
    want = {k: sorted(c["name"] for c in v) for k, v in lanes.items()}
    check(f"{label}: one open per call in each lane", got == want)


def check_folded(label, fmt, read, calls, name):
    check(f"{label}: one profile named after the file", list(read) == [name], f"{list(read)}")
    if list(read) != [name]:
        return
    used, busy = read[name]
    frames = {c["name"].replace(";", ":") for c in calls if c["end"] > c["start"]}
    if fmt == "folded-ranks":
        frames |= {f"rank {c['rank']}" for c in calls if c["end"] > c["start"]}
    total = sum(c["excl"] for c in calls)
    check(f"{label}: frames", used == frames, f"{sorted(used)} != {sorted(frames)}")
    check(f"{label}: total weight = the calls' exclusive time", busy == total, f"{busy} != {total}")


def check_frame_sources(label, doc, source):
    for f in doc["shared"]["frames"]:
        file, line = source.get(f["name"], (None, None))
        check(f"{label}: frame {f['name']!r} file", f.get("file") == file, f"{f.get('file')} != {file}")
        check(f"{label}: frame {f['name']!r} line", f.get("line") == line, f"{f.get('line')} != {line}")


main()
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
