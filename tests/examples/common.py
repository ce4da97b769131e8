"""Shared helpers of the examples tests: run a program with its segment
kept, read the segment back (seg_events), and check the recorded events."""
import json
import os
import subprocess


def run_kept(argv, timeout=300, env_extra=None):
    """Runs argv with RECORDER_KEEP=1; returns the CompletedProcess."""
    env = dict(os.environ, RECORDER_KEEP="1")
    env.pop("RECORDER", None)
    env.pop("RECORDER_NAME", None)
    if env_extra:
        env.update(env_extra)
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)


def read_segment(seg_events, target):
    """The segment's threads and events, as seg_events prints them."""
    r = subprocess.run([seg_events, str(target)], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise AssertionError(f"seg_events {target} failed ({r.returncode}): {r.stderr.strip()}")
    return json.loads(r.stdout)


def remove_segment(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


class Checker:
    """Collects failures so a test reports all of them, then fails."""

    def __init__(self):
        self.failures = []

    def check(self, cond, what):
        if not cond:
            self.failures.append(what)
            print("CHECK failed:", what)
        return cond

    def done(self):
        if self.failures:
            print(f"{len(self.failures)} check(s) failed")
            raise SystemExit(1)
        print("ok")


def walk(thread):
    """Pairs a thread's begins and ends.  Returns (slices, others, problems):
    slices are dicts name, begin, end, depth, parent (the enclosing slice's
    name or None); others are the thread's other events, each with "in" (the
    innermost open slice's name or None) and "depth"."""
    stack, out, others, problems = [], [], [], []
    for e in thread["events"]:
        if e["t"] == "B":
            stack.append({"name": e["name"], "begin": e["ns"], "depth": len(stack),
                          "parent": stack[-1]["name"] if stack else None})
        elif e["t"] == "E":
            if not stack:
                problems.append(f"{thread['name']}: end of {e['name']} without a begin")
                continue
            s = stack.pop()
            if e["name"] is not None and e["name"] != s["name"]:
                problems.append(f"{thread['name']}: end of {e['name']} closes {s['name']}")
            if e["ns"] < s["begin"]:
                problems.append(f"{thread['name']}: {s['name']} ends before it begins")
            s["end"] = e["ns"]
            out.append(s)
        else:
            others.append(dict(e, depth=len(stack), **{"in": stack[-1]["name"] if stack else None}))
    for s in stack:
        problems.append(f"{thread['name']}: {s['name']} never ended")
    return out, others, problems


def trace_events(path):
    """The traceEvents of a Perfetto / Chrome JSON trace file."""
    with open(path) as f:
        doc = json.load(f)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def flow_events(events):
    """The flow events of a JSON export (zero-length "flow" X slices with a
    bind_id, docs/perfetto.md), as legacy-style dicts: ph "s" (flow_out),
    "t" (both) or "f" (flow_in), id, pid, tid, ts, name, cat."""
    out = []
    for e in events:
        if e.get("ph") == "X" and "bind_id" in e:
            fin, fout = e.get("flow_in") is True, e.get("flow_out") is True
            out.append({"ph": "t" if fin and fout else "s" if fout else "f", "id": e["bind_id"], "pid": e.get("pid"),
                        "tid": e.get("tid"), "ts": e["ts"], "name": e.get("name"), "cat": e.get("cat")})
    return out


def trace_slices(events):
    """Slices per (pid, tid) from complete ("X") or begin/end ("B"/"E")
    events: lists of dicts name, ts, end, depth, parent, sorted by start.
    Also returns thread names by (pid, tid) and problems found.
    Slices that start and end at the same times nest in the file's order
    (the order of their B, or of their X): two reads of a coarse clock
    can be equal, and the parent is written first."""
    by_thread, names, problems, open_ = {}, {}, [], {}
    for seq, e in enumerate(events):
        key = (e.get("pid"), e.get("tid"))
        ph = e.get("ph")
        if ph == "M" and e.get("name") == "thread_name":
            names[key] = e.get("args", {}).get("name")
        elif ph == "X" and "bind_id" not in e:   # (an X with a bind_id carries a flow: flow_events)
            by_thread.setdefault(key, []).append({"name": e["name"], "ts": e["ts"], "end": e["ts"] + e.get("dur", 0),
                                               "seq": seq})
        elif ph == "B":
            open_.setdefault(key, []).append({"name": e["name"], "ts": e["ts"], "seq": seq})
        elif ph == "E":
            st = open_.get(key)
            if not st:
                problems.append(f"E without B on {key}")
                continue
            s = st.pop()
            s["end"] = e["ts"]
            by_thread.setdefault(key, []).append(s)
    for key, st in open_.items():
        for s in st:
            problems.append(f"{s['name']} on {key} has no end")
    for key, sl in by_thread.items():
        sl.sort(key=lambda s: (s["ts"], -s["end"], s["seq"]))
        stack = []
        for s in sl:
            while stack and stack[-1]["end"] <= s["ts"] and not (stack[-1]["end"] == s["ts"] == stack[-1]["ts"]):
                stack.pop()
            if stack and s["end"] > stack[-1]["end"]:
                problems.append(f"{s['name']} overlaps {stack[-1]['name']} on {key}")
            s["depth"] = len(stack)
            s["parent"] = stack[-1]["name"] if stack else None
            stack.append(s)
    return by_thread, names, problems


def no_sanitizer_reports(c, what, stderr):
    """UBSan reports do not change the exit status unless halt_on_error is
    set: look for them too."""
    for mark in ("runtime error:", "ERROR: AddressSanitizer", "WARNING: ThreadSanitizer", "ERROR: LeakSanitizer"):
        c.check(mark not in (stderr or ""), f"{what}: sanitizer report ({mark})")
