"""docs/perfetto.md, checked: examples/tour records one event of every kind;
its segment, exported as Perfetto JSON (by librecorder's exporter through
seg_export, or by `recorder dump`), has each form the page shows -- with a
normal ring, and with a 4 KiB ring that loses most of the "burst".

usage: test_tour.py TOUR (--export SEG_EXPORT | --dump RECORDER) [CHECK_TRACE]"""
import json
import os
import re
import subprocess
import sys
import tempfile

from common import Checker, flow_events, no_sanitizer_reports, remove_segment, run_kept, trace_slices


def export(c, tour, exporter, ring_kb, d):
    r = run_kept([tour], env_extra={"RECORDER_RING_KB": ring_kb} if ring_kb else None)
    c.check(r.returncode == 0, f"tour exit status {r.returncode}: {r.stderr}")
    no_sanitizer_reports(c, "tour", r.stderr)
    m = re.search(r"recording to (/dev/shm/recorder\.\d+)", r.stdout)
    if not c.check(m is not None, "tour prints its segment"):
        return None
    path = m.group(1)
    out = os.path.join(d, f"tour{ring_kb}.json")
    try:
        kind, prog = exporter
        argv = [prog, path, out] if kind == "--export" else [prog, "dump", path, "-o", out]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        no_sanitizer_reports(c, argv[0], r.stderr)
        if not c.check(r.returncode == 0, f"{' '.join(argv)}: {r.returncode} {r.stderr.strip()}"):
            return None
    finally:
        remove_segment(path)
    try:
        with open(out) as f:
            return out, json.load(f)
    except ValueError as e:
        c.check(False, f"not JSON: {e}")
        return None


def check_full(c, doc):
    ev = doc["traceEvents"]
    other = doc.get("otherData", {}).get("recorder", {})
    c.check(list(doc)[0] == "traceEvents", "traceEvents comes first")
    c.check(other.get("format") == "recorder trace 1" and other.get("process") == "tour", f"otherData {other}")
    meta = {(e["name"], e["args"].get("name")) for e in ev if e.get("ph") == "M" and "name" in e.get("args", {})}
    c.check({("process_name", "tour"), ("thread_name", "producer"), ("thread_name", "consumer")} <= meta,
            f"process and thread names {sorted(meta)}")
    c.check(any(e.get("ph") == "M" and e.get("name") == "thread_sort_index" for e in ev), "thread_sort_index")
    slices, names, problems = trace_slices(ev)
    for p in problems:
        c.check(False, p)
    tid = {v: k for k, v in names.items()}
    prod = slices.get(tid.get("producer"), [])
    par = {s["name"]: s["parent"] for s in prod}
    c.check(par.get("outer") is None and par.get("inner") == "outer" and par.get("layer.7") == "outer",
            f"nesting outer > inner, layer.7: {par}")
    c.check(all(e.get("ph") != "X" or "bind_id" in e for e in ev), "slices are B/E pairs, not X (X: flow slices)")
    first_ts = min(e["ts"] for e in ev if "ts" in e)
    c.check(first_ts == 0, f"ts starts at 0 ({first_ts})")
    inst = [e for e in ev if e.get("ph") == "i" and e.get("name") == "checkpoint"]
    c.check(len(inst) == 1 and inst[0].get("s") == "t" and inst[0].get("args") == {"msg": "a message of up to 45 bytes"},
            f"instant {inst}")
    cnt = [e for e in ev if e.get("ph") == "C" and e.get("name") == "queue_depth"]
    c.check([e.get("args") for e in cnt] == [{"value": 3}, {"value": 1}], f"counter {cnt}")
    s = [e for e in flow_events(ev) if e["ph"] == "s" and e["id"] == 42]
    f = [e for e in flow_events(ev) if e["ph"] == "f" and e["id"] == 42]
    c.check(len(s) == 1 and len(f) == 1, f"one flow start and finish with id 42 ({len(s)}, {len(f)})")
    if s and f:
        c.check((s[0]["pid"], s[0]["tid"]) == tid.get("producer") and (f[0]["pid"], f[0]["tid"]) == tid.get("consumer"),
                "flow goes producer -> consumer")
        c.check(f[0].get("cat") == "flow" and s[0].get("cat") == "flow" and s[0].get("name") == "flow", "flow fields")
        for e, owner in ((s[0], "produce"), (f[0], "consume")):
            enclosing = [x["name"] for x in slices.get((e["pid"], e["tid"]), []) if x["ts"] <= e["ts"] <= x["end"]]
            c.check(owner in enclosing, f"flow {e['ph']} inside {owner} ({enclosing})")
    opened = [e for e in ev if e.get("name") == "still_open"]
    c.check([(e["ph"], e.get("cat")) for e in opened] == [("B", "open"), ("E", "open")],
            f"open slice {opened}")
    if opened:
        c.check(opened[1]["ts"] == max(e["ts"] for e in ev if "ts" in e), "the open slice ends at the newest event")
    c.check(other.get("entries_overwritten") == 0 and other.get("entries_not_kept") == 0,
            "no loss with the default ring")


def check_loss(c, doc):
    ev = doc["traceEvents"]
    other = doc.get("otherData", {}).get("recorder", {})
    # The ring wrapped before the snapshot read it: history not kept, in
    # the words every tool uses (docs/analysis.md, "Loss").
    lost = [e for e in ev if e.get("name") == "recorder: older entries not kept"]
    c.check(len(lost) >= 1 and lost[0].get("ph") == "i" and lost[0].get("args", {}).get("not_kept", 0) > 0,
            f"a not-kept instant {lost[:1]}")
    c.check(other.get("entries_not_kept", 0) > 0, f"otherData counts it ({other.get('entries_not_kept')})")
    c.check(sum(lost_e["args"]["not_kept"] for lost_e in lost) == other.get("entries_not_kept"),
            "the not-kept instants add up to the total")
    burst = [e for e in ev if e.get("name") == "burst" and e.get("ph") == "B"]
    c.check(burst and burst[0].get("cat") == "begin_lost", f"burst marked begin_lost {burst}")
    if lost and burst:
        c.check(lost[0]["ts"] == burst[0]["ts"], "the loss is shown where the surviving events start")
    slices, _, problems = trace_slices(ev)
    for p in problems:
        c.check(False, p)


def main():
    tour = sys.argv[1]
    exporter = (sys.argv[2], sys.argv[3])
    check_trace = sys.argv[4] if len(sys.argv) > 4 and os.path.exists(sys.argv[4]) else None
    c = Checker()
    with tempfile.TemporaryDirectory() as d:
        for ring_kb, check in (("", check_full), ("4", check_loss)):
            got = export(c, tour, exporter, ring_kb, d)
            if not got:
                continue
            check(c, got[1])
            if check_trace:
                r = subprocess.run([sys.executable, check_trace, got[0]], capture_output=True, text=True, timeout=120)
                c.check(r.returncode == 0, f"check_trace.py: {r.stdout.strip()} {r.stderr.strip()}")
    c.done()


if __name__ == "__main__":
    main()
