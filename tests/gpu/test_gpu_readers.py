#!/usr/bin/env python3
"""test_gpu_readers.py RECORDER FAKE_GPU WORKDIR TEST EDGE_PROG -- every
reader shows the GPU's lanes (docs/gpu.md, "Exports and report"), on what
fake_gpu records (its header says exactly what: per iteration 3 launches
on "host", "gemm_f16(int, float)" and "memcpy HtoD" on "GPU0 stream 7",
"softmax_kernel" and "sync" on "GPU1 stream 13", the devices' counters)
and on gpu_edge_prog's edge cases.  json and protobuf are the independent
parsers.

  json      run -o X.json: lanes as threads of the process after its CPU
            threads, counts per lane exact, args folded into the slices (no
            "args" instant left), each launch's flow bound to its kernel
  perfetto  run -o X.pftrace through tests/perfetto's decoder: lanes as
            named tracks whose parent is the process, args as debug
            annotations, flow ids launch -> kernel, counter tracks
  capture   capture of a running fake_gpu + convert: the same JSON, thread
            by thread, as a dump of its segment (a capture keeps the lane)
  report    Resource=GPU0 / GPU1 sections: busy % in (0, 100], kernel
            counts exact, gaps bucketed; no Thread section for a lane
  ls        the GPU lanes counted apart from threads, CUPTI's refusal said
  folded    lanes are roots of their own: "GPU0 stream 7;gemm..."
  edges     a zero-length kernel's args, args not in k=v form, quotes and
            backslashes in them, records lost on the device lane: said as
            partial by report and counted as dropped by the exports
"""
import collections
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli"))
sys.path.insert(0, os.path.join(HERE, "..", "perfetto"))
from clitest import OK, RECORDER, WORK, PROG, TIMEOUT, check, require, rec, env_without_keep, main  # noqa: E402
import pftrace  # noqa: E402

EDGE = os.path.abspath(sys.argv[5])
ITERS = 20
GEMM, COPY, SOFT, SYNC = "gemm_f16(int, float)", "memcpy HtoD", "softmax_kernel", "sync"
S0, S1 = "GPU0 stream 7", "GPU1 stream 13"
LANES = {S0: {GEMM: ITERS, COPY: ITERS}, S1: {SOFT: ITERS, SYNC: ITERS}}
ARGS = {GEMM: {"grid": "(128,1,1)", "block": "(256,1,1)"}, COPY: {"bytes": 4096},
        SOFT: {"grid": "(64,1,1)", "block": "(128,1,1)"}, SYNC: None}
LAUNCH_OF = {GEMM: "cudaLaunchKernel", SOFT: "cudaLaunchKernel", COPY: "cudaMemcpyAsync"}


def load(path):
    return json.load(open(os.path.join(WORK, path), encoding="utf-8"))


def json_threads(doc):
    """{tid: name} and {tid: sort_index} from the M events."""
    names, sort = {}, {}
    for e in doc["traceEvents"]:
        if e["ph"] == "M" and e["name"] == "thread_name":
            names[e["tid"]] = e["args"]["name"]
        elif e["ph"] == "M" and e["name"] == "thread_sort_index":
            sort[e["tid"]] = e["args"]["sort_index"]
    return names, sort


def json_slices(doc):
    """Per tid: slices (name, b, args) in begin order, and flows with the
    slice they sit in (the innermost open one, flows being zero-length X
    events inside it)."""
    stacks, slices, flows = collections.defaultdict(list), collections.defaultdict(list), []
    for e in doc["traceEvents"]:
        tid = e.get("tid")
        if e["ph"] == "B":
            stacks[tid].append(e["name"])
            slices[tid].append((e["name"], e["ts"], e.get("args")))
        elif e["ph"] == "E":
            stacks[tid].pop()
        elif e["ph"] == "X" and e.get("cat") == "flow":
            flows.append((tid, e["bind_id"], "out" if e.get("flow_out") else "in",
                          stacks[tid][-1] if stacks[tid] else None, e["ts"]))
    return slices, flows


def check_json(doc, what):
    names, sort = json_threads(doc)
    tid_of = {n: t for t, n in names.items()}
    require(all(n in tid_of for n in ("host", S0, S1, "GPU0", "GPU1")), f"{what}: lanes named as threads {names}")
    cpu = sort[tid_of["host"]]
    check(all(sort[tid_of[n]] > cpu for n in (S0, S1, "GPU0", "GPU1")),
          f"{what}: GPU lanes sorted after the CPU threads {sort}")
    check(sort[tid_of["GPU0"]] < sort[tid_of[S0]] < sort[tid_of["GPU1"]] < sort[tid_of[S1]],
          f"{what}: each device's lane, then its streams, device by device")
    pids = {e["pid"] for e in doc["traceEvents"]}
    check(len(pids) == 1, f"{what}: one process, the lanes under it ({pids})")
    slices, flows = json_slices(doc)
    for lane, want in LANES.items():
        got = collections.Counter(n for n, _, _ in slices[tid_of[lane]])
        check(dict(got) == want, f"{what}: {lane}: slices {dict(got)}, expected {want}")
        bad = [(n, a) for n, _, a in slices[tid_of[lane]] if a != ARGS[n]]
        check(not bad, f"{what}: {lane}: args folded into each slice ({bad[:2]})")
    insts = [e for e in doc["traceEvents"] if e["ph"] == "i" and e["name"] == "args"]
    check(not insts, f"{what}: no 'args' instant left ({len(insts)})")
    outs = {f[1]: f for f in flows if f[2] == "out"}
    ins = {f[1]: f for f in flows if f[2] == "in"}
    check(len(outs) == 3 * ITERS and set(outs) == set(ins), f"{what}: {len(outs)} flows out, {len(ins)} in, same ids")
    bound = [i for i, f in ins.items() if i in outs and f[3] in LAUNCH_OF and outs[i][3] == LAUNCH_OF[f[3]]
             and outs[i][0] == tid_of["host"] and f[4] >= outs[i][4]]
    check(len(bound) == 3 * ITERS, f"{what}: every flow binds a launch on host to its kernel or copy "
          f"({len(bound)}; e.g. {list(ins.values())[:1]} {list(outs.values())[:1]})")
    ctr = collections.Counter((e["tid"], e["name"]) for e in doc["traceEvents"] if e["ph"] == "C")
    want = {(tid_of["GPU0"], "GPU0 busy %"): ITERS, (tid_of["GPU0"], "GPU0 copy bytes/s"): ITERS,
            (tid_of["GPU1"], "GPU1 busy %"): ITERS}
    check(dict(ctr) == want, f"{what}: the devices' counters {dict(ctr)}")
    other = doc["otherData"]["recorder"]
    check(other["unbound_flows"] == 0 and other["written"]["threads"] == 5, f"{what}: otherData {other['written']}")


def t_json():
    code, _, err = rec("run", "-o", "x.json", "--", PROG, "--iters", ITERS)
    require(code == OK, f"run -o x.json ({err[-300:]!r})")
    check(b"0 instants" in err, f"run: the summary counts no args instant ({err[-300:]!r})")
    check_json(load("x.json"), "run json")


def t_perfetto():
    code, _, err = rec("run", "-o", "x.pftrace", "--", PROG, "--iters", ITERS)
    require(code == OK, f"run -o x.pftrace ({err[-300:]!r})")
    try:
        doc = pftrace.decode(os.path.join(WORK, "x.pftrace"))
    except pftrace.DecodeError as e:
        require(False, f"x.pftrace decodes: {e}")
    tracks = doc["tracks"]
    proc = [u for u, t in tracks.items() if t["kind"] == "process"]
    lanes = {t["name"]: u for u, t in tracks.items() if t["kind"] == "lane"}
    require(len(proc) == 1 and set(lanes) == {S0, S1, "GPU0", "GPU1"}, f"lane tracks {lanes}")
    check(all(tracks[u]["parent"] == proc[0] for u in lanes.values()), "each lane's track is a child of the process")
    host = [u for u, t in tracks.items() if t["kind"] == "thread" and t["name"] == "host"]
    require(len(host) == 1, "the host thread's track")
    out, flows, errs = pftrace.per_thread(doc)
    check(not errs, f"nesting and flows inside slices {errs[:3]}")
    for lane, want in LANES.items():
        got = collections.Counter(e[2] for e in out[lane] if e[0] == "B")
        check(dict(got) == want, f"{lane}: slices {dict(got)}, expected {want}")
    bad = [(e["name"], e["args"]) for e in doc["events"]
           if e["ph"] == "B" and e["track"] in (lanes[S0], lanes[S1]) and (e["args"] or None) != ARGS[e["name"]]]
    check(not bad, f"args as debug annotations of each slice ({bad[:2]})")
    check(not [e for e in doc["events"] if e["name"] == "args"], "no 'args' instant left")
    starts = {i for _, k, i in flows[tracks[host[0]]["tid"]] if k == "s/t"}
    ends = {i for lane in (S0, S1) for _, k, i in flows[lane] if k == "f"}
    check(len(starts) == 3 * ITERS and starts == ends, f"flow ids: {len(starts)} started on host, the same ended on "
          f"the lanes ({len(ends)})")
    # Each flow's end sits in the kernel or copy its launch started.
    launch_at = {}
    for e in doc["events"]:
        if e["flow"]:
            launch_at[e["flow"][0]] = e
    kinds = collections.Counter()
    open_on = collections.defaultdict(list)
    for e in doc["events"]:
        if e["ph"] == "B":
            open_on[e["track"]].append(e["name"])
        elif e["ph"] == "E":
            open_on[e["track"]].pop()
        elif e["term"]:
            kinds[open_on[e["track"]][-1] if open_on[e["track"]] else None] += 1
    check(dict(kinds) == {GEMM: ITERS, COPY: ITERS, SOFT: ITERS}, f"flows end in kernels and copies {dict(kinds)}")
    ctr = collections.Counter(e["name"] for e in doc["events"] if e["ph"] == "C")
    check(dict(ctr) == {"GPU0 busy %": ITERS, "GPU0 copy bytes/s": ITERS, "GPU1 busy %": ITERS},
          f"counter tracks {dict(ctr)}")
    got = pftrace.counts(doc)
    check(got["threads"] == 5 and got["instants"] == 0, f"counts {got}")


def per_thread(doc):
    names, _ = json_threads(doc)
    out = collections.defaultdict(list)
    for e in doc["traceEvents"]:
        if e["ph"] != "M":
            out[names.get(e["tid"])].append(e)
    return out


def wait_for(cond, what, limit=TIMEOUT):
    t = time.monotonic()
    while not cond():
        require(time.monotonic() - t < limit, f"waited for {what}")
        time.sleep(0.01)


def t_capture():
    # capture -o X.rec -- CMD, converted: the fake_gpu checks hold.
    code, _, err = rec("capture", "-o", "c.rec", "-q", "--", PROG, "--iters", ITERS)
    require(code == OK, f"capture -o c.rec ({err[-300:]!r})")
    code, _, err = rec("convert", "c.rec", "-o", "c.json")
    require(code == OK, f"convert c.rec ({err[-300:]!r})")
    check_json(load("c.json"), "capture + convert")
    # A running program captured, then its kept segment dumped: the same
    # events, thread by thread (the capture keeps each lane's kind and device).
    p = subprocess.Popen([PROG, "--live"], stdout=subprocess.PIPE, cwd=WORK,
                         env=env_without_keep({"RECORDER_KEEP": "1"}))
    try:
        require(p.stdout.readline().strip() == b"ready", "fake_gpu --live is ready")
        c = subprocess.Popen([RECORDER, "capture", str(p.pid), "-o", "l.rec", "-q"],
                             cwd=WORK, stderr=subprocess.PIPE)
        wait_for(lambda: os.path.exists(os.path.join(WORK, "l.rec")) and
                 os.path.getsize(os.path.join(WORK, "l.rec")) > 0, "the capture to begin")
    finally:
        p.terminate()
        p.wait(timeout=TIMEOUT)
    _, cerr = c.communicate(timeout=TIMEOUT)
    check(c.returncode == OK, f"capture of a running fake_gpu ({cerr[-300:]!r})")
    try:
        code, _, err = rec("dump", str(p.pid), "-o", "d.json")
        require(code == OK, f"dump of its kept segment ({err[-300:]!r})")
    finally:
        try:
            os.unlink(f"/dev/shm/recorder.{p.pid}")
        except FileNotFoundError:
            pass
    code, _, err = rec("convert", "l.rec", "-o", "l.json")
    require(code == OK, f"convert l.rec ({err[-300:]!r})")
    a, b = per_thread(load("d.json")), per_thread(load("l.json"))
    check(set(a) == {"host", S0, S1, "GPU0", "GPU1"}, f"threads and lanes {sorted(map(str, a))}")
    check(a == b, "convert of the capture: the same JSON, thread by thread, as the segment's dump "
          f"({[k for k in a if a[k] != b.get(k)]})")
    check(json_threads(load("d.json"))[1].values().__len__() == 5 and
          sorted(json_threads(load("d.json"))[1].values()) == sorted(json_threads(load("l.json"))[1].values()),
          "the same sort indexes")


def report_sections(out):
    """{'GPU0': (header line, {name: row fields})} and the Thread headers."""
    res, threads, cur = {}, [], None
    for line in out.splitlines():
        m = re.match(r"Resource=(GPU\d+) Showing (\d+)/(\d+) records +([\d.]+)% busy", line)
        if m:
            cur = res[m.group(1)] = {"busy": float(m.group(4)), "rows": {}, "lines": []}
            continue
        if line.startswith("Thread "):
            threads.append(line)
            cur = None
            continue
        if cur is not None:
            cur["lines"].append(line)
            f = line.split(None, 8)
            if len(f) == 9 and f[0].endswith("%"):
                cur["rows"][f[8]] = {"calls": int(f[2]), "avg": float(f[3]), "p50": float(f[4]),
                                     "p99": float(f[5])}
    return res, threads


def t_report():
    code, _, err = rec("capture", "-o", "r.rec", "-q", "--", PROG, "--iters", ITERS)
    require(code == OK, f"capture -o r.rec ({err[-300:]!r})")
    code, out, err = rec("report", "r.rec")
    require(code == OK, f"report r.rec ({err[-300:]!r})")
    text = out.decode()
    print(text)
    res, threads = report_sections(text)
    require(set(res) == {"GPU0", "GPU1"}, f"Resource=GPU0 and GPU1 sections ({sorted(res)})")
    for g in res.values():
        check(0 < g["busy"] <= 100, f"busy % in (0, 100]: {g['busy']}")
    r0, r1 = res["GPU0"]["rows"], res["GPU1"]["rows"]
    check(r0.get(GEMM, {}).get("calls") == ITERS and r0.get(COPY, {}).get("calls") == ITERS,
          f"GPU0: {ITERS} gemm, {ITERS} copies ({r0})")
    check(r1.get(SOFT, {}).get("calls") == ITERS and r1.get(SYNC + " [sync: not busy]", {}).get("calls") == ITERS,
          f"GPU1: {ITERS} softmax, {ITERS} syncs ({r1})")
    check(all(r0[GEMM][k] == 20.0 for k in ("avg", "p50", "p99")), f"gemm: 20 us each, P50 and P99 ({r0[GEMM]})")
    gaps = sum(r["calls"] for n, r in r1.items() if n.startswith("gap "))
    # GPU1's work is softmax then sync (not work) each iteration: ITERS
    # stretches, so ITERS - 1 gaps between them.
    check(gaps == ITERS - 1, f"GPU1: {ITERS - 1} idle gaps bucketed ({gaps})")
    check(all(n in ("gap <10us", "gap 10us-100us", "gap 100us-1ms", "gap 1ms-10ms", "gap >=10ms")
              for n in r1 if n.startswith("gap ")), f"gap buckets {list(r1)}")
    check(len(threads) == 1 and "host" in threads[0], f"one Thread section, no lane among them ({threads})")
    check("4 GPU lanes" in text and "partial" not in text, "the header counts the GPU lanes; nothing partial")


def t_ls():
    for refused in (0, 1):
        p = subprocess.run([EDGE] + (["--refused"] if refused else []), capture_output=True, cwd=WORK,
                           env=env_without_keep({"RECORDER_KEEP": "1"}), timeout=TIMEOUT)
        pid = int(re.search(rb"pid (\d+)", p.stdout).group(1))
        try:
            code, out, err = rec("ls", "--json")
            rows = [json.loads(l) for l in out.decode().splitlines() if l.strip()]
            # Its own segment: a dead one of the same pid (a pid come round)
            # is moved aside to recorder.<pid>.<start> and may be listed too.
            me = [r for r in rows if r.get("pid") == pid and r.get("name") == f"recorder.{pid}"]
            require(code == OK and len(me) == 1, f"ls --json lists pid {pid}")
            check(me[0]["gpu_lanes"] == 2 and me[0]["threads"] == 1,
                  f"ls --json: 2 GPU lanes, 1 thread ({me[0]})")
            check(me[0]["gpu_state"] == ("cupti-refused" if refused else "none"), f"gpu_state {me[0]['gpu_state']}")
            code, out, err = rec("ls")
            line = [l for l in out.decode().splitlines() if l.startswith(f"{pid} ") and f"recorder.{pid}" in l.split()]
            check(len(line) == 1 and "(2 GPU/NVTX lanes)" in line[0] and " 0/1 " in line[0],
                  f"ls: the lanes apart from the threads ({line})")
            check(("CUPTI refused" in line[0]) == bool(refused), f"ls says when CUPTI refused ({line})")
        finally:
            os.unlink(f"/dev/shm/recorder.{pid}")


def t_folded():
    code, _, err = rec("capture", "-o", "f.rec", "-q", "--", PROG, "--iters", ITERS)
    require(code == OK, f"capture -o f.rec ({err[-300:]!r})")
    # The whole run, and a window (the stream either way).
    for args in (("convert", "f.rec", "-o", "f.folded"), ("convert", "f.rec", "-o", "w.folded", "--last", "100")):
        code, _, err = rec(*args)
        require(code == OK, f"{' '.join(args)} ({err[-300:]!r})")
        lines = dict(l.rsplit(" ", 1) for l in open(os.path.join(WORK, args[3])).read().splitlines())
        roots = {k.split(";")[0] for k in lines}
        check({S0 + ";" + GEMM, S0 + ";" + COPY, S1 + ";" + SOFT, S1 + ";" + SYNC} <= set(lines),
              f"{args[3]}: lanes are roots of their own ({sorted(lines)})")
        check(not ({GEMM, COPY, SOFT, SYNC} & roots) and "step" in roots, f"{args[3]}: roots {sorted(roots)}")
        check(int(lines[S0 + ";" + GEMM]) > 0, f"{args[3]}: gemm's self time")


def t_edges():
    p = subprocess.run([EDGE], capture_output=True, cwd=WORK, env=env_without_keep({"RECORDER_KEEP": "1"}),
                       timeout=TIMEOUT)
    pid = int(re.search(rb"pid (\d+)", p.stdout).group(1))
    try:
        code, _, err = rec("dump", str(pid), "-o", "e.json")
        require(code == OK, f"dump -o e.json ({err[-300:]!r})")
        code, _, err = rec("dump", str(pid), "-o", "e.pftrace")
        require(code == OK, f"dump -o e.pftrace ({err[-300:]!r})")
        code, out, err = rec("report", str(pid))
        require(code == OK, f"report ({err[-300:]!r})")
    finally:
        os.unlink(f"/dev/shm/recorder.{pid}")
    doc = load("e.json")
    want = {"k_zero": {"grid": "(1,1,1)", "block": "(32,1,1)"}, "k_odd": {"msg": "odd text"},
            "k_quote": {'q"k': "v\\", "n": 7}, "memset": {"bytes": 512}}
    got = {e["name"]: e.get("args") for e in doc["traceEvents"] if e["ph"] == "B" and e["name"] in want}
    check(got == want, f"JSON args, parsed as written or whole as msg ({got})")
    check(not [e for e in doc["traceEvents"] if e["name"] == "args"], "no args instant left")
    check(doc["otherData"]["recorder"]["entries_dropped"] == 5, "the lane's lost records: dropped in otherData")
    pf = pftrace.decode(os.path.join(WORK, "e.pftrace"))
    pgot = {e["name"]: e["args"] for e in pf["events"] if e["ph"] == "B" and e["name"] in want}
    check(pgot == want, f"Perfetto annotations the same ({pgot})")
    text = out.decode()
    print(text)
    res, _ = report_sections(text)
    require("GPU0" in res, "Resource=GPU0")
    sec = "\n".join(res["GPU0"]["lines"])
    check("partial" in sec and "5 dropped" in sec, "report: the device's loss said in its section")
    check(0 < res["GPU0"]["busy"] <= 100, f"busy {res['GPU0']['busy']}")
    gaps = {n: r["calls"] for n, r in res["GPU0"]["rows"].items() if n.startswith("gap")}
    check(gaps == {"gap 100us-1ms": 3}, f"3 gaps of about 500 us less the work ({gaps})")


main({"json": t_json, "perfetto": t_perfetto, "capture": t_capture, "report": t_report, "ls": t_ls,
      "folded": t_folded, "edges": t_edges})
