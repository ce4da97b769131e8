"""test_llama_run.py -- runs the stand-in llama-completion (completion.cpp
over llama_context.cpp and ggml_cpu.c, instrumented with the snippets of
docs/llama.cpp.md) and checks that the trace is what the doc says it is:

- every pool thread records every computed node as an op scope with its
  tensor scope inside (views skipped), a fused RMS_NORM + MUL as one
  RMS_NORM scope that lasts both nodes' work and holds a "fused" instant
  naming the MUL's tensor (on thread 0 only); no MUL scope; an unnamed
  node under its first input's name; every ggml_barrier(), between nodes
  and inside MUL_MAT;
- the workers are named ggml-worker-N, the calling thread keeps its name;
- llama_decode per decode with the n_tokens and pos counters, "build
  graph" only when the graph changes, ggml_graph_compute inside, and a
  "token" instant per generated token;

then that each filter example of the doc keeps what the doc says.

usage: test_llama_run.py COMPLETION SEG_EVENTS"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
from common import Checker, no_sanitizer_reports, read_segment, remove_segment, run_kept, walk  # noqa: E402

THREADS = 3
LAYERS = 2
# What one graph computes on each thread, per layer: (op, tensor scope).
LAYER_OPS = [("RMS_NORM", "norm-{}"), ("MUL_MAT", "Qcur-{}"), ("ROPE", "Qcur-{}"),
             ("FLASH_ATTN_EXT", "Qcur-{} (view) (permuted)"), ("MUL_MAT", "ffn_up-{}")]
GRAPH = [(op, t.format(il)) for il in range(LAYERS) for op, t in LAYER_OPS]
UBATCH_TOKENS = [4, 4, 1, 1, 1, 1]      # the prompt's 8 tokens in ubatches of 4, then 4 tokens
NORM_MUL_US = 20 + 10                   # the fused pair's work per token (llama_context.cpp)
OPS = {op for op, _ in LAYER_OPS} | {"MUL", "VIEW"}


def run(c, prog, seg_events, name, env):
    r = run_kept([prog, "--threads", str(THREADS)], timeout=120, env_extra=dict(env, RECORDER_NAME=name))
    no_sanitizer_reports(c, name, r.stderr)
    if not c.check(r.returncode == 0, f"{name}: exit {r.returncode}: {r.stderr.strip()}"):
        return None
    try:
        return read_segment(seg_events, name)
    finally:
        remove_segment("/dev/shm/recorder." + name)


def threads(seg):
    """(main thread, pool workers by index); main is the one that decoded."""
    main = next(t for t in seg["threads"] if t["tid"] == seg["pid"])
    workers = {}
    for t in seg["threads"]:
        names = [e["name"] for e in t["events"] if e["t"] == "thread_name"]
        for n in names:
            if n.startswith("ggml-worker-"):
                workers[int(n.rsplit("-", 1)[1])] = t
    return main, workers


def op_pairs(slices):
    """(op, tensor) for each op scope and the scope inside it, in order."""
    out = []
    for s in sorted(slices, key=lambda s: s["begin"]):
        if s["name"] in OPS:
            inner = [x for x in slices if x["parent"] == s["name"] and x["depth"] == s["depth"] + 1
                     and s["begin"] <= x["begin"] and x["end"] <= s["end"]]
            out.append((s["name"], inner[0]["name"] if len(inner) == 1 else inner))
    return out


def check_full(c, seg, label):
    main, workers = threads(seg)
    c.check(sorted(workers) == list(range(1, THREADS)), f"{label}: workers named ggml-worker-1..{THREADS - 1}: {sorted(workers)}")
    c.check(not any(e["t"] == "thread_name" and e["name"].startswith("ggml-worker")
                    for e in main["events"]), f"{label}: the calling thread keeps its own name")
    for who, t in [("main", main)] + [(f"worker {i}", w) for i, w in sorted(workers.items())]:
        slices, others, problems = walk(t)
        for p in problems:
            c.check(False, f"{label} {who}: {p}")
        pairs = op_pairs(slices)
        args = [e for e in others if e["t"] == "A"]
        c.check(len(args) == 2 * len(pairs) and all(e["in"] not in OPS and e["in"] is not None for e in args)
                and {e["name"] for e in args} <= {"ne", "type"}
                and all(e["msg"] in ("q8_0", "f32") for e in args if e["name"] == "type"),
                f"{label} {who}: each node's ne and type, inside its tensor's slice ({len(args)} for {len(pairs)})")
        c.check(pairs == GRAPH * len(UBATCH_TOKENS),
                f"{label} {who}: every computed node once per graph, op > tensor, no MUL, no view: {pairs[:12]}")
        fused = [e for e in others if e["t"] == "I" and e["name"] == "fused"]
        c.check([(e["msg"], e["in"]) for e in fused] ==
                ([(f"attn_norm-{il}", f"norm-{il}") for il in range(LAYERS)] * len(UBATCH_TOKENS)
                 if who == "main" else []),
                f"{label} {who}: a 'fused' instant naming the MUL's tensor inside each RMS_NORM, on thread 0 only")
        norms = [s for s in sorted(slices, key=lambda s: s["begin"]) if s["name"] == "RMS_NORM"]
        short = [(round((s["end"] - s["begin"]) / 1000), n * NORM_MUL_US)
                 for s, n in zip(norms, [n for n in UBATCH_TOKENS for _ in range(LAYERS)])
                 if s["end"] - s["begin"] < 0.95 * n * NORM_MUL_US * 1000]
        c.check(not short, f"{label} {who}: the fused RMS_NORM scope lasts the MUL's work too (us, want): {short}")
        # ggml_barrier() itself is the scope: one after each computed node
        # (the last after the loop), and one inside each MUL_MAT.
        barriers = [s for s in slices if s["name"] == "barrier"]
        mul_mats = sum(op == "MUL_MAT" for op, _ in GRAPH)
        c.check(len(barriers) == (len(GRAPH) + mul_mats) * len(UBATCH_TOKENS),
                f"{label} {who}: a barrier after each computed node and one in each MUL_MAT ({len(barriers)})")
        tensors = {t for _, t in GRAPH}
        inside = [s["parent"] for s in barriers if s["parent"] in tensors]
        c.check(sorted(set(inside)) == sorted({t for op, t in GRAPH if op == "MUL_MAT"}) and
                len(inside) == mul_mats * len(UBATCH_TOKENS),
                f"{label} {who}: the barriers inside an op are in its tensor scope: {sorted(set(inside))}")
    slices, others, _ = walk(main)
    decodes = [s for s in slices if s["name"] == "llama_decode"]
    c.check(len(decodes) == 5 and all(s["depth"] == 0 for s in decodes), f"{label}: 5 llama_decode at the top")
    computes = [s for s in slices if s["name"] == "ggml_graph_compute"]
    c.check(len(computes) == len(UBATCH_TOKENS) and all(s["parent"] == "llama_decode" for s in computes),
            f"{label}: a ggml_graph_compute per ubatch, inside llama_decode")
    builds = [s for s in slices if s["name"] == "build graph"]
    c.check(len(builds) == 2 and all(s["parent"] == "llama_decode" for s in builds),
            f"{label}: 'build graph' only when the graph changes (2): {len(builds)}")
    counters = [(e["name"], e["value"]) for e in others if e["t"] == "C"]
    c.check(counters == [("n_tokens", 8), ("pos", 3), ("pos", 7)] +
            [x for i in range(4) for x in (("n_tokens", 1), ("pos", 8 + i))],
            f"{label}: n_tokens per decode, pos per ubatch: {counters}")
    tokens = [(e["msg"], e["in"]) for e in others if e["t"] == "I" and e["name"] == "token"]
    c.check(tokens == [(f"token {100 + i} at {8 + i}", None) for i in range(4)],
            f"{label}: a token instant per generated token: {tokens}")


def names_on(t):
    slices, others, problems = walk(t)
    return ({s["name"] for s in slices}, {e["name"] for e in others if e["t"] in ("C", "I")},
            [s for s in slices], problems)


def main():
    prog, seg_events = sys.argv[1], sys.argv[2]
    label = os.path.basename(prog)
    base = f"llama-doc-{os.getpid()}"
    c = Checker()

    seg = run(c, prog, seg_events, base + "-all", {})
    if seg:
        check_full(c, seg, label)

    # RECORDER_FILTER_OUT=barrier: everything but the barriers.
    seg = run(c, prog, seg_events, base + "-nobarrier", {"RECORDER_FILTER_OUT": "barrier"})
    if seg:
        for t in seg["threads"]:
            scopes, _, _, _ = names_on(t)
            c.check("barrier" not in scopes, f"FILTER_OUT=barrier: no barrier on {t['tid']}")
        main, _ = threads(seg)
        c.check({"llama_decode", "MUL_MAT", "Qcur-0", "RMS_NORM"} <= names_on(main)[0],
                "FILTER_OUT=barrier: the rest is there")

    # RECORDER_FILTER=MUL_MAT/: the matmuls with their tensors, on every thread.
    seg = run(c, prog, seg_events, base + "-mm", {"RECORDER_FILTER": "MUL_MAT/"})
    if seg:
        main, workers = threads(seg)
        for t in [main] + list(workers.values()):
            scopes, points, slices, problems = names_on(t)
            c.check(not problems, f"FILTER=MUL_MAT/: {problems}")
            c.check(scopes == {"MUL_MAT", "Qcur-0", "Qcur-1", "ffn_up-0", "ffn_up-1", "barrier"} and not points,
                    f"FILTER=MUL_MAT/ on {t['tid']}: MUL_MAT with its tensors and their barriers only: "
                    f"{sorted(scopes)} {points}")
            c.check(all((s["parent"] == "MUL_MAT") == (s["name"] not in ("MUL_MAT", "barrier")) for s in slices),
                    f"FILTER=MUL_MAT/ on {t['tid']}: each tensor inside its MUL_MAT")
        c.check(len(workers) == THREADS - 1, "FILTER=MUL_MAT/: thread names are always recorded")

    # RECORDER_FILTER=MUL_MAT/,llama_decode,n_tokens: that, llama_decode and
    # the n_tokens counter by name.
    seg = run(c, prog, seg_events, base + "-mixed", {"RECORDER_FILTER": "MUL_MAT/,llama_decode,n_tokens"})
    if seg:
        main, workers = threads(seg)
        scopes, points, _, _ = names_on(main)
        c.check(scopes == {"llama_decode", "MUL_MAT", "Qcur-0", "Qcur-1", "ffn_up-0", "ffn_up-1", "barrier"},
                f"FILTER=MUL_MAT/,llama_decode,n_tokens: main: {sorted(scopes)}")
        c.check(points == {"n_tokens"}, f"FILTER=MUL_MAT/,llama_decode,n_tokens: main: only n_tokens: {points}")
        for w in workers.values():
            c.check(names_on(w)[0] == {"MUL_MAT", "Qcur-0", "Qcur-1", "ffn_up-0", "ffn_up-1", "barrier"},
                    f"FILTER=MUL_MAT/,llama_decode,n_tokens: worker: {sorted(names_on(w)[0])}")

    # RECORDER_FILTER=llama_decode/: all the decoding thread does inside
    # llama_decode (its share of every op too), nothing of the workers.
    seg = run(c, prog, seg_events, base + "-decode", {"RECORDER_FILTER": "llama_decode/"})
    if seg:
        main, workers = threads(seg)
        scopes, points, slices, _ = names_on(main)
        c.check({"llama_decode", "build graph", "ggml_graph_compute", "RMS_NORM", "MUL_MAT", "barrier"} <= scopes,
                f"FILTER=llama_decode/: main: everything inside llama_decode: {sorted(scopes)}")
        c.check(points == {"n_tokens", "pos", "fused"}, f"FILTER=llama_decode/: main: counters, no token: {points}")
        c.check(all(s["depth"] > 0 or s["name"] == "llama_decode" for s in slices),
                "FILTER=llama_decode/: nothing outside llama_decode")
        for w in workers.values():
            c.check(not names_on(w)[0], f"FILTER=llama_decode/: workers record no scope: {sorted(names_on(w)[0])}")
    c.done()


if __name__ == "__main__":
    main()
