#!/usr/bin/env python3
"""test_pf_names.py PF_NAMES -- Perfetto's interning with many names
(pf_names.c: 6000 names on 3 threads, every 13th without text in the
source), from a model's log and streamed.  On every sequence:
  - each name's text is interned once (one EventName per name, one iid
    per text), and only names the source published are interned;
  - every begin and instant names what pf_names.c fed, in order: an iid
    resolves to the right text, an unpublished name goes as its plain
    "(id N)" string, a Python scope's name (every 7th) shows short, its
    begins with its file and line as args;
and the trace obeys Perfetto's rules (tests/perfetto/pftrace.py)."""
import collections
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "perfetto"))
import pftrace  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def interned(path):
    """Per sequence: the EventNames as (iid, text), in order."""
    trace = pftrace.trace_class().FromString(open(path, "rb").read())
    out = collections.defaultdict(list)
    for p in trace.packet:
        if p.HasField("interned_data"):
            for e in p.interned_data.event_names:
                out[p.trusted_packet_sequence_id].append((e.iid, e.name))
    return out


PY_NAME = re.compile(r"(f\d+) \(m\.py:(\d+)\)")


def shown(kind, name):
    """What an event fed as kind, name shows: a Python scope's name short,
    its file and line as the begin's args (interned: the sequence's
    Python-name bit, PF_IID_PY)."""
    m = PY_NAME.fullmatch(name)
    if not m:
        return (kind, name, {})
    return (kind, m[1], {"file": "m.py", "line": int(m[2])} if kind == "B" else {})


def main():
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([sys.argv[1], d], capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            print(f"pf_names failed: {r.stderr}")
            sys.exit(1)
        want = collections.defaultdict(list)
        for line in open(os.path.join(d, "expect.txt"), encoding="utf-8"):
            tid, kind, name = line.rstrip("\n").split(" ", 2)
            want[int(tid)].append(shown(kind, name))
        check(len(want) == 3 and all(len(v) > 20000 for v in want.values()), "pf_names fed 3 threads")
        for f in ("log.pftrace", "stream.pftrace"):
            path = os.path.join(d, f)
            try:
                pf = pftrace.decode(path)
            except pftrace.DecodeError as e:
                check(False, f"{f}: {e}")
                continue
            tid_of = {u: t["tid"] for u, t in pf["tracks"].items() if t.get("kind") == "thread"}
            got = collections.defaultdict(list)
            for ev in pf["events"]:
                if ev["ph"] in "Bi" and ev["track"] in tid_of:
                    got[tid_of[ev["track"]]].append((ev["ph"], ev["name"], ev["args"] if ev["ph"] == "B" else {}))
            for tid, w in want.items():
                g = got.get(tid, [])
                check(len(g) == len(w), f"{f}: thread {tid}: {len(g)} begins and instants, fed {len(w)}")
                bad = [i for i, (a, b) in enumerate(zip(g, w)) if a != b]
                check(not bad, f"{f}: thread {tid}: {len(bad)} events name the wrong name, first at "
                      f"{bad[:1]}: {[g[i] for i in bad[:1]]} instead of {[w[i] for i in bad[:1]]}")
            seqs = interned(path)
            thread_seqs = [s for s, names in seqs.items() if names]
            check(len(thread_seqs) == 3, f"{f}: names interned on the 3 threads' sequences: {len(thread_seqs)}")
            for s in thread_seqs:
                names = seqs[s]
                texts = collections.Counter(t for _, t in names)
                twice = [t for t, n in texts.items() if n > 1]
                check(not twice, f"{f}: sequence {s}: names interned more than once: {twice[:5]}")
                iids = [i for i, _ in names]
                check(len(set(iids)) == len(iids), f"{f}: sequence {s}: an iid given twice")
                unpublished = [t for t in texts if t.startswith("(id ")]
                check(not unpublished, f"{f}: sequence {s}: unpublished names interned: {unpublished[:3]}")
                # every published name of the 6000 is used on every thread
                check(len(texts) == 6000 - 6000 // 13, f"{f}: sequence {s}: {len(texts)} names interned")
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("ok")


main()
