"""pftrace_check.py -- for downloads.test.js: a /trace.pftrace download
decoded by the tests' independent decoder (tests/perfetto/pftrace.py),
against the /trace.json download of the same snapshot.

    pftrace_check.py TRACE.pftrace TRACE.json

Prints one JSON object: {"counts": what the protobuf holds, "json":
the JSON's own counts (otherData.recorder.written), "diffs": every
difference between the two, "error": a decoding error or null}.

The two downloads are two snapshots of the same quiet program, made one
after the other: a slice still open (flag "open") ends at each snapshot's
time, so its end is left out of the comparison; everything else must be
the same.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "perfetto"))
import pftrace  # noqa: E402


def open_ends_at_begin(events, key, is_open):
    """The end of every open slice moved to its begin, in place: events in
    file order; key(e) the thread, is_open(e) for a begin."""
    stacks = {}
    for e in events:
        st = stacks.setdefault(key(e), [])
        if e["ph"] == "B":
            st.append((e, is_open(e)))
        elif e["ph"] == "E" and st:
            b, op = st.pop()
            if op:
                e["ts"] = b["ts"]


def main():
    pf_path, json_path = sys.argv[1], sys.argv[2]
    with open(json_path) as f:
        js = json.load(f)
    out = {"counts": None, "json": js["otherData"]["recorder"]["written"], "diffs": [], "error": None}
    try:
        pf = pftrace.decode(pf_path)
        open_ends_at_begin(pf["events"], lambda e: e["thread"], lambda e: "open" in (e["cat"] or ""))
        open_ends_at_begin([e for e in js["traceEvents"] if e["ph"] in "BE"], lambda e: e["tid"],
                           lambda e: "open" in e.get("cat", ""))
        out["counts"] = pftrace.counts(pf)
        out["snapshot"] = sorted(pf["snapshot"])
        # The program's own clock: MONOTONIC of ts 0 is its calibration
        # point plus the trace's start (lines up with other Perfetto data).
        st = pf["stats"]
        out["mono_ok"] = st["mono_ns0"] > 0 and pf["snapshot"].get(pftrace.MONOTONIC) == st["mono_ns0"] + st["t0_ns"]
        out["diffs"] = pftrace.compare(pf, js, True, 0)
    except pftrace.DecodeError as e:
        out["error"] = str(e)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
