#!/usr/bin/python3
"""test_cupti_replay.py -- real H100 CUPTI data through the conversion.

    test_cupti_replay.py CUPTI_REPLAY FIXTURES_DIR WORK_DIR

Replays each fixture (cu_, torch_) to JSON and checks it against
records.jsonl, read here with the json module (an independent parser):
  - every CONCURRENT_KERNEL, MEMCPY, MEMSET and SYNCHRONIZATION record is
    exactly one slice on its lane ("GPU<d> stream <s>", "#k" sub-lanes of
    it, "GPU<d> sync" for a sync on no stream), named as docs/gpu.md says
    (kernels demangled, as c++filt demangles them), lasting end - start
    (to 1 us), starting where CUPTI says (one offset for all, to 5 us);
  - kernels carry an "args" instant with grid and block, copies and
    memsets one with their bytes;
  - every kernel, copy and memset is linked by a flow (GPU_FLOW_ID of its
    correlationId) to the API slice that launched it, on its thread's lane;
  - every NVTX start/end pair is a slice, every mark an instant, on the
    lane of the thread that made it;
  - the summary counts no malformed and no lost record;
  - with --api, every RUNTIME and DRIVER record is an API slice;
  - the struct layout cupti_replay reads (--layout) is the fixture's.
"""
import json
import os
import shutil
import subprocess
import sys

FLOW_BIT = 1 << 55
COPY = {0: "memcpy", 1: "memcpy HtoD", 2: "memcpy DtoH", 3: "memcpy HtoA", 4: "memcpy AtoH", 5: "memcpy AtoA",
        6: "memcpy AtoD", 7: "memcpy DtoA", 8: "memcpy DtoD", 9: "memcpy HtoH", 10: "memcpy PtoP"}
SYNC = {0: "sync", 1: "sync event", 2: "sync stream wait event", 3: "sync stream", 4: "sync context"}
GPU_KINDS = ("CONCURRENT_KERNEL", "KERNEL", "MEMCPY", "MEMSET", "SYNCHRONIZATION")

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def demangle(names):
    names = sorted(set(names))
    if not names:
        return {}
    out = subprocess.run(["c++filt"], input="\n".join(names) + "\n", capture_output=True, text=True,
                         check=True).stdout.split("\n")
    return dict(zip(names, out))


def pairs(kv):
    """A sync record says "type" twice ("record", then its sync type): the
    second is kept as "type#2"."""
    d = {}
    for k, v in kv:
        d[k + "#2" if k in d else k] = v
    return d


def api_name(n):
    base, _, v = n.rpartition("_v")
    return base if base and v.isdigit() else n


def thread_lane(tid):
    t = tid & 0x7FFFFFFF
    return "thread %d" % (t if t else 0x7FFFFFFF)


def load_export(path):
    d = json.load(open(path))
    ev = d["traceEvents"] if isinstance(d, dict) else d
    names, slices, instants, flows = {}, [], [], []
    stacks = {}
    for e in ev:
        ph, tid = e.get("ph"), e.get("tid")
        if ph == "M" and e.get("name") == "thread_name":
            names[tid] = e["args"]["name"]
        elif ph == "B":
            stacks.setdefault(tid, []).append(e)
        elif ph == "E":
            b = stacks[tid].pop()
            slices.append({"tid": tid, "name": b["name"], "ts": b["ts"], "dur": e["ts"] - b["ts"],
                           "args": b.get("args", {})})
        elif ph == "X" and e.get("cat") == "flow":
            flows.append(e)
        elif ph == "X":
            slices.append({"tid": tid, "name": e["name"], "ts": e["ts"], "dur": e.get("dur", 0),
                           "args": e.get("args", {})})
        elif ph in ("i", "I"):
            instants.append(e)
    return names, slices, instants, flows


def lane_base(name):
    base, sep, k = name.rpartition(" #")
    return base if sep and k.isdigit() and 2 <= int(k) <= 8 else name


def check_fixture(replay, fixtures, work, prefix):
    bufs = os.path.join(fixtures, prefix + "_buffers.bin")
    recs_path = os.path.join(fixtures, prefix + "_records.jsonl")
    out = os.path.join(work, prefix + ".json")
    p = subprocess.run([replay, bufs, recs_path, "-o", out], capture_output=True, text=True, timeout=120)
    if not check(p.returncode == 0, "%s: cupti_replay exited %d: %s" % (prefix, p.returncode, p.stderr)):
        return
    line = [l for l in p.stdout.splitlines() if l.startswith("cupti_replay: records")]
    check(len(line) == 1, "%s: no summary line in %r" % (prefix, p.stdout))
    counts = dict((k, int(v)) for k, v in (x.strip().split(" ") for x in line[0].split(":", 1)[1].split(",")))
    check(counts["malformed"] == 0 and counts["lost"] == 0, "%s: summary %s" % (prefix, line[0]))

    recs = [json.loads(l, object_pairs_hook=pairs) for l in open(recs_path) if l.strip()]
    recs = [r for r in recs if r.get("type") == "record"]
    # --api: every runtime and driver call is a slice (they all nest).
    n_api = sum(1 for r in recs if r["kind_name"] in ("RUNTIME", "DRIVER"))
    pa = subprocess.run([replay, bufs, recs_path, "-o", os.path.join(work, prefix + "_api.json"), "--api"],
                        capture_output=True, text=True, timeout=120)
    check(pa.returncode == 0 and (" api %d, " % n_api) in pa.stdout and " lost 0" in pa.stdout,
          "%s --api: %d API records, %r" % (prefix, n_api, pa.stdout))
    ctx_dev = {}
    for r in recs:
        if r["kind_name"] in ("CONTEXT", "CONCURRENT_KERNEL", "KERNEL", "MEMCPY", "MEMSET"):
            ctx_dev[r["contextId"]] = r["deviceId"]
    dm = demangle(r["name"] for r in recs if r["kind_name"] in ("CONCURRENT_KERNEL", "KERNEL"))
    names, slices, instants, flows = load_export(out)

    # ---- GPU work: one slice each, on its lane, with its duration ----
    expect = []
    for r in recs:
        k = r["kind_name"]
        if k not in GPU_KINDS:
            continue
        if k == "SYNCHRONIZATION":
            dev = ctx_dev.get(r["contextId"], 0)
            lane = "GPU%d sync" % dev if r["streamId"] == 0xFFFFFFFF else "GPU%d stream %d" % (dev, r["streamId"])
            name = SYNC.get(r["type#2"], "sync")
        else:
            lane = "GPU%d stream %d" % (r["deviceId"], r["streamId"])
            name = dm[r["name"]] if k in ("CONCURRENT_KERNEL", "KERNEL") else \
                COPY.get(r["copyKind"], "memcpy") if k == "MEMCPY" else "memset"
        expect.append((lane, name, r))
    gpu_slices = [s for s in slices if lane_base(names.get(s["tid"], "")).startswith("GPU")]
    check(len(gpu_slices) == len(expect), "%s: %d GPU slices for %d GPU records" % (prefix, len(gpu_slices), len(expect)))
    by_lane = {}
    for s in gpu_slices:
        by_lane.setdefault(lane_base(names[s["tid"]]), []).append(s)
    rec_by_lane = {}
    for lane, name, r in expect:
        rec_by_lane.setdefault(lane, []).append((name, r))
    offsets = []
    matched = []
    for lane, rs in rec_by_lane.items():
        ss = sorted(by_lane.get(lane, []), key=lambda s: s["ts"])
        rs.sort(key=lambda x: x[1]["start"])
        if not check(len(ss) == len(rs), "%s: lane %s: %d slices for %d records" % (prefix, lane, len(ss), len(rs))):
            continue
        for s, (name, r) in zip(ss, rs):
            dur = (r["end"] - r["start"]) / 1000.0
            check(s["name"] == name, "%s: lane %s: slice %r, record wants %r" % (prefix, lane, s["name"], name))
            check(abs(s["dur"] - dur) <= 1.0, "%s: %s on %s lasts %.3f us, CUPTI says %.3f" % (
                prefix, name, lane, s["dur"], dur))
            offsets.append(s["ts"] - r["start"] / 1000.0)
            matched.append((s, r))
    if offsets:
        mid = sorted(offsets)[len(offsets) // 2]
        check(all(abs(o - mid) <= 5.0 for o in offsets), "%s: starts not where CUPTI put them" % prefix)

    # ---- args instants and flows to the launches ----
    inst_at = {}
    for e in instants:
        inst_at.setdefault((e["tid"], e["ts"], e["name"]), []).append(e)
    flow_in = {}
    flow_out = {}
    for f in flows:
        (flow_in if f.get("flow_in") else flow_out).setdefault(f["bind_id"], []).append(f)
    api = {}
    for r in recs:
        if r["kind_name"] in ("RUNTIME", "DRIVER"):
            api[r["correlationId"]] = r
    api_slices = {}
    for s in slices:
        api_slices.setdefault((s["tid"], s["name"]), []).append(s)
    for s, r in matched:
        k = r["kind_name"]
        if k == "SYNCHRONIZATION":
            continue
        if k in ("CONCURRENT_KERNEL", "KERNEL"):
            msg = "grid=(%d,%d,%d) block=(%d,%d,%d)" % tuple(r["grid"] + r["block"])
        else:
            msg = "%d bytes" % r["bytes"]
        got = [e.get("args", {}).get("msg") for e in inst_at.get((s["tid"], s["ts"], "args"), [])]
        folded = s["args"] and (msg in json.dumps(s["args"]) or "grid" in s["args"] or "bytes" in s["args"])
        check(msg in got or folded, "%s: %s has no args %r (got %r)" % (prefix, s["name"], msg, got))
        fid = FLOW_BIT | r["correlationId"]
        fi = [f for f in flow_in.get(fid, []) if f["tid"] == s["tid"] and abs(f["ts"] - s["ts"]) < 0.002]
        check(len(fi) == 1, "%s: %s (corr %d) has %d flow ends" % (prefix, s["name"], r["correlationId"], len(fi)))
        a = api.get(r["correlationId"])
        if not check(a is not None, "%s: corr %d has no API record" % (prefix, r["correlationId"])):
            continue
        tl = [t for t, n in names.items() if n == thread_lane(a["threadId"])]
        launches = api_slices.get((tl[0] if tl else None, api_name(a["name"])), [])
        fo = [f for f in flow_out.get(fid, []) if tl and f["tid"] == tl[0] and
              any(l["ts"] <= f["ts"] <= l["ts"] + l["dur"] for l in launches)]
        check(len(fo) == 1, "%s: %s (corr %d) not linked to its launch %s" % (
            prefix, s["name"], r["correlationId"], a["name"]))

    # ---- NVTX ----
    starts = {}
    for r in recs:
        if r["kind_name"] != "MARKER":
            continue
        lane = thread_lane(r["threadId"])
        tids = [t for t, n in names.items() if n == lane]
        if "S" in r["flags_str"]:
            starts[r["id"]] = r
        elif "E" in r["flags_str"]:
            s0 = starts.pop(r["id"], None)
            if not check(s0 is not None, "%s: marker end %d without start" % (prefix, r["id"])):
                continue
            dur = (r["timestamp"] - s0["timestamp"]) / 1000.0
            lane = thread_lane(s0["threadId"])
            tids = [t for t, n in names.items() if n == lane]
            got = [s for s in slices if s["tid"] in tids and s["name"] == s0["name"] and abs(s["dur"] - dur) <= 1.0]
            check(len(got) == 1, "%s: NVTX range %r: %d slices on %s" % (prefix, s0["name"], len(got), lane))
        elif "I" in r["flags_str"]:
            got = [e for e in instants if e["tid"] in tids and e["name"] == r["name"]]
            check(len(got) == 1, "%s: NVTX mark %r: %d instants on %s" % (prefix, r["name"], len(got), lane))


def check_layout(replay, fixtures):
    p = subprocess.run([replay, "--layout"], capture_output=True, text=True, timeout=60, check=True)
    mine = json.loads(p.stdout)["structs"]
    ref = dict((s["struct"], s) for s in json.load(open(os.path.join(fixtures, "layout.json")))["structs"])
    for s in mine:
        r = ref.get(s["struct"])
        if not check(r is not None, "layout: %s not in layout.json" % s["struct"]):
            continue
        check(s["sizeof"] == r["sizeof"], "layout: sizeof %s %d, recorded %d" % (s["struct"], s["sizeof"], r["sizeof"]))
        rf = dict((f["field"], f) for f in r["fields"])
        for f in s["fields"]:
            g = rf.get(f["field"])
            check(g is not None and (g["offset"], g["size"]) == (f["offset"], f["size"]),
                  "layout: %s.%s at %d+%d, recorded %r" % (s["struct"], f["field"], f["offset"], f["size"], g))


def check_big(replay, work):
    """40,000 API calls on one thread (80,000 ring entries, past the default
    1 MiB ring): the replay sizes its rings by its input, nothing is
    overwritten before the dump reads it."""
    import struct
    n, t0 = 40000, 1795794403757404828
    recs = b"".join(struct.pack("<IIQQIIII", 5, 211, t0 + 1000 + i * 100, t0 + 1050 + i * 100, 1, 77, i + 1, 0)
                    for i in range(n))
    hdr = struct.pack("<8sIIIIiIQIIII8s", b"CUPTIBUF", 1, 64, 130001, 130001, 13000, 1, 48 + len(recs), 1, 8, 48,
                      1, b"")
    frame = struct.pack("<IIQQIIQQ", 0x30465542, 0, len(recs), len(recs), 0, 0, 0, 0)
    bins = os.path.join(work, "big_buffers.bin")
    open(bins, "wb").write(hdr + frame + recs)
    jl = os.path.join(work, "big_records.jsonl")
    open(jl, "w").write('{"type":"clock","cupti":%d,"mono_before":1000,"mono_after":1002}\n' % t0)
    out = os.path.join(work, "big.json")
    env = dict(os.environ)
    env.pop("RECORDER_RING_KB", None)
    p = subprocess.run([replay, bins, jl, "--api", "-o", out], capture_output=True, text=True, timeout=300, env=env)
    if not check(p.returncode == 0, "big: exit %d %r" % (p.returncode, p.stderr)):
        return
    names, slices, _, _ = load_export(out)
    got = sum(1 for s in slices if s["name"] == "cudart cbid 211")
    check(got == n, "big: %d of %d API slices" % (got, n))


def check_waits(replay, fixtures):
    """A replayed call that waited on GPU work (a sync) is a wait scope, as
    the live library's sync callbacks are: `recorder report` marks it."""
    bufs = os.path.join(fixtures, "cu_buffers.bin")
    recs = os.path.join(fixtures, "cu_records.jsonl")
    p = subprocess.run([replay, bufs, recs], capture_output=True, text=True, timeout=120)
    seg = [l.split("segment kept: ", 1)[1] for l in (p.stdout + p.stderr).splitlines() if "segment kept: " in l]
    if not check(p.returncode == 0 and seg, "cupti_replay without -o keeps its segment: " + p.stderr[-300:]):
        return
    try:
        rb = os.environ.get("RECORDER_BIN") or os.path.join(os.path.dirname(os.path.dirname(replay)),
                                                            "librecorder", "cli", "recorder")
        r = subprocess.run([rb, "report", "--top", "100", seg[0]], capture_output=True, text=True, timeout=120)
        rows = [l for l in r.stdout.splitlines() if "Synchronize" in l]
        check(len(rows) == 3, "the three sync calls are in the report: %r" % rows)
        check(all(l.endswith("[wait]") for l in rows), "... each a wait scope: %r" % rows)
        check(not [l for l in r.stdout.splitlines() if "cudaLaunchKernel" in l and l.endswith("[wait]")],
              "a launch is not a wait")
    finally:
        os.unlink(seg[0])


def main():
    replay, fixtures, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    check_layout(replay, fixtures)
    for prefix in ("cu", "torch"):
        check_fixture(replay, fixtures, work, prefix)
    check_big(replay, work)
    check_waits(replay, fixtures)
    for f in failures[:40]:
        print("FAIL:", f)
    if failures:
        print("%d failures" % len(failures))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
