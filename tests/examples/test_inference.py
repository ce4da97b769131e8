"""The demo inference runs a few tokens; its segment, read after it exited,
holds what the issue promises: per-op scopes with static and dynamic names
on every thread (the scheduler is thread 0 of the pool, as in ggml), named
threads, token instants, the two counters, and one flow from the scheduler
to each other thread's op slice.  With --export (librecorder's
exporter, through seg_export) or --dump (`recorder dump`), the same segment
is also exported as Perfetto JSON and the file is checked the same way
(and with tests/analysis/check_trace.py when it exists); with --dump,
`recorder report` also shows the barrier as a wait scope.

usage: test_inference.py INFERENCE SEG_EVENTS [--export SEG_EXPORT | --dump RECORDER] [CHECK_TRACE]"""
import json
import os
import re
import subprocess
import sys
import tempfile

from common import (Checker, flow_events, no_sanitizer_reports, read_segment, remove_segment, run_kept,
                    trace_events, trace_slices, walk)

LAYERS, DIM, THREADS, TOKENS, CTX = 2, 128, 3, 6, 4


def main():
    inference, seg_events = sys.argv[1], sys.argv[2]
    rest = sys.argv[3:]
    exporter = None
    if len(rest) >= 2 and rest[0] in ("--export", "--dump"):
        exporter = (rest[0], rest[1])
        rest = rest[2:]
    check_trace = rest[0] if rest and os.path.exists(rest[0]) else None
    c = Checker()
    r = run_kept([inference, "--tokens", str(TOKENS), "--threads", str(THREADS), "--layers", str(LAYERS),
                  "--dim", str(DIM), "--ctx", str(CTX), "--rate", "0"])
    print(r.stdout, r.stderr, sep="")
    c.check(r.returncode == 0, f"exit status {r.returncode}")
    no_sanitizer_reports(c, "inference", r.stderr)
    m = re.search(r"recording to (/dev/shm/recorder\.(\d+))\n", r.stdout)
    if not c.check(m is not None, "prints its segment path"):
        c.done()
    path, pid = m.group(1), m.group(2)
    try:
        c.check(f"recorder-top {pid}" in r.stdout, "prints the command to watch it")
        c.check(f"{TOKENS} tokens in" in r.stdout, "prints a summary")
        if exporter:
            check_export(c, exporter, path, check_trace)
            if exporter[0] == "--dump":
                check_barrier_waits(c, exporter[1], path)
        else:
            check_segment(c, read_segment(seg_events, path))
    finally:
        remove_segment(path)
    c.done()


def check_segment(c, seg):
    c.check(seg["closed"] == 1, "the segment is marked closed (a clean exit)")
    c.check(seg["lost"] == 0 and seg["bad"] == 0, f"no loss ({seg['lost']}) and no bad entries ({seg['bad']})")
    threads = {t["name"]: t for t in seg["threads"]}
    want = {"scheduler"} | {f"worker-{i}" for i in range(1, THREADS)}
    c.check(set(threads) == want, f"threads {sorted(threads)} are {sorted(want)}")
    if "scheduler" not in threads:
        return
    sched_slices, sched_ev, problems = walk(threads["scheduler"])
    for p in problems:
        c.check(False, p)
    names = [s["name"] for s in sched_slices]
    c.check(names.count("token") == TOKENS, f"{TOKENS} token scopes (got {names.count('token')})")
    blk = {n for n in names if n.startswith("blk.")}
    c.check(blk == {f"blk.{i}" for i in range(LAYERS)}, f"per-layer scopes {sorted(blk)}")
    for s in sched_slices:
        if s["name"] in ("graph_compute", "get_rows", "sample"):
            c.check(s["parent"] == "token", f"{s['name']} inside token (in {s['parent']})")
        elif s["name"].startswith("matmul_"):
            c.check(s["parent"] == "matmul", f"{s['name']} inside matmul (in {s['parent']})")
        elif s["name"] not in blk | {"token"}:  # the scheduler's own op slices
            c.check(s["parent"] in blk | {"graph_compute"}, f"{s['name']} inside a layer (in {s['parent']})")
    sched_ops = {s["name"] for s in sched_slices if s["parent"] in blk | {"graph_compute", "matmul"}}
    c.check({"matmul", "matmul_blk.0.attn_q", "matmul_output", "gelu", "barrier"} <= sched_ops,
            f"the scheduler does its share of the ops: {sorted(sched_ops)}")
    inst = [e for e in sched_ev if e["t"] == "I" and e["name"] == "token"]
    c.check(len(inst) == TOKENS, f"{TOKENS} token instants (got {len(inst)})")
    c.check(all(e["depth"] == 0 for e in inst), "token instants between tokens")
    c.check([e["msg"].split()[0] for e in inst] == [f"#{i + 1}" for i in range(TOKENS)],
            f"token messages {[e['msg'] for e in inst]}")
    newseq = [e for e in sched_ev if e["t"] == "I" and e["name"] == "new_sequence"]
    c.check(len(newseq) == (TOKENS - 1) // CTX, f"a new sequence when the cache is full ({len(newseq)})")
    kv = [e["value"] for e in sched_ev if e["t"] == "C" and e["name"] == "kv_cache_KiB"]
    per_pos = 2 * LAYERS * DIM * 4 / 1024
    expect_kv = [per_pos * (i % CTX + 1) for i in range(TOKENS)]
    c.check(kv == expect_kv, f"kv_cache_KiB {kv} == {expect_kv}")
    tps = [e["value"] for e in sched_ev if e["t"] == "C" and e["name"] == "tokens_per_s"]
    c.check(len(tps) == TOKENS and all(v >= 0 for v in tps) and tps[-1] > 0, f"tokens_per_s {tps}")

    # Flows: begun on the scheduler inside a layer, ended in other threads' op slices.
    begun = {}
    for e in sched_ev:
        if e["t"] == "s":
            c.check(e["in"] in blk | {"graph_compute"}, f"flow {e['id']} begins in a layer (in {e['in']})")
            c.check(e["id"] not in begun, f"flow id {e['id']} begun once")
            begun[e["id"]] = e["ns"]
    ended, steps = {}, {}
    op_names = set()
    for i in range(1, THREADS):
        t = threads.get(f"worker-{i}")
        if not t:
            continue
        ws, wev, problems = walk(t)
        for p in problems:
            c.check(False, p)
        op_names |= {s["name"] for s in ws}
        for s in ws:
            if s["name"].startswith("matmul_"):
                c.check(s["parent"] == "matmul", f"{s['name']} nested in matmul (in {s['parent']})")
            else:
                c.check(s["depth"] == 0, f"{s['name']} is a top-level op slice")
        for e in wev:
            if e["t"] in ("t", "f"):
                c.check(e["depth"] > 0, f"flow {e['id']} {e['t']} inside a slice")
                c.check(e["id"] in begun and begun[e["id"]] <= e["ns"], f"flow {e['id']} begun before it arrives")
                c.check(e["id"] & 0xff == i, f"flow {e['id']} goes to worker {i}")
            if e["t"] == "t":
                steps.setdefault(e["id"], []).append(e["in"])
            if e["t"] == "f":
                c.check(e["id"] not in ended, f"flow {e['id']} ends once")
                ended[e["id"]] = e["in"]
    c.check(set(ended) == set(begun), f"every flow ends ({len(begun)} begun, {len(ended)} ended)")
    att = [f for f, ins in steps.items()]
    c.check(att and all(steps[f] == ["attn_scores", "softmax"] and ended.get(f) == "attn_values" for f in att),
            "attention flows step through attn_scores and softmax, end in attn_values")
    want_ops = {f"matmul_blk.{l}.{w}" for l in range(LAYERS)
                for w in ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_up", "ffn_down")}
    want_ops |= {"matmul", "matmul_output", "rms_norm", "rope", "attn_scores", "softmax", "attn_values", "gelu"}
    c.check(op_names == want_ops, f"worker ops: missing {sorted(want_ops - op_names)}, extra {sorted(op_names - want_ops)}")


def check_barrier_waits(c, recorder, path):
    """The scheduler's wait for the stragglers (pool.c's pool_run) is a
    wait scope (REC_SCOPE_WAIT), as the README teaches: `recorder report`
    marks it [wait], so it is not counted as busy (issue 20, item 11)."""
    # --top 1000: every scope, not the default 10 by total time, which a fast
    # run's barriers (a few microseconds) need not reach.
    r = subprocess.run([recorder, "report", path, "--top", "1000"], capture_output=True, text=True, timeout=120)
    if not c.check(r.returncode == 0, f"recorder report: {r.returncode} {r.stderr.strip()}"):
        return
    rows = [l for l in r.stdout.splitlines() if re.search(r"\bbarrier\b", l)]
    c.check(rows and all(l.rstrip().endswith("barrier [wait]") for l in rows),
            f"the barrier is a wait scope in every thread's report: {rows}")


def check_export(c, exporter, path, check_trace):
    """Exports the segment as Perfetto JSON and checks the file."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "trace.json")
        kind, prog = exporter
        argv = [prog, path, out] if kind == "--export" else [prog, "dump", path, "-o", out]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if not c.check(r.returncode == 0, f"{' '.join(argv)}: {r.returncode} {r.stderr.strip()}"):
            return
        try:
            ev = trace_events(out)
        except ValueError as e:
            c.check(False, f"the export is not JSON: {e}")
            return
        check_json(c, ev)
        with open(out) as f:
            other = json.load(f).get("otherData", {}).get("recorder", {})
        for k in ("entries_overwritten", "entries_dropped", "entries_bad", "unmatched_ends"):
            if k in other:
                c.check(other[k] == 0, f"otherData.recorder.{k} == 0 ({other[k]})")
        if check_trace:
            r = subprocess.run([sys.executable, check_trace, out], capture_output=True, text=True, timeout=120)
            c.check(r.returncode == 0, f"check_trace.py: {r.stdout.strip()} {r.stderr.strip()}")


def check_json(c, ev):
    slices, names, problems = trace_slices(ev)
    for p in problems:
        c.check(False, p)
    by_name = {v: k for k, v in names.items()}
    want = {"scheduler"} | {f"worker-{i}" for i in range(1, THREADS)}
    c.check(want <= set(by_name), f"thread names {sorted(names.values())} include {sorted(want)}")
    procs = [e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"]
    c.check(procs == ["inference"], f"process name {procs}")
    sched = by_name.get("scheduler")
    sl = slices.get(sched, [])
    c.check(sum(s["name"] == "token" for s in sl) == TOKENS, "token slices on the scheduler")
    c.check({s["name"] for s in sl if s["parent"] == "token"} == {"get_rows", "graph_compute", "sample"},
            f"token's children {sorted({s['name'] for s in sl if s['parent'] == 'token'})}")
    inst = [e for e in ev if e.get("ph") in ("i", "I") and e.get("name") == "token"]
    c.check(len(inst) == TOKENS and all(e.get("tid") == sched[1] for e in inst), f"{len(inst)} token instants")
    c.check([e.get("args", {}).get("msg", "").split(" ")[0] for e in inst] == [f"#{i + 1}" for i in range(TOKENS)],
            "token instants carry their messages")
    kv = [e["args"]["value"] for e in ev if e.get("ph") == "C" and e.get("name") == "kv_cache_KiB"]
    per_pos = 2 * LAYERS * DIM * 4 / 1024
    c.check(kv == [per_pos * (i % CTX + 1) for i in range(TOKENS)], f"kv_cache_KiB counter {kv}")
    tps = [e for e in ev if e.get("ph") == "C" and e.get("name") == "tokens_per_s"]
    c.check(len(tps) == TOKENS, f"tokens_per_s counter ({len(tps)})")
    ops = set()
    for i in range(1, THREADS):
        key = by_name.get(f"worker-{i}")
        for s in slices.get(key, []):
            ops.add(s["name"])
            if s["name"].startswith("matmul_"):
                c.check(s["parent"] == "matmul", f"{s['name']} inside matmul on worker-{i}")
    c.check({"matmul", "matmul_blk.0.attn_q", "matmul_blk.1.ffn_down", "matmul_output", "softmax", "attn_scores",
             "attn_values", "rms_norm", "rope", "gelu"} <= ops, f"worker ops {sorted(ops)}")
    # Flows (zero-length flow slices): one start on the scheduler and one finish on a worker per id.
    fl = flow_events(ev)
    starts = {e["id"]: e for e in fl if e.get("ph") == "s"}
    ends = {}
    for e in fl:
        if e.get("ph") == "f":
            c.check(e["id"] not in ends, f"flow {e['id']} finishes once")
            ends[e["id"]] = e
    c.check(starts and set(starts) == set(ends), f"flows: {len(starts)} start, {len(ends)} finish")
    c.check(all(e.get("tid") == sched[1] for e in starts.values()), "flows start on the scheduler")
    c.check(all(ends[i]["tid"] != sched[1] and ends[i]["ts"] >= starts[i]["ts"] for i in ends if i in starts),
            "flows finish later, on workers")
    steps = [e for e in fl if e.get("ph") == "t"]
    c.check(steps and all(e["id"] in starts for e in steps), f"flow steps ({len(steps)}) continue started flows")


if __name__ == "__main__":
    main()
