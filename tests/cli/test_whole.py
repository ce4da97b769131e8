#!/usr/bin/env python3
"""`recorder run` keeping the whole run, and wait scopes in `recorder report`.

usage: test_whole.py RECORDER CLI_PROG WORKDIR TEST

The helpers are test_cli.py's (clitest.py, clilive.py; same arguments); each TEST is one function
below, and exits 1 on the first failure.
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import OK, USAGE, PROG, RECORDER, TIMEOUT, WORK, TEST, check, require  # noqa: E402
from clilive import events_named, one_line_error, rec, validate_trace  # noqa: E402
import clitest  # noqa: E402


def run_note(err):
    """What run's summary line says its capture did not get."""
    m = re.search(r"captured while it ran: not kept (\d+) entries \(overwritten before the capture began\); "
                  r"lost (\d+) entries: (\d+) dropped, (\d+) overwritten", err)
    require(m is not None, f"run's summary says what it lost ({err.strip()[-300:]!r})")
    return dict(zip(("history", "lost", "dropped", "overwritten"), map(int, m.groups())))


def export_summary_read(err):
    m = re.search(r"; (\d+) events read from ", err)
    require(m is not None, f"the summary says how many events were read ({err.strip()[-200:]!r})")
    return int(m.group(1))


def run_whole(out, args, env=None):
    e = dict(os.environ)
    for k in ("RECORDER_KEEP", "RECORDER_RING_KB"):
        e.pop(k, None)
    e.update(env or {})
    r = subprocess.run([RECORDER, "run", "-o", out, *map(str, args)], capture_output=True, text=True, cwd=WORK, env=e,
                       timeout=TIMEOUT)
    check(r.returncode == 0, f"run {' '.join(map(str, args[-3:]))}: exit 0 ({r.stderr.strip()[-300:]})")
    lines = r.stderr.strip().splitlines()
    check(len(lines) == 1 and lines[0].startswith("recorder: wrote"), f"one summary line ({r.stderr.strip()!r})")
    return r, run_note(r.stderr)


def test_run_whole():
    # 300000 instants at full speed: over four times what a default ring
    # (1 MiB, 65536 entries) holds, and what `run` kept before it captured.
    # The program starts at once; run's 64 MiB ring holds them all until
    # its capture drains them.
    out = os.path.join(WORK, "whole.json")
    r, n = run_whole(out, ["--", PROG, "spin", 300000], {"CLI_PROG_NOWAIT": "1"})
    doc = validate_trace(out)
    ticks = len(events_named(doc, "tick", "i"))
    check(ticks == 300000 and n == {"history": 0, "lost": 0, "dropped": 0, "overwritten": 0},
          f"every one of 300000 events is in the trace ({ticks}), and nothing was lost ({n})")
    # Rings smaller than the run (RECORDER_RING_KB=1024: 65536 entries per
    # thread; each worker writes 96000): drained while it runs.
    out = os.path.join(WORK, "drained.json")
    # The program waits for run's capture to attach first: under ASan the
    # capture can start after a worker has lapped its ring, and what the
    # ring held then is history, not kept (run says so; see the bound below).
    r, n = run_whole(out, ["--", PROG, "scopes", 12000], {"RECORDER_RING_KB": "1024", "CLI_PROG_WAIT_STREAM": "1"})
    doc = validate_trace(out)
    got = {k: len([e for e in doc["traceEvents"] if e.get("ph") == "B" and e.get("name", "").startswith(k)])
           for k in ("layer", "step", "softmax", "matmul_blk.")}
    got["kv_cache"] = len(events_named(doc, "kv_cache", "C"))
    got["flows"] = len([e for e in doc["traceEvents"]   # flow starts: zero-length "flow" slices with flow_out
                        if e.get("ph") == "X" and e.get("flow_out") and not e.get("flow_in")])
    want = {"layer": 36000, "step": 12000, "softmax": 36000, "matmul_blk.": 36000, "kv_cache": 36000, "flows": 12000}
    check(got == want and n["lost"] == 0 and n["history"] == 0,
          f"rings of 65536 entries, 96000 per thread: every scope, counter and flow kept ({got}, {n})")
    threads = doc["otherData"]["recorder"]["threads"]
    check(len(threads) == 3 and all(t["overwritten"] == 0 and t["dropped"] == 0 for t in threads),
          "and no thread lost anything")
    # A bound (--ring-kb 4: 256 entries) loses most of it, and says exactly
    # how much: every entry written is in the trace, not kept, or lost.
    out = os.path.join(WORK, "bounded.json")
    r, n = run_whole(out, ["--ring-kb", "4", "--", PROG, "spin", 300000], {"CLI_PROG_NOWAIT": "1"})
    ticks = len(events_named(validate_trace(out), "tick", "i"))
    check(n["history"] + n["lost"] > 0 and n["lost"] == n["dropped"] + n["overwritten"],
          f"a 4 KiB ring: the summary says what was not kept or lost ({n})")
    # 300000 ticks, the thread's start and name: 300002 one-entry events.
    read = export_summary_read(r.stderr)
    check(read + n["history"] + n["lost"] == 300002 and read - 2 <= ticks <= read,
          f"kept + not kept + lost == written ({read} + {n['history']} + {n['lost']}; {ticks} ticks)")
    check(not [f for f in os.listdir(WORK) if f.endswith(".rec")], "run's capture files were removed")
    code, _, err = rec("run", "--ring-kb", "3", "--", PROG, "exit", "0")
    one_line_error(code, err, USAGE, "run --ring-kb 3")


def report_thread(rep, name):
    """busy %, wait %, and the rows {name: (total %, calls, wait)} of a thread in a report."""
    m = re.search(r"Thread " + re.escape(name) + r" \(tid \d+\) Showing \d+/\d+ records +([\d.]+)% busy"
                  r"(?:, ([\d.]+)% in wait scopes)?\n(.*?)(?:\n\n|\Z)", rep, re.S)
    require(m is not None, f"the report shows thread {name} ({rep[-600:]!r})")
    rows = {}
    for line in m.group(3).splitlines():
        r = re.match(r"\s+([\d.]+)%\s+[\d.]+\s+(\d+)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+(.*?)( \[wait\])?$", line)
        if r:
            rows[r.group(3)] = (float(r.group(1)), int(r.group(2)), bool(r.group(4)))
    return float(m.group(1)), float(m.group(2) or 0), rows


def spans_of(doc, names):
    """{name: [(begin, end), ...]} of the slices with these names (us),
    complete events and begin/end pairs alike, in time order."""
    out, stacks = {n: [] for n in names}, {}
    for e in doc["traceEvents"]:
        ph, n = e.get("ph"), e.get("name")
        if ph == "X" and n in out:
            out[n].append((e["ts"], e["ts"] + e.get("dur", 0)))
        elif ph == "B":
            stacks.setdefault(e["tid"], []).append(e)
        elif ph == "E" and stacks.get(e["tid"]):
            b = stacks[e["tid"]].pop()
            if b.get("name") in out:
                out[b["name"]].append((b["ts"], e["ts"]))
    return {n: sorted(v) for n, v in out.items()}


def gap_and_wait(doc, wait):
    """The idle gaps between one worker's stretches of work (each step
    less its wait), summed, and its waits summed: what report's gap rows
    and wait row must be in proportion to."""
    sp = spans_of(doc, ("step", wait))
    stretches, waits = [], sp[wait]
    for (sb, se), (wb, we) in zip(sp["step"], waits):
        stretches += [(sb, wb)] + ([(we, se)] if se > we else [])
    gaps = sum(max(0.0, b - e) for (_, e), (b, _) in zip(stretches, stretches[1:]))
    return gaps, sum(e - b for b, e in waits)


def test_report_wait():
    # A thread that spends 90% of each step in a barrier: with
    # REC_SCOPE_WAIT, or a plain scope named by RECORDER_WAIT_SCOPES, it is
    # about 10% busy, the barrier's row is marked and shows its time, and
    # the gap buckets hold the barrier waits (about 90 us each).
    e = {"CLI_PROG_NOWAIT": "1"}
    for kind, name in (("macro", "barrier"), ("named", "ggml_barrier")):
        out = os.path.join(WORK, f"{kind}.rec")
        code, so, err = rec("capture", "-o", out, "--", PROG, "barrier", 400, kind, env=e)
        require(code == OK, f"capture of the barrier program ({kind}): {err.strip()[-200:]}")
        env = {"RECORDER_WAIT_SCOPES": "x,ggml_barrier" if kind == "named" else ""}
        code, rep, err = rec("report", out, env=env)
        require(code == OK, f"report ({kind}): {err.strip()[-200:]}")
        busy, wait, rows = report_thread(rep, "waiter")
        print(f"{kind}: busy {busy}%, wait {wait}%, rows {rows}")
        # Exact shares depend on the scheduler (a spin descheduled for
        # 10 ms is 10 ms of it); what they add up to does not: busy is the
        # steps less their barriers (the work, and the loop around it),
        # the waits are the barriers.
        b, w, st = rows.get(name), rows.get("work"), rows.get("step")
        require(b is not None and w is not None and st is not None, f"{kind}: rows for {name}, work, step ({rows})")
        check(abs(busy - (st[0] - b[0])) < 0.5 and abs(wait - b[0]) < 0.5 and w[0] <= busy + 0.5,
              f"{kind}: busy is step less barrier ({busy}% ~ {st[0]}% - {b[0]}%, work {w[0]}%), waiting is the "
              f"barrier ({wait}% ~ {b[0]}%)")
        check(b[2] and b[1] == 400, f"{kind}: the {name} row shows its time and calls, marked [wait] ({b})")
        check(not rows.get("step", (0, 0, True))[2] and not rows.get("work", (0, 0, True))[2],
              "step and work are not waits")
        # The gap buckets hold the time between stretches of work: every
        # barrier but the last (nothing follows it), and the loop between
        # steps.  How long each took is the scheduler's; the report's gap
        # total must be what the trace's own slices give, in the barrier
        # row's units (both are shares of one span).
        gaps = {k: v for k, v in rows.items() if k.startswith("gap ")}
        calls = sum(v[1] for v in gaps.values())
        share = sum(v[0] for v in gaps.values())
        conv = os.path.join(WORK, f"{kind}.json")
        code, _, err = rec("convert", out, "-o", conv)
        require(code == OK, f"convert of the barrier capture ({kind}): {err.strip()[-200:]}")
        g, w = gap_and_wait(validate_trace(conv), name)
        want = b[0] * g / w if w > 0 else -1
        check(calls >= 399 and abs(share - want) < 0.2,
              f"{kind}: the gap buckets hold the gaps between work ({share}% ~ {want:.2f}%: {gaps})")
    # Without the name, a plain barrier scope is work, as before.
    code, rep, _ = rec("report", os.path.join(WORK, "named.rec"), env={"RECORDER_WAIT_SCOPES": ""})
    busy, wait, rows = report_thread(rep, "waiter")
    check(abs(busy - rows["step"][0]) < 0.5 and wait == 0 and not rows["ggml_barrier"][2],
          f"without RECORDER_WAIT_SCOPES ggml_barrier is busy ({busy}% ~ step {rows['step']})")
    # recorder run's trace of it still has the barrier slices.
    out = os.path.join(WORK, "barrier.json")
    r, n = run_whole(out, ["--", PROG, "barrier", 50, "macro"])
    check(len(events_named(validate_trace(out), "barrier", "B")) == 50, "the trace holds every barrier slice")


TESTS = {n[5:]: f for n, f in globals().items() if n.startswith("test_")}

if __name__ == "__main__":
    if TEST not in TESTS:
        sys.exit(f"unknown test {TEST}; one of {', '.join(TESTS)}")
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    TESTS[TEST]()
    if clitest.failures:
        print(f"{clitest.failures} check(s) failed")
        sys.exit(1)
