#!/usr/bin/env python3
"""test_export.py GEN_TRACE CHECK_TRACE -- the exporters end to end.

gen_trace records a real multi-threaded workload (tests/analysis/gen_trace.c)
and exports it; this checks the files: the JSON passes check_trace.py, holds
what was recorded (threads, the open scope, loss, flows, counters, names with
quotes/backslashes/control bytes/invalid UTF-8 round-tripping), and the CSV
and folded stacks agree with it.  Then rec_json_string is checked against
Python's own UTF-8 decoder on every single byte, known hard sequences and
random byte strings.
"""
import csv
import io
import json
import os
import random
import re
import subprocess
import sys
import tempfile

# The same bytes as in gen_trace.c.
WEIRD_NAME = b'q"uote b\\ack\ttab\x01ctl \xff\xfe bad \xe2\x82 cut \xc3\xbc ok'
WEIRD_MSG = b'm"sg\\ \n\x7f \xc3\x28 \xf0\x9f\x98\x80 end'
WORK_ITERS = 40

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, **kw)


def expected_text(raw):
    """What a consumer must read back: U+FFFD for invalid UTF-8."""
    return raw.decode("utf-8", "replace")


def csv_text(raw):
    return "".join("?" if (ord(c) < 0x20 or c == "\x7f") else c for c in expected_text(raw))


def check_json(gen_dir, check_trace):
    path = os.path.join(gen_dir, "trace.json")
    r = run([sys.executable, check_trace, path, "--summary", "--expect-thread", "main-thread",
             "--expect-thread", "worker-1", "--expect-thread", "worker-2"])
    check(r.returncode == 0, f"check_trace.py trace.json: {r.stdout.strip()} {r.stderr.strip()}")
    for f in ("trace_last.json",):
        r2 = run([sys.executable, check_trace, os.path.join(gen_dir, f)])
        check(r2.returncode == 0, f"check_trace.py {f}: {r2.stdout.strip()} {r2.stderr.strip()}")
    doc = json.load(open(path, encoding="utf-8"))
    evs = doc["traceEvents"]
    tname = {e["tid"]: e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "thread_name"}
    tid_of = {v: k for k, v in tname.items()}
    for t in ("main-thread", "worker-1", "worker-2"):
        check(t in tid_of, f"thread {t} named in the JSON")
    procs = [e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "process_name"]
    check(procs == ["gen_trace"], f"one process_name gen_trace: {procs}")

    begins = [e for e in evs if e["ph"] == "B"]
    names = {e["name"] for e in begins}
    check(expected_text(WEIRD_NAME) in names, "the weird dynamic name round-trips")
    weird = [e for e in evs if e["ph"] == "i" and e["name"] == "weird"]
    check(len(weird) == 1 and weird[0]["args"]["msg"] == expected_text(WEIRD_MSG),
          f"the instant message round-trips: {weird}")
    check(len(weird) == 1 and weird[0]["s"] == "t" and weird[0]["tid"] == tid_of.get("worker-1"),
          "the instant is thread-scoped on worker-1")

    main_tid = tid_of.get("main-thread")
    still = [e for e in begins if e["name"] == "still-open" and e["tid"] == main_tid]
    check(len(still) == 1 and still[0].get("cat") == "open", f"still-open is exported as open: {still}")
    ends = [e for e in evs if e["ph"] == "E" and e["name"] == "still-open"]
    check(len(ends) == 1 and ends[0].get("cat") == "open", "its E has the same category as its B")

    w1 = tid_of.get("worker-1")
    matmul = [e for e in begins if e["name"] == "matmul" and e["tid"] == w1 and "cat" not in e]
    check(len(matmul) == WORK_ITERS, f"{WORK_ITERS} complete matmul slices on worker-1: {len(matmul)}")

    other = doc.get("otherData", {}).get("recorder", {})
    w2 = [t for t in other.get("threads", []) if t.get("name") == "worker-2"]
    # A snapshot of a ring that wrapped before it was read: its older
    # entries were not kept (history), which is not a loss of the reader's.
    check(len(w2) == 1 and w2[0]["not_kept"] > 0 and w2[0]["overwritten"] == 0,
          f"worker-2's ring wrapped and says so: {w2}")
    check(other.get("entries_not_kept", 0) >= (w2[0]["not_kept"] if w2 else 1) and
          other.get("entries_overwritten") == 0, "the total not kept is in otherData")
    lost = [e for e in evs if e["ph"] == "i" and e["name"] == "recorder: older entries not kept"]
    check(any(e["tid"] == tid_of.get("worker-2") and e["args"]["not_kept"] > 0 for e in lost),
          "a not-kept marker sits on worker-2")
    check(any("begin_lost" in e.get("cat", "").split(",") for e in begins if e["tid"] == tid_of.get("worker-2")),
          "worker-2 has slices whose begin was overwritten")

    # Flows in the slice-level form: zero-length "flow" slices carrying them.
    fl = [e for e in evs if e["ph"] == "X" and "bind_id" in e]
    s_ids = sorted(e["bind_id"] for e in fl if e.get("flow_out") and not e.get("flow_in"))
    f_ids = sorted(e["bind_id"] for e in fl if e.get("flow_in") and not e.get("flow_out"))
    check(s_ids == list(range(1000, 1000 + WORK_ITERS)), f"flow starts: {s_ids[:5]}...")
    check(f_ids == s_ids, "every flow ends")
    check(all(e["dur"] == 0 and e["cat"] == "flow" and e["name"] == "flow" for e in fl),
          "flows are zero-length flow slices, bound where they are")
    check(not [e for e in evs if e["ph"] in "stf"], "no legacy flow events")

    kv = [e["args"]["value"] for e in evs if e["ph"] == "C" and e["name"] == "kv_cache"]
    check(kv == [i * 1.5 for i in range(WORK_ITERS)], f"counter values: {kv[:4]}...")

    ts = [e["ts"] for e in evs if "ts" in e]
    check(min(ts) == 0, "timestamps start at 0")
    raw = open(path, "rb").read()
    check(re.search(rb'"ts":-?\d+\.\d{4,}', raw) is None, "no ts with more than 3 decimals")
    check(b"NaN" not in raw and b"Infinity" not in raw, "no NaN/Infinity")
    return doc


def check_csv(gen_dir, doc):
    text = open(os.path.join(gen_dir, "trace.csv"), encoding="utf-8").read()
    lines = text.split("\n")
    check(lines[0] == "name,calls,total_ns,self_ns,min_ns,avg_ns,p50_ns,p95_ns,p99_ns,max_ns,calls_per_sec,file,line",
          f"CSV header: {lines[0]}")
    check(all(line.startswith('"') for line in lines[1:] if line), "names are quoted")
    rows = list(csv.DictReader(io.StringIO(text)))
    by = {r["name"]: r for r in rows}
    for n in ("matmul", "step", "submit"):
        check(n in by, f"CSV has {n}")
    if "matmul" in by:
        r = by["matmul"]
        check(int(r["calls"]) == WORK_ITERS, f"matmul calls {r['calls']}")
        v = [int(r[k]) for k in ("min_ns", "p50_ns", "p95_ns", "p99_ns", "max_ns")]
        check(v == sorted(v) and v[0] > 0, f"min <= p50 <= p95 <= p99 <= max: {v}")
        check(abs(int(r["avg_ns"]) * WORK_ITERS - int(r["total_ns"])) <= WORK_ITERS, "avg * calls = total")
        check(r["self_ns"] == r["total_ns"], "a leaf's self time is its total")
    check(csv_text(WEIRD_NAME) in by, "the weird name is a clean CSV field")
    # Cross-check with the JSON: complete "step" slices there = calls here.
    steps = sum(1 for e in doc["traceEvents"] if e["ph"] == "B" and e["name"] == "step" and "cat" not in e)
    check("step" in by and int(by["step"]["calls"]) == steps, f"step calls {by.get('step', {}).get('calls')} vs JSON {steps}")
    totals = [float(r["total_ns"]) for r in rows]
    check(totals == sorted(totals, reverse=True), "rows by total, descending")
    rows_last = list(csv.DictReader(open(os.path.join(gen_dir, "trace_last.csv"), encoding="utf-8")))
    check(all(int(r["calls"]) > 0 for r in rows_last), "the --last CSV parses")
    return by


def check_folded(gen_dir, by):
    for f in ("trace.folded", "trace_last.folded"):
        text = open(os.path.join(gen_dir, f), encoding="utf-8").read()
        lines = [line for line in text.split("\n") if line]
        bad = [line for line in lines if not re.fullmatch(r"[^;\n]+(;[^;\n]+)* [1-9]\d*", line)]
        check(not bad, f"{f}: malformed lines {bad[:3]}")
    lines = open(os.path.join(gen_dir, "trace.folded"), encoding="utf-8").read().split("\n")
    mm = sum(int(line.rsplit(" ", 1)[1]) for line in lines
             if line and (line.rsplit(" ", 1)[0] + ";").split(";")[-2] == "matmul")
    check(any(line.startswith("step;matmul ") for line in lines), "folded has step;matmul")
    if "matmul" in by:
        check(abs(mm - int(by["matmul"]["self_ns"])) <= 2, f"folded matmul {mm} vs CSV self {by['matmul']['self_ns']}")


def escape_cases():
    cases = [bytes([b]) for b in range(256)]
    cases += [b"", b'"', b"\\", b"\\\"", b"a\x00b", b"\x7f", b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80",
              b"\xe0\x9f\xbf", b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xf0\x80\x80\x80", b"\xf4\x90\x80\x80",
              b"\xf5\x80\x80\x80", b"\xf8\x88\x80\x80\x80", b"\xe2\x82", b"\xe2\x82\xac", b"\xf0\x9f\x98",
              b"\xf0\x9f\x98\x80", b"\xf4\x8f\xbf\xbf", b"\xef\xbf\xbd", b"\xe2\x80\xa8\xe2\x80\xa9",
              b"abc\xffdef\xc3", "żółć ☃ 𝄞".encode(), b"x" * 5000 + b"\xff" + "é".encode() * 3000]
    rnd = random.Random(1234)
    alphabet = [b"a", b"\"", b"\\", b"\n", b"\x01", b"\x7f", "é".encode(), "€".encode(), "😀".encode(),
                b"\x80", b"\xbf", b"\xc2", b"\xe0", b"\xed", b"\xf0", b"\xf4", b"\xff"]
    for _ in range(400):
        cases.append(bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 40))))
        cases.append(b"".join(rnd.choice(alphabet) for _ in range(rnd.randrange(1, 30))))
    return cases


def check_escaping(gen):
    cases = escape_cases()
    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "in.hex"), os.path.join(d, "out.json")
        with open(src, "w") as f:
            for c in cases:
                f.write(c.hex() + "\n")
        r = run([gen, "--escape", src, out])
        check(r.returncode == 0, f"gen_trace --escape: {r.stderr.strip()}")
        raw = open(out, "rb").read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        check(False, f"escaped output is not valid UTF-8: {e}")
        return
    check(not re.search(r"[\x00-\x09\x0b-\x1f\x7f]", text), "no raw control characters in the output")
    got = json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    check(len(got) == len(cases), f"{len(got)} strings back for {len(cases)}")
    bad = [(c, g) for c, g in zip(cases, got) if g != expected_text(c)]
    check(not bad, f"{len(bad)} strings do not round-trip, e.g. {bad[:2]}")


def main():
    if len(sys.argv) != 3:
        print("usage: test_export.py GEN_TRACE CHECK_TRACE", file=sys.stderr)
        sys.exit(2)
    gen, check_trace = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as d:
        r = run([gen, d])
        if r.returncode != 0:
            print(f"gen_trace failed ({r.returncode}): {r.stderr}")
            sys.exit(1)
        doc = check_json(d, check_trace)
        by = check_csv(d, doc)
        check_folded(d, by)
    check_escaping(gen)
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
