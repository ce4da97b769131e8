#!/usr/bin/env python3
"""check_trace.py -- a strict checker for Perfetto / Chrome trace-event JSON.

Usage:
    check_trace.py FILE [--expect-thread NAME]... [--min-slices N]
                        [--summary] [--quiet]

Exit status: 0 the trace passes every rule; 1 it breaks at least one (each
problem is printed, one per line, up to 50); 2 bad arguments or an
unreadable file.  --summary prints a JSON summary on stdout (events by
phase, threads, slice names and counts, flows, otherData) that other tests
can use; otherwise one "OK ..." line.

Other suites call it (tests/cli, tests/web, tests/examples): keep the
command line stable.

The rules are those under which Perfetto's and chrome://tracing's JSON
importers neither drop nor mangle anything (docs/analysis.md):
  * valid UTF-8 and strict JSON (a real parser; NaN/Infinity rejected,
    duplicate keys rejected), the object form {"traceEvents":[...]}, with
    "traceEvents" first and no other top-level key before it, and no
    "displayTimeUnit" (Perfetto would rescale every timestamp);
  * every event an object with a one-letter "ph"; "pid" and "tid" integers
    in [0, 2^32); "ts" a finite number >= 0 with at most 3 decimals (all
    but M events); "dur" the same (X events);
  * per thread, B/E pairs match by name and category (E closes the
    innermost open B; Perfetto ignores an E whose name or cat differs) and
    all slices (B/E and X) are strictly nested: two slices are disjoint or
    one contains the other; nothing is left open;
  * M events: process_name and thread_name with a string args.name; every
    thread with slices or instants has a thread_name, every pid a
    process_name;
  * instants (i/I) have "s":"t" and a tid;
  * counters (C) have a name and args whose values are all finite numbers;
  * flows (s/t/f) have an integer "id", "f" has "bp":"e", each flow event
    lies inside a slice of its thread (that is what it binds to), and a
    t/f has an s with the same id, cat and name no later than itself;
  * flows in the slice-level form (what recorder writes: an X of duration
    0 with "bind_id" and "flow_out" and/or "flow_in" true) have an integer
    bind_id, lie inside another slice of their thread, and a flow_in has a
    flow_out with the same bind_id no later than itself.  They are flow
    events, not counted as slices.
Zero-length slices are B/E pairs (or X) of duration 0, counted as slices.
Times are compared exactly (decimal), as the importers see them.
"""
import argparse
import bisect
import decimal
import json
import sys

D = decimal.Decimal
KNOWN_PH = set("BEXiIcCbneSTpFsftPOND(M)Rv") | {"M"}
META_NAMES = {"process_name", "thread_name", "process_sort_index", "thread_sort_index",
              "process_labels", "process_uptime_seconds", "num_cpus"}
PERFETTO_TOP_KEYS = {"traceEvents", "systemTraceEvents", "metadata", "otherData"}


class Problems:
    def __init__(self, limit=50):
        self.items = []
        self.count = 0
        self.limit = limit

    def add(self, msg):
        self.count += 1
        if len(self.items) < self.limit:
            self.items.append(msg)


def reject_constant(name):
    raise ValueError(f"non-standard JSON constant {name}")


def no_duplicates(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise ValueError(f"duplicate key {k!r}")
        d[k] = v
    return d


def first_key(text):
    """The first key of the top-level object, read with the real parser."""
    dec = json.JSONDecoder()
    i = 0
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    if i >= len(text) or text[i] != "{":
        return None
    i += 1
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    if i >= len(text) or text[i] != '"':
        return None
    key, _ = dec.raw_decode(text, i)
    return key


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return (is_int(v) or isinstance(v, D)) and not isinstance(v, bool)


def decimals_ok(v):
    if is_int(v):
        return True
    t = v.as_tuple()
    return isinstance(t.exponent, int) and t.exponent >= -3


def where(i, ev):
    name = ev.get("name") if isinstance(ev, dict) else None
    return f"event {i} (ph={ev.get('ph') if isinstance(ev, dict) else '?'!s}, name={name!r})"


def check(path, p, expect_threads=(), min_slices=0):
    try:
        raw = open(path, "rb").read()
    except OSError as e:
        print(f"check_trace: cannot read {path}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        p.add(f"not valid UTF-8 at byte {e.start}")
        return None
    try:
        doc = json.loads(text, parse_float=D, parse_constant=reject_constant,
                         object_pairs_hook=no_duplicates)
    except ValueError as e:
        p.add(f"not valid JSON: {e}")
        return None

    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        p.add('not the object form {"traceEvents":[...]}')
        return None
    k0 = first_key(text)
    if k0 != "traceEvents":
        p.add(f'the first top-level key is {k0!r}, not "traceEvents" (Perfetto stops at unknown keys)')
    for k in doc:
        if k == "displayTimeUnit":
            p.add('"displayTimeUnit" present: Perfetto rescales timestamps by it')
        elif k not in PERFETTO_TOP_KEYS:
            p.add(f"unknown top-level key {k!r}: Perfetto ignores everything after it")

    def strings_ok(v, ctx):
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                p.add(f"{ctx}: string with a lone surrogate")
        elif isinstance(v, dict):
            for kk, vv in v.items():
                strings_ok(kk, ctx)
                strings_ok(vv, ctx)
        elif isinstance(v, list):
            for vv in v:
                strings_ok(vv, ctx)

    events = doc["traceEvents"]
    by_ph = {}
    threads = {}          # (pid, tid) -> [events with times]
    thread_names = {}     # (pid, tid) -> name
    process_names = {}
    pids_used = set()
    flows = []
    counters = 0
    for i, ev in enumerate(events):
        if not isinstance(ev, dict):
            p.add(f"event {i} is not an object")
            continue
        strings_ok(ev, where(i, ev))
        ph = ev.get("ph")
        if not isinstance(ph, str) or len(ph) != 1 or ph not in KNOWN_PH:
            p.add(f"{where(i, ev)}: bad ph {ph!r}")
            continue
        by_ph[ph] = by_ph.get(ph, 0) + 1
        for key in ("pid", "tid"):
            if key in ev and (not is_int(ev[key]) or not 0 <= ev[key] < 2 ** 32):
                p.add(f"{where(i, ev)}: {key} {ev[key]!r} is not an integer in [0, 2^32)")
        if "pid" not in ev:
            p.add(f"{where(i, ev)}: no pid")
        pid, tid = ev.get("pid"), ev.get("tid")
        if "name" in ev and not isinstance(ev["name"], str):
            p.add(f"{where(i, ev)}: name is not a string")
        if ph != "M":
            ts = ev.get("ts")
            if not is_num(ts):
                p.add(f"{where(i, ev)}: ts {ts!r} is not a number")
                continue
            if not decimals_ok(ts):
                p.add(f"{where(i, ev)}: ts {ts} has more than 3 decimals")
            if ts < 0:
                p.add(f"{where(i, ev)}: ts {ts} is negative")
        if ph == "M":
            name = ev.get("name")
            if name not in META_NAMES:
                p.add(f"{where(i, ev)}: unknown metadata event")
            if name in ("process_name", "thread_name"):
                args = ev.get("args")
                if not isinstance(args, dict) or not isinstance(args.get("name"), str):
                    p.add(f"{where(i, ev)}: {name} without a string args.name")
                elif name == "process_name":
                    process_names[pid] = args["name"]
                else:
                    if tid is None:
                        p.add(f"{where(i, ev)}: thread_name without a tid")
                    thread_names[(pid, tid)] = args["name"]
            continue
        pids_used.add(pid)
        if ph in "BEX":
            if tid is None:
                p.add(f"{where(i, ev)}: slice without a tid")
                continue
            if ph == "X":
                dur = ev.get("dur")
                if not is_num(dur) or dur < 0:
                    p.add(f"{where(i, ev)}: dur {dur!r} is not a number >= 0")
                    continue
                if not decimals_ok(dur):
                    p.add(f"{where(i, ev)}: dur {dur} has more than 3 decimals")
            if ph in "BX" and not isinstance(ev.get("name"), str):
                p.add(f"{where(i, ev)}: slice without a name")
            if "bind_id" in ev or "flow_in" in ev or "flow_out" in ev:
                fid = ev.get("bind_id")
                if not is_int(fid) or fid < 0:
                    p.add(f"{where(i, ev)}: bind_id {fid!r} is not a non-negative integer")
                fin, fout = ev.get("flow_in", False), ev.get("flow_out", False)
                if not isinstance(fin, bool) or not isinstance(fout, bool) or not (fin or fout):
                    p.add(f"{where(i, ev)}: a bind_id without flow_in or flow_out true")
                if ph != "X" or ev.get("dur") != 0:
                    p.add(f"{where(i, ev)}: a flow slice that is not an X of duration 0")
                flows.append((i, ev))
            threads.setdefault((pid, tid), []).append((i, ev))
        elif ph in "iI":
            if ev.get("s") != "t":
                p.add(f'{where(i, ev)}: instant without "s":"t"')
            if tid is None:
                p.add(f"{where(i, ev)}: instant without a tid")
            threads.setdefault((pid, tid), []).append((i, ev))
        elif ph == "C":
            counters += 1
            args = ev.get("args")
            if not isinstance(ev.get("name"), str):
                p.add(f"{where(i, ev)}: counter without a name")
            if not isinstance(args, dict) or not args:
                p.add(f"{where(i, ev)}: counter without args")
            else:
                for k, v in args.items():
                    if not is_num(v) or (isinstance(v, D) and not v.is_finite()):
                        p.add(f"{where(i, ev)}: counter arg {k!r} = {v!r} is not a finite number")
        elif ph in "stf":
            fid = ev.get("id")
            if not is_int(fid) or fid < 0:
                p.add(f"{where(i, ev)}: flow id {fid!r} is not a non-negative integer")
            if ph == "f" and ev.get("bp") != "e":
                p.add(f'{where(i, ev)}: flow end without "bp":"e"')
            if tid is None:
                p.add(f"{where(i, ev)}: flow without a tid")
            flows.append((i, ev))
            threads.setdefault((pid, tid), []).append((i, ev))

    # Slices: pair B/E per thread in time order (file order on ties, as
    # the importers' stable sorts do), then check strict nesting.
    slices_by_thread = {}
    slice_names = {}
    max_depth = 0
    for key, evs in threads.items():
        evs = sorted(evs, key=lambda ie: (ie[1]["ts"], ie[0]))
        stack, ivals = [], []
        for i, ev in evs:
            ph = ev["ph"]
            if ph == "B":
                stack.append((i, ev))
            elif ph == "E":
                if not stack:
                    p.add(f"{where(i, ev)}: E with no open B on pid {key[0]} tid {key[1]}")
                    continue
                bi, b = stack.pop()
                if "name" in ev and ev["name"] != b.get("name"):
                    p.add(f"{where(i, ev)}: E named {ev['name']!r} closes B {b.get('name')!r}")
                if "cat" in ev and ev["cat"] != b.get("cat"):
                    p.add(f"{where(i, ev)}: E of category {ev['cat']!r} closes B of category {b.get('cat')!r}")
                ivals.append((b["ts"], ev["ts"], b.get("name"), bi))
            elif ph == "X":
                ivals.append((ev["ts"], ev["ts"] + ev["dur"], ev.get("name"), i))
        is_flow = {i for i, ev in evs if ev["ph"] == "X" and "bind_id" in ev}
        for bi, b in stack:
            p.add(f"{where(bi, b)}: B never closed")
        ivals.sort(key=lambda v: (v[0], -v[1], v[3]))
        open_ = []
        for b, e, name, i in ivals:
            while open_ and open_[-1][1] <= b and not (open_[-1][1] == b and e == b):
                open_.pop()
            if open_ and e > open_[-1][1]:
                ob, oe, on, oi = open_[-1]
                p.add(f"event {i} ({name!r} [{b}, {e}]) overlaps event {oi} ({on!r} [{ob}, {oe}]) "
                      f"on pid {key[0]} tid {key[1]} without nesting")
            open_.append((b, e, name, i))
            max_depth = max(max_depth, len(open_))
            if i not in is_flow:
                slice_names[name] = slice_names.get(name, 0) + 1
        slices_by_thread[key] = [v for v in ivals if v[3] not in is_flow]

    # Flows bind to an enclosing slice of their thread; t/f need an earlier s.
    # A slice contains ts iff, among slices beginning at or before ts, the
    # latest end reaches ts: a prefix maximum and a bisection per flow.
    reach = {}
    for key, ivals in slices_by_thread.items():
        begins, best, m = [], [], None
        for b, e, _, _ in ivals:
            m = e if m is None or e > m else m
            begins.append(b)
            best.append(m)
        reach[key] = (begins, best)
    starts = {}
    for i, ev in sorted(flows, key=lambda ie: (ie[1]["ts"], ie[0])):
        key = (ev.get("pid"), ev.get("tid"))
        ts = ev["ts"]
        begins, best = reach.get(key, ([], []))
        k = bisect.bisect_right(begins, ts)
        if not (k and best[k - 1] >= ts):
            p.add(f"{where(i, ev)}: flow at ts {ts} is inside no slice of its thread (it cannot bind)")
        if ev["ph"] == "X":   # the slice-level form
            fkey = ("bind_id", ev.get("bind_id"))
            if ev.get("flow_in") is True and fkey not in starts:
                p.add(f"{where(i, ev)}: flow_in with bind_id {ev.get('bind_id')!r} has no earlier flow_out")
            if ev.get("flow_out") is True:
                starts[fkey] = ts
            continue
        fkey = (ev.get("id"), ev.get("cat"), ev.get("name"))
        if ev["ph"] == "s":
            starts[fkey] = ts
        elif fkey not in starts:
            p.add(f"{where(i, ev)}: flow {ev['ph']} with id {ev.get('id')!r} has no earlier s")

    for key, evs in threads.items():
        if key not in thread_names:
            p.add(f"pid {key[0]} tid {key[1]} has events but no thread_name M event")
    for pid in pids_used:
        if pid not in process_names:
            p.add(f"pid {pid} has no process_name M event")
    names = set(thread_names.values())
    for want in expect_threads:
        if want not in names:
            p.add(f"expected thread {want!r} not found (threads: {sorted(names)})")
    nslices = sum(len(v) for v in slices_by_thread.values())
    if nslices < min_slices:
        p.add(f"{nslices} slices, expected at least {min_slices}")

    def plain(v):
        if isinstance(v, D):
            return float(v) if v != v.to_integral_value() else int(v)
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, list):
            return [plain(x) for x in v]
        return v

    return {
        "events": len(events),
        "by_ph": by_ph,
        "threads": {f"{k[0]}:{k[1]}": n for k, n in thread_names.items()},
        "processes": {str(k): n for k, n in process_names.items()},
        "slices": nslices,
        "slice_names": slice_names,
        "max_depth": max_depth,
        "flows": len(flows),
        "counters": counters,
        "otherData": plain(doc.get("otherData", {})),
    }


def main():
    ap = argparse.ArgumentParser(description="Strict Perfetto/Chrome trace-event JSON checker.")
    ap.add_argument("file")
    ap.add_argument("--expect-thread", action="append", default=[], metavar="NAME")
    ap.add_argument("--min-slices", type=int, default=0)
    ap.add_argument("--summary", action="store_true", help="print a JSON summary on stdout")
    ap.add_argument("--quiet", action="store_true")
    try:
        args = ap.parse_args()
    except SystemExit as e:
        sys.exit(2 if e.code else 0)
    p = Problems()
    summary = check(args.file, p, args.expect_thread, args.min_slices)
    if p.count:
        for msg in p.items:
            print(f"{args.file}: {msg}")
        if p.count > len(p.items):
            print(f"{args.file}: ... and {p.count - len(p.items)} more")
        print(f"check_trace: FAILED: {p.count} problem(s)")
        sys.exit(1)
    if args.summary:
        json.dump(summary, sys.stdout, indent=1, sort_keys=True)
        print()
    elif not args.quiet:
        print(f"OK: {summary['events']} events, {summary['slices']} slices, "
              f"{len(summary['threads'])} threads, max depth {summary['max_depth']}")


if __name__ == "__main__":
    main()
