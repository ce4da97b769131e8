#!/usr/bin/env python3
"""test_export_cases.py EXPORT_CASES CHECK_TRACE -- every hand-built case of
export_cases.c passes check_trace.py and gives its known answer, exported
from a model's log and streamed (rec_export_open): the stream with room to
spare writes the very same files; with a lookahead of 1 to 5 items it still
writes every slice, each with its category or a marker saying what was
learnt after its B was written; and what each export says it wrote is what
its file holds."""
import collections
import csv
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfetto_flows  # noqa: E402  (binds flows as Perfetto's importer does)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def load(d, case):
    return json.load(open(os.path.join(d, case + ".json"), encoding="utf-8"))


def slices(doc, tid=None):
    """[(name, begin, end, args)] from B/E pairs, in begin order."""
    out, stacks = [], {}
    for e in doc["traceEvents"]:
        if e["ph"] not in "BE" or (tid is not None and e["tid"] != tid):
            continue
        st = stacks.setdefault(e["tid"], [])
        if e["ph"] == "B":
            st.append(e)
        else:
            b = st.pop()
            check(b.get("cat") == e.get("cat"), f"B and E of {b['name']} have one category")
            out.append((b["name"], b["ts"], e["ts"], b.get("cat")))
    return sorted(out, key=lambda s: (s[1], -s[2]))


def rows(d, case):
    return {r["name"]: r for r in csv.DictReader(open(os.path.join(d, case + ".csv"), encoding="utf-8"))}


def folded(d, case):
    out = {}
    for line in open(os.path.join(d, case + ".folded"), encoding="utf-8"):
        path, v = line.rstrip("\n").rsplit(" ", 1)
        out[path] = int(v)
    return out


CASES = ["unmatched", "deeper", "generations", "last", "flows", "zero", "counters", "loss", "deep", "empty", "bind",
         "same", "nested"]
RANDOM = ["random1", "random2", "random3"]
LOOKAHEADS = [1, 2, 3, 5]


def counted(doc):
    """What a JSON holds, by the export's own count names."""
    n = collections.Counter(e["ph"] for e in doc["traceEvents"])
    threads = sum(1 for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name")
    flows = sum(1 for e in doc["traceEvents"] if e["ph"] == "X" and "bind_id" in e)
    return {"slices": n["B"], "instants": n["i"], "counters": n["C"], "flows": flows,
            "threads": threads, "trace_events": sum(v for k, v in n.items() if k != "M")}


def names(doc):
    """Slices by name: B events (zero-length slices are B/E pairs too)."""
    out = collections.Counter()
    for e in doc["traceEvents"]:
        if e["ph"] == "B":
            out[e["name"]] += 1
    return out


# Cases of several threads whose files interleave the threads otherwise:
# each thread's events are compared, in their order.
PER_THREAD = {"nested"}


def by_thread(raw):
    doc = json.loads(raw)
    out = {}
    for e in doc["traceEvents"]:
        out.setdefault(e.get("tid"), []).append(e)
    return out


def check_streams(d):
    for case in CASES + RANDOM:
        for k in [0] + LOOKAHEADS:
            doc = load(d, f"{case}.s{k}")
            want = json.load(open(os.path.join(d, f"{case}.s{k}.counts")))
            got = counted(doc)
            check(all(want[key] == got[key] for key in got), f"{case}.s{k}: counts {want} vs the file {got}")
            check(got["slices"] == sum(1 for e in doc["traceEvents"] if e["ph"] == "E"), f"{case}.s{k}: B = E")
    for case in CASES:
        for ext in ("json", "csv", "folded"):
            if case == "bind" and ext == "json":
                continue   # a thread waiting for another's flow start: the same events, interleaved otherwise
            a = open(os.path.join(d, f"{case}.{ext}"), "rb").read()
            b = open(os.path.join(d, f"{case}.s0.{ext}"), "rb").read()
            if case in PER_THREAD and ext == "json":
                a, b = by_thread(a), by_thread(b)
            check(a == b, f"{case}.{ext}: the stream writes what the log export writes")
        full = load(d, f"{case}.s0")
        for k in LOOKAHEADS:
            small = load(d, f"{case}.s{k}")
            check(names(small) == names(full), f"{case}.s{k}: every slice is there: {names(small)} vs {names(full)}")
            check_late(case, k, full, small)
    forced = json.load(open(os.path.join(d, "loss.s1.counts")))
    check(forced["forced"] >= 2 and forced["late_flags"] >= 2, f"loss.s1 took the forced path: {forced}")


def spans(doc):
    """{(tid, name, b, e): cat} of B/E pairs, and the late-flags markers."""
    out, stacks, marks = {}, {}, {}
    for e in doc["traceEvents"]:
        if e["ph"] == "B":
            stacks.setdefault(e["tid"], []).append(e)
        elif e["ph"] == "E":
            b = stacks[e["tid"]].pop()
            out[(e["tid"], b["name"], b["ts"], e["ts"])] = b.get("cat")
        elif e["ph"] == "i" and e["name"] == "recorder: flags known late":
            marks[(e["tid"], e["args"]["slice"], e["ts"])] = e["args"]["flags"]
    return out, marks


def check_late(case, k, full, small):
    """A slice written before its flags were known says them in a marker
    just before its E; nothing else gets a marker."""
    want, _ = spans(full)
    got, marks = spans(small)
    used = set()
    for key, cat in got.items():
        if key not in want or want[key] == cat:
            continue
        mk = (key[0], key[1], key[3])
        check(marks.get(mk) == want[key] and (cat or "") in ("", "clipped"),
              f"{case}.s{k}: {key[1]} at {key[2]} has category {cat!r}, {want[key]!r} in full, marker {marks.get(mk)!r}")
        used.add(mk)
    extra = set(marks) - used - {(t, n, e) for (t, n, b, e) in got if (t, n, b, e) not in want}
    check(not extra, f"{case}.s{k}: markers for nothing learnt late: {extra}")


def check_nested(d):
    """nested's slices, fed well nested on two threads with ties (a third
    of its events at the time of the one before: touching siblings,
    zero-length slices, children that begin or end with their parent),
    are each in every export with the times they were fed, none added:
    the known answer, nested.expect, against the walker's fast path for
    closed slices in order (export_stream.c) and its general one (the
    small lookaheads)."""
    want = collections.Counter()
    for line in open(os.path.join(d, "nested.expect"), encoding="utf-8"):
        tid, name, b, e = line.split()
        want[(int(tid), name, int(b), int(e))] += 1
    t0 = min(k[2] for k in want)
    want = collections.Counter({(t, n, b - t0, e - t0): c for (t, n, b, e), c in want.items()})
    for f in ["nested"] + [f"nested.s{k}" for k in [0] + LOOKAHEADS]:
        got, stacks = collections.Counter(), {}
        for e in load(d, f)["traceEvents"]:
            if e["ph"] == "B":
                stacks.setdefault(e["tid"], []).append(e)
            elif e["ph"] == "E":
                b = stacks[e["tid"]].pop()
                got[(e["tid"], b["name"], round(b["ts"] * 1000), round(e["ts"] * 1000))] += 1
        check(got == want, f"{f}: slices as fed: {sum(want.values())} fed, {sum(got.values())} written, "
                           f"missing {list((want - got).items())[:3]}, added {list((got - want).items())[:3]}")


def check_bind(d):
    """Perfetto's importer (perfetto_flows.py) ties each flow end to the
    slice recorder means: the one open on its thread when the flow was
    recorded (never a zero-length slice that ended there), drawn forward
    in time (the .pftrace's flow instants, tests/perfetto, say the same)."""
    for case in ("bind", "bind.s1", "bind.s2", "flows"):
        slices, arcs = perfetto_flows.bind(load(d, case))

        def meant(k):   # a "flow" slice stands for the slice around it
            s = slices[k]
            return s["parent"] if s["name"] == "flow" and s["cat"] == "flow" else k

        def name(k):
            return None if k is None else slices[k]["name"]
        got = sorted((name(meant(a)), slices[a]["ts"], name(meant(b)), slices[b]["ts"]) for a, b in arcs)
        want = {"flows": [("consumer", 40, "consumer", 55), ("producer", 15, "consumer", 40)]}.get(
            case, [("hop", 680, "enqueue", 710), ("outer", 150, "enqueue", 200), ("work", 550, "hop", 680)])
        check(got == want, f"{case}: Perfetto binds the flows to {got}, recorder means {want}")
        for a, b in arcs:
            check(slices[b]["ts"] >= slices[a]["ts"] + slices[a]["dur"],
                  f"{case}: flow from {name(a)}@{slices[a]['ts']} drawn back to {name(b)}@{slices[b]['ts']}")


def main():
    gen, checker = sys.argv[1], sys.argv[2]
    sys.path.insert(0, os.path.dirname(os.path.abspath(checker)))
    import check_trace
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([gen, d], capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            print(f"export_cases failed: {r.stderr}")
            sys.exit(1)
        for f in sorted(os.listdir(d)):
            if f.endswith(".json"):
                # In this process (its rules, not its command line, are what
                # is tested here): 84 interpreters' start-up saved.
                p = check_trace.Problems()
                check_trace.check(os.path.join(d, f), p)
                check(p.count == 0, f"check_trace {f}: {p.items[:5]}")

        s = slices(load(d, "unmatched"))
        check(s == [("(unknown)", 0, 0.8, "begin_lost"), ("y", 0, 0.2, "begin_lost"),
                    ("x", 0, 0.1, "begin_lost"), ("w", 0.05, 0.08, None), ("open", 0.3, 0.7, None),
                    ("inner", 0.4, 0.6, None), ("zz", 0.4, 0.5, "begin_lost"),
                    ("at-end", 0.85, 0.9, "open")], f"unmatched: {s}")
        other = load(d, "unmatched")["otherData"]["recorder"]
        check(other["unmatched_ends"] == 4, f"unmatched count {other['unmatched_ends']}")

        s = slices(load(d, "deeper"))
        check(s == [("a", 0, 0.3, None), ("b", 0.1, 0.3, "end_lost"), ("c", 0.15, 0.3, "end_lost"),
                    ("d", 0.4, 0.5, None)], f"deeper: {s}")

        g = load(d, "generations")
        by_tid = {}
        for e in g["traceEvents"]:
            if e["ph"] == "B":
                by_tid.setdefault(e["tid"], []).append(e["name"])
        check(by_tid.get(11) == ["job", "job"], f"tid 11 keeps its second generation's job: {by_tid}")
        pts = [(e["ph"], e["name"], e["ts"]) for e in g["traceEvents"] if e["ph"] in "BE" and e["tid"] == 11
               and e.get("cat") == "open"]
        check(len(pts) == 2 and pts[0][1:] == pts[1][1:] and pts[0][1] == "job",
              f"and the first one's (open, no length: a slice of duration 0): {pts}")
        check(not [e for e in g["traceEvents"] if e["ph"] == "i"], "generations: no instants")
        others = [t for t, n in by_tid.items() if n == ["other"]]
        check(len(others) == 1 and others[0] != 11, f"the overlapping claimant of tid 11 gets its own: {by_tid}")
        neg = [t for t, n in by_tid.items() if n == ["neg"]]
        check(len(neg) == 1 and neg[0] >= 0, "a negative tid is replaced")

        s = slices(load(d, "last"))
        # ts 0 is the trace's start (its first item), window or not.
        check(s == [("straddles", 2000000, 2500000, "clipped"), ("child", 2200000, 2300000, None)], f"last: {s}")
        names = [e["name"] for e in load(d, "last")["traceEvents"] if e["ph"] == "i"]
        check(names == ["late-mark"], f"last: instants {names}")
        rw = rows(d, "last")
        check(list(rw) == ["child"] and rw["child"]["calls"] == "1" and rw["child"]["total_ns"] == "100000000",
              f"last CSV: {rw}")
        check(folded(d, "last") == {"straddles;child": 100000000}, f"last folded: {folded(d, 'last')}")

        f = load(d, "flows")
        fl = [(e.get("flow_out", False), e.get("flow_in", False), e["bind_id"], e["tid"]) for e in f["traceEvents"]
              if e["ph"] == "X" and "bind_id" in e]
        check(fl == [(True, False, 2, 1), (True, True, 2, 2), (False, True, 2, 2)], f"flows: {fl}")
        check(not [e for e in f["traceEvents"] if e["ph"] in "stf"], "flows: no legacy s/t/f events")
        check(f["otherData"]["recorder"]["unbound_flows"] == 3, "3 flow events could not bind")

        z = load(d, "zero")
        s = slices(z)
        check(s == [("a", 0, 0.1, None), ("a", 0.1, 0.2, None), ("z", 0.2, 0.2, None), ("p", 0.3, 0.4, None),
                    ("z", 0.35, 0.35, None), ("z", 0.4, 0.4, None)], f"zero: zero-length slices are slices: {s}")
        check(not [e for e in z["traceEvents"] if e["ph"] == "i"], "zero: no instants")
        rw = rows(d, "zero")
        check(rw["z"]["calls"] == "3" and rw["z"]["total_ns"] == "0" and rw["a"]["calls"] == "2", f"zero CSV {rw}")
        fz = folded(d, "zero")
        check(fz.get("z") == 0 and fz.get("p;z") == 0, f"zero folded: the zero-length scopes are there: {fz}")

        c = load(d, "counters")
        vals = [e["args"]["value"] for e in c["traceEvents"] if e["ph"] == "C"]
        check(vals == [1e300, 0, 1e-300, float(2 ** 60), 0.1, -2.5, 123456789.125], f"counters: {vals}")
        check(c["otherData"]["recorder"]["nonfinite_counters"] == 2, "NaN and Inf counted, not written")

        lo = load(d, "loss")
        marks = [e for e in lo["traceEvents"] if e["ph"] == "i" and e["name"] == "recorder: entries lost"]
        # Overwritten entries are older than the read's first event (0.8);
        # dropped ones newer than its last (0.9): a marker at each.
        check(len(marks) == 2 and marks[0]["args"] == {"overwritten": 40, "dropped": 0} and marks[0]["ts"] == 0.8 and
              marks[1]["args"] == {"overwritten": 0, "dropped": 2} and marks[1]["ts"] == 0.9,
              f"loss markers: {marks}")
        s = slices(lo)
        check([x[3] for x in s] == ["gap", "gap", "begin_lost"] and s[2][1] == s[2][2], f"loss: {s}")
        zzz = [e.get("cat") for e in lo["traceEvents"] if e["name"] == "zzz"]
        check(zzz == ["begin_lost", "begin_lost"], f"loss: the unmatched end after the gap (its B and E): {zzz}")
        check(rows(d, "loss") == {}, "nothing around a gap counts in statistics")

        dp = load(d, "deep")
        s = slices(dp)
        check(sum(1 for x in s if x[0] == "r") == 1000, f"deep: {len(s)} slices, 1000 levels")
        check(dp["otherData"]["recorder"]["threads"][0]["too_deep"] == 0, "deep: nothing too deep at 1000 levels")
        bw = [x for x in s if x[0] in ("backwards", "earlier")]
        check(bw == [("earlier", 4.99, 5.99, None), ("backwards", 4.99, 4.99, None)], f"time never goes back: {bw}")
        check([x for x in s if x[0] == "backwards"] == [("backwards", 4.99, 4.99, None)], "backwards has no length")

        check_bind(d)

        for k in (1, 2, 3):
            rd = load(d, f"random{k}")
            n = sum(1 for e in rd["traceEvents"] if e["ph"] == "B")
            check(n > 50, f"random{k}: {n} slices survive")

        e = load(d, "empty")
        check(e["traceEvents"] == [], "an empty model exports an empty trace")
        check(open(os.path.join(d, "empty.csv")).read().count("\n") == 1, "an empty CSV has its header")

        check_streams(d)
        check_nested(d)
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
