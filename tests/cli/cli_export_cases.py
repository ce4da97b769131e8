#!/usr/bin/env python3
"""cli_export_cases: test_cli.py's scenarios of the exports -- what the
summary line says against what the file holds, and time windows
(--from/--to).  Run through test_cli.py RECORDER CLI_PROG WORKDIR TEST.
"""
import json
import os
import re
import subprocess

from clitest import (OK, PROG, RECORDER, TIMEOUT, USAGE, WORK, check, remove_segment, require)
from clilive import (launch, one_line_error, reap, rec, start, validate_trace)


# ---- exports: what the summary says, and windows --------------------------

def export_summary(err):
    """The counts of dump/convert/run's summary line."""
    m = re.search(r"wrote .*?: (\d+) slices, (\d+) instants, (\d+) counters, (\d+) flow events \((\d+) trace "
                  r"events\), (\d+) threads", err)
    require(m is not None, f"the export's summary line ({err.strip()[-300:]!r})")
    return dict(zip(("slices", "instants", "counters", "flows", "trace_events", "threads"), map(int, m.groups())))


def file_counts(doc):
    """The same counts, from the file (parsed with a real JSON parser)."""
    n = {}
    for e in doc["traceEvents"]:
        n[e["ph"]] = n.get(e["ph"], 0) + 1
    check(n.get("B", 0) == n.get("E", 0), "as many E as B")
    return {"slices": n.get("B", 0), "instants": n.get("i", 0), "counters": n.get("C", 0),
            "flows": sum(1 for e in doc["traceEvents"] if e["ph"] == "X" and "bind_id" in e),
            "trace_events": sum(v for k, v in n.items() if k != "M"),
            "threads": sum(1 for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name")}


def summary_matches(what, err, path):
    s, f = export_summary(err), file_counts(validate_trace(path))
    check(s == f and f["slices"] > 0, f"{what}: the summary line is what the file holds ({s} vs {f})")


def begins(doc, q):
    """The q-quantile of the slices' begins (us, rounded down): windows
    placed by where the slices are, not by the trace's span, which a late
    event of a descheduled program can stretch."""
    b = sorted(e["ts"] for e in doc["traceEvents"] if e["ph"] == "B")
    require(len(b) > 20, f"the trace has slices ({len(b)})")
    return int(b[int(len(b) * q)])


def activity(cap):
    """Where the capture's slices begin: the 20%, 70% and 50% quantiles
    (us), and its end (us from ts 0)."""
    out = os.path.join(WORK, "span.json")
    code, _, err = rec("convert", cap, "-o", out)
    require(code == OK, f"convert ({err.strip()[-200:]})")
    doc = validate_trace(out)
    other = doc["otherData"]["recorder"]
    return begins(doc, 0.2), begins(doc, 0.7), begins(doc, 0.5), (other["end_ns"] - other["t0_ns"]) / 1000


def test_export_counts():
    # convert of a capture, whole and windowed
    code, so, err, cap = launch([], ["scopes", "40"])
    require(code == OK, f"captured cli_prog scopes ({err.strip()[-200:]})")
    lo, hi, mid, end = activity(cap)
    for extra in ([], ["--last", f"{(end - mid) / 1e6:.6f}"],
                  ["--from", f"{lo / 1e6:.6f}", "--to", f"{hi / 1e6:.6f}"]):
        out = os.path.join(WORK, "conv.json")
        code, _, err = rec("convert", cap, "-o", out, *extra)
        require(code == OK, f"convert {' '.join(extra)} ({err.strip()[-200:]})")
        summary_matches(f"convert {' '.join(extra)}", err, out)
    # dump of a dead program's segment, and of a live one
    env = dict(os.environ, RECORDER_KEEP="1")
    r = subprocess.run([PROG, "scopes", "30"], env=env, cwd=WORK, timeout=TIMEOUT, capture_output=True, text=True)
    pid = int(re.search(r"pid (\d+)", r.stdout).group(1))
    try:
        out = os.path.join(WORK, "dead.json")
        code, _, err = rec("dump", pid, "-o", out)
        check(code == OK and "dead" in err, f"dump of the dead program ({err.strip()[-200:]})")
        summary_matches("dump (dead)", err, out)
    finally:
        remove_segment(pid)
    p, pid = start("hold")
    try:
        out = os.path.join(WORK, "live.json")
        code, _, err = rec("dump", pid, "-o", out)
        check(code == OK and "alive" in err, f"dump of the live program ({err.strip()[-200:]})")
        summary_matches("dump (live)", err, out)
    finally:
        reap(p)
        remove_segment(pid)
    # run: the program's own trace
    out = os.path.join(WORK, "run.json")
    e = dict(os.environ)
    e.pop("RECORDER_KEEP", None)
    r = subprocess.run([RECORDER, "run", "-o", out, "--", PROG, "scopes", "20"], capture_output=True, text=True,
                       cwd=WORK, env=e, timeout=TIMEOUT)
    check(r.returncode == 0, f"run ({r.stderr.strip()[-200:]})")
    summary_matches("run", r.stderr, out)
    # CSV and folded say how many rows they wrote
    for ext, word in (("csv", "rows"), ("folded", "lines")):
        out = os.path.join(WORK, "conv." + ext)
        code, _, err = rec("convert", cap, "-o", out)
        m = re.search(r"wrote .*?: (\d+) " + word, err)
        lines = [l for l in open(out).read().splitlines() if l]
        check(code == OK and m and int(m.group(1)) == len(lines) - (ext == "csv") > 0,
              f"{ext}: the summary's {word} are the file's ({err.strip()[-160:]})")


def slices_of(doc):
    """(tid, name, begin, end, cat) of every B/E pair, in microseconds."""
    out, stacks = [], {}
    for e in doc["traceEvents"]:
        if e["ph"] == "B":
            stacks.setdefault(e["tid"], []).append(e)
        elif e["ph"] == "E":
            b = stacks[e["tid"]].pop()
            out.append((e["tid"], b["name"], b["ts"], e["ts"], b.get("cat")))
    return out


def points_of(doc):
    """Everything that is a point in time: instants, counters, flow events
    (the zero-length "flow" slices, as "f"), as comparable tuples."""
    return [("f" if e["ph"] == "X" else e["ph"], e["tid"], e["name"], e["ts"],
             json.dumps(e.get("args"), sort_keys=True), e.get("cat"), e.get("bind_id", e.get("id")))
            for e in doc["traceEvents"] if e["ph"] in "iC" or (e["ph"] == "X" and "bind_id" in e)]


def window_expected(full, lo, hi):
    """What a window [lo, hi] (us) of the full trace must hold, exactly."""
    sl, pts = [], []
    for tid, name, b, e, cat in slices_of(full):
        if e < lo or b > hi:
            continue
        b2, e2 = max(b, lo), min(e, hi)
        cat2 = cat if (b2, e2) == (b, e) else (cat + ",clipped" if cat else "clipped")
        sl.append((tid, name, b2, e2, cat2))   # a zero-length slice too
    pts += [p for p in points_of(full) if lo <= p[3] <= hi and p[0] in "iC"]
    return sorted(sl), sorted(pts, key=str)


def check_window(what, full, win, lo, hi):
    want_sl, want_pts = window_expected(full, lo, hi)
    require(want_sl and want_pts, f"{what}: the window holds slices and points ({len(want_sl)}, {len(want_pts)})")
    got_sl = sorted(slices_of(win))
    got_pts = sorted([p for p in points_of(win) if p[0] in "iC"], key=str)
    check(got_sl == want_sl, f"{what}: every slice in [{lo}, {hi}] us and nothing else "
          f"({len(got_sl)} vs {len(want_sl)}: {sorted(set(got_sl) ^ set(want_sl))[:4]})")
    check(got_pts == want_pts, f"{what}: every instant and counter in [{lo}, {hi}] us and nothing else "
          f"({len(got_pts)} vs {len(want_pts)}: {sorted(set(got_pts) ^ set(want_pts), key=str)[:4]})")
    fl_full = {p for p in points_of(full) if p[0] in "stf"}
    fl_win = [p for p in points_of(win) if p[0] in "stf"]
    check(all(p in fl_full and lo <= p[3] <= hi for p in fl_win), f"{what}: flow events are the full trace's, inside")
    check(len(win["traceEvents"]) < len(full["traceEvents"]), f"{what}: smaller than the whole")


def test_export_window():
    code, so, err, cap = launch([], ["scopes", "40"])
    require(code == OK, f"captured cli_prog scopes ({err.strip()[-200:]})")
    full_path = os.path.join(WORK, "full.json")
    code, _, err = rec("convert", cap, "-o", full_path)
    full = validate_trace(full_path)
    other = full["otherData"]["recorder"]
    end = (other["end_ns"] - other["t0_ns"]) / 1000
    # --from/--to at whole microseconds (exact in ns, so exact in the
    # file), around the middle of the slices
    lo, hi = begins(full, 0.3), begins(full, 0.6)
    require(hi > lo, f"a window of the slices: [{lo}, {hi}] us")
    out = os.path.join(WORK, "ft.json")
    code, _, err = rec("convert", cap, "-o", out, "--from", f"{lo / 1e6:.6f}", "--to", f"{hi / 1e6:.6f}")
    require(code == OK, f"convert --from --to ({err.strip()[-200:]})")
    check_window("--from/--to", full, validate_trace(out), lo, hi)
    # --last counts back from the end (otherData.end_ns, the capture's end):
    # from the last 30% of the slices' begins on
    last = round(end - begins(full, 0.7)) / 1e6
    out = os.path.join(WORK, "last.json")
    code, _, err = rec("convert", cap, "-o", out, "--last", f"{last:.6f}")
    require(code == OK, f"convert --last ({err.strip()[-200:]})")
    win = validate_trace(out)
    o2 = win["otherData"]["recorder"]
    check(o2["t0_ns"] == other["t0_ns"] and o2["end_ns"] == other["end_ns"], "a window keeps the trace's ts 0 and end")
    lo = (other["end_ns"] - other["t0_ns"] - round(last * 1e9)) / 1000
    check_window("--last", full, win, lo, float("inf"))
    # dump and run take the same options
    code, _, err = rec("dump", cap, "-o", out, "--from", f"{lo / 1e6:.6f}")
    check(code == OK and export_summary(err)["slices"] > 0, f"dump --from ({err.strip()[-120:]})")
    for args in (["--from", "-1"], ["--to", "0"], ["--from", "2", "--to", "1"], ["--to", "x"]):
        code, _, err = rec("convert", cap, "-o", out, *args)
        one_line_error(code, err, USAGE, f"convert {' '.join(args)}")
