"""The demo inference runs a few tokens; its segment, read after it exited,
holds what the issue promises: per-op scopes with static and dynamic names
on named worker threads, token instants, the two counters, and one flow
from the scheduler to each worker slice.  With `recorder` built, its
`recorder dump` of the same segment is valid Perfetto JSON too.

usage: test_inference.py INFERENCE SEG_EVENTS [RECORDER [CHECK_TRACE]]"""
import json
import os
import re
import subprocess
import sys
import tempfile

from common import Checker, read_segment, remove_segment, run_kept, walk

LAYERS, DIM, THREADS, TOKENS, CTX = 2, 128, 3, 6, 4


def main():
    inference, seg_events = sys.argv[1], sys.argv[2]
    recorder = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
    check_trace = sys.argv[4] if len(sys.argv) > 4 and os.path.exists(sys.argv[4]) else None
    c = Checker()
    r = run_kept([inference, "--tokens", str(TOKENS), "--threads", str(THREADS), "--layers", str(LAYERS),
                  "--dim", str(DIM), "--ctx", str(CTX), "--rate", "0"])
    print(r.stdout, r.stderr, sep="")
    c.check(r.returncode == 0, f"exit status {r.returncode}")
    m = re.search(r"recording to (/dev/shm/recorder\.(\d+))\n", r.stdout)
    if not c.check(m is not None, "prints its segment path"):
        c.done()
    path, pid = m.group(1), m.group(2)
    try:
        c.check(f"recorder-top {pid}" in r.stdout, "prints the command to watch it")
        c.check(f"{TOKENS} tokens in" in r.stdout, "prints a summary")
        check_segment(c, read_segment(seg_events, path))
        if recorder:
            check_dump(c, recorder, path, check_trace)
    finally:
        remove_segment(path)
    c.done()


def check_segment(c, seg):
    c.check(seg["closed"] == 1, "the segment is marked closed (a clean exit)")
    c.check(seg["lost"] == 0 and seg["bad"] == 0, f"no loss ({seg['lost']}) and no bad entries ({seg['bad']})")
    threads = {t["name"]: t for t in seg["threads"]}
    want = {"scheduler"} | {f"worker-{i}" for i in range(THREADS)}
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
        if s["name"] == "dispatch":
            c.check(s["parent"] in blk | {"graph_compute"}, f"dispatch inside a layer (in {s['parent']})")
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

    # Flows: begun on the scheduler inside dispatch, ended in worker slices.
    begun = {}
    for e in sched_ev:
        if e["t"] == "s":
            c.check(e["in"] == "dispatch", f"flow {e['id']} begins in a dispatch slice (in {e['in']})")
            c.check(e["id"] not in begun, f"flow id {e['id']} begun once")
            begun[e["id"]] = e["ns"]
    ended, steps = {}, {}
    op_names = set()
    for i in range(THREADS):
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


def check_dump(c, recorder, path, check_trace):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "trace.json")
        r = subprocess.run([recorder, "dump", path, "-o", out], capture_output=True, text=True, timeout=120)
        c.check(r.returncode == 0, f"recorder dump: {r.returncode} {r.stderr.strip()}")
        if r.returncode != 0:
            return
        with open(out) as f:
            doc = json.load(f)
        ev = doc["traceEvents"] if isinstance(doc, dict) else doc
        names = {e.get("name") for e in ev}
        for n in ("token", "matmul", "matmul_blk.0.attn_q", "softmax", "kv_cache_KiB", "tokens_per_s"):
            c.check(n in names, f"dump has {n}")
        phases = {e.get("ph") for e in ev}
        c.check(phases & {"X", "B"}, "dump has slices")
        c.check(phases & {"s", "f"} or any(e.get("ph") in ("s", "f") or "flow_in" in e or "bind_id" in e for e in ev),
                "dump has flows")
        if check_trace:
            r = subprocess.run([sys.executable, check_trace, out], capture_output=True, text=True, timeout=120)
            c.check(r.returncode == 0, f"check_trace.py: {r.stdout.strip()} {r.stderr.strip()}")


if __name__ == "__main__":
    main()
