#!/usr/bin/env python3
"""test_check_trace.py CHECK_TRACE -- the checker itself: it must accept a
well-formed trace and reject each kind of broken one with a message that
names the rule.  Other suites rely on it, so each rule is proven to bite.
"""
import json
import os
import subprocess
import sys
import tempfile

M = [{"ph": "M", "pid": 1, "tid": 1, "name": "process_name", "args": {"name": "p"}},
     {"ph": "M", "pid": 1, "tid": 1, "name": "thread_name", "args": {"name": "t"}}]


def ev(ph, ts, name="a", **kw):
    e = {"ph": ph, "pid": 1, "tid": 1, "ts": ts, "name": name}
    e.update(kw)
    return e


def doc(events, **top):
    d = {"traceEvents": M + events}
    d.update(top)
    return json.dumps(d)


GOOD = doc([ev("B", 0), ev("B", 1.5, "b"), ev("s", 2, "flow", cat="flow", id=7), ev("E", 3, "b"),
            ev("X", 4, "c", dur=1.25), ev("i", 4.5, "mark", s="t"), ev("f", 5, "flow", cat="flow", id=7, bp="e"),
            ev("C", 5, "kv", args={"value": 3.5}), ev("X", 6, "flow", cat="flow", dur=0, bind_id=8, flow_out=True),
            ev("X", 7, "flow", cat="flow", dur=0, bind_id=8, flow_in=True), ev("E", 10)],
           otherData={"x": 1})

BAD = [
    ("array form", json.dumps(M + [ev("X", 0, dur=1)]), "object form"),
    ("NaN", doc([ev("X", 0, dur=1)]).replace('"dur": 1', '"dur": NaN'), "not valid JSON"),
    ("Infinity in a counter", doc([ev("C", 0, args={"v": 1})]).replace('"v": 1', '"v": Infinity'), "not valid JSON"),
    ("invalid UTF-8", None, "not valid UTF-8"),
    ("duplicate key", doc([ev("X", 0, dur=1)]).replace('"dur": 1', '"dur": 1, "dur": 2'), "duplicate key"),
    ("key before traceEvents", json.dumps({"foo": 1, "traceEvents": M}), "first top-level key"),
    ("displayTimeUnit", doc([], displayTimeUnit="ns"), "displayTimeUnit"),
    ("4 decimals", doc([ev("X", 1.2345, dur=1)]), "more than 3 decimals"),
    ("dur with 4 decimals", doc([ev("X", 1, dur=0.0001)]), "more than 3 decimals"),
    ("string tid", doc([dict(ev("X", 0, dur=1), tid="x")]), "not an integer"),
    ("float pid", doc([dict(ev("X", 0, dur=1), pid=1.5)]), "not an integer"),
    ("negative tid", doc([dict(ev("X", 0, dur=1), tid=-3)]), "not an integer"),
    ("string ts", doc([ev("X", "5", dur=1)]), "is not a number"),
    ("negative ts", doc([ev("X", -1, dur=1)]), "negative"),
    ("E without B", doc([ev("E", 1)]), "no open B"),
    ("E name mismatch", doc([ev("B", 0, "x"), ev("E", 1, "y")]), "closes B"),
    ("B never closed", doc([ev("B", 0)]), "never closed"),
    ("E category mismatch", doc([ev("B", 0, "x", cat="a"), ev("E", 1, "x", cat="b")]), "closes B of category"),
    ("X overlap", doc([ev("X", 0, "p", dur=10), ev("X", 5, "c", dur=10)]), "without nesting"),
    ("B/E overlap", doc([ev("B", 0, "p"), ev("B", 5, "c"), ev("E", 10, "p"), ev("E", 12, "c")]), "closes B"),
    ("no thread_name", json.dumps({"traceEvents": [M[0], ev("X", 0, dur=1)]}), "no thread_name"),
    ("no process_name", json.dumps({"traceEvents": [M[1], ev("X", 0, dur=1)]}), "no process_name"),
    ("instant without s", doc([ev("i", 0)]), '"s":"t"'),
    ("process instant", doc([ev("i", 0, s="p")]), '"s":"t"'),
    ("counter with a string", doc([ev("C", 0, args={"v": "3"})]), "not a finite number"),
    ("counter without args", doc([ev("C", 0)]), "counter without args"),
    ("flow string id", doc([ev("X", 0, dur=5), ev("s", 1, "flow", id="0x7")]), "flow id"),
    ("flow end without bp", doc([ev("X", 0, dur=5), ev("s", 1, "flow", id=7), ev("f", 2, "flow", id=7)]), "bp"),
    ("flow outside slices", doc([ev("s", 1, "flow", id=7)]), "inside no slice"),
    ("flow end before start", doc([ev("X", 0, dur=5), ev("f", 1, "flow", id=7, bp="e"), ev("s", 2, "flow", id=7)]),
     "no earlier s"),
    ("bind_id string", doc([ev("X", 0, dur=5), ev("X", 1, "flow", dur=0, bind_id="7", flow_out=True)]), "bind_id"),
    ("bind_id without direction", doc([ev("X", 0, dur=5), ev("X", 1, "flow", dur=0, bind_id=7)]),
     "without flow_in or flow_out"),
    ("flow slice with a length", doc([ev("X", 0, dur=5), ev("X", 1, "flow", dur=1, bind_id=7, flow_out=True)]),
     "duration 0"),
    ("flow slice outside slices", doc([ev("X", 1, "flow", dur=0, bind_id=7, flow_out=True)]), "inside no slice"),
    ("flow_in before flow_out", doc([ev("X", 0, dur=5), ev("X", 1, "flow", dur=0, bind_id=7, flow_in=True),
                                     ev("X", 2, "flow", dur=0, bind_id=7, flow_out=True)]), "no earlier flow_out"),
    ("bad ph", doc([ev("Q", 0)]), "bad ph"),
    ("unknown metadata", doc([{"ph": "M", "pid": 1, "tid": 1, "name": "weird", "args": {}}]), "unknown metadata"),
    ("lone surrogate", doc([ev("X", 0, "\ud800", dur=1)]), "lone surrogate"),
]


def run(checker, text_or_bytes, extra=()):
    with tempfile.NamedTemporaryFile("wb", suffix=".json", delete=False) as f:
        f.write(text_or_bytes if isinstance(text_or_bytes, bytes) else text_or_bytes.encode("utf-8", "surrogatepass"))
        path = f.name
    try:
        return subprocess.run([sys.executable, checker, path, *extra], capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(path)


def main():
    checker = sys.argv[1]
    fails = 0
    r = run(checker, GOOD, ["--expect-thread", "t", "--min-slices", "3"])
    if r.returncode != 0:
        print(f"FAIL: a good trace is rejected: {r.stdout}{r.stderr}")
        fails += 1
    r = run(checker, GOOD, ["--expect-thread", "nope"])
    if r.returncode != 1 or "expected thread" not in r.stdout:
        print(f"FAIL: a missing expected thread is not reported: {r.stdout}")
        fails += 1
    r = run(checker, GOOD, ["--summary"])
    s = json.loads(r.stdout) if r.returncode == 0 else {}
    if s.get("slices") != 3 or s.get("max_depth") != 2 or s.get("flows") != 4:
        print(f"FAIL: summary {s}")
        fails += 1
    for what, text, expect in BAD:
        if text is None:
            text = doc([ev("X", 0, "ok", dur=1)]).encode().replace(b'"ok"', b'"\xff"')
        r = run(checker, text)
        if r.returncode != 1 or expect not in r.stdout:
            print(f"FAIL: {what}: exit {r.returncode}, wanted a message with {expect!r}:\n{r.stdout}{r.stderr}")
            fails += 1
    r = subprocess.run([sys.executable, checker, "/nonexistent/trace.json"], capture_output=True, text=True)
    if r.returncode != 2:
        print(f"FAIL: an unreadable file exits {r.returncode}, not 2")
        fails += 1
    if fails:
        print(f"{fails} check(s) failed")
        sys.exit(1)
    print(f"OK: 1 good trace accepted, {len(BAD)} broken ones rejected")


if __name__ == "__main__":
    main()
