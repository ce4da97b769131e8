"""Helpers of the Python package's tests (tests/python, suite `python`).

Every test runs Python programs in child processes -- with the interpreter
the package was built for, its segment kept (RECORDER_KEEP=1) -- and reads
what they recorded back with tests/examples/seg_events (librecorder's
reading layer), or reads the trace files the runner wrote with the strict
checker tests/analysis/check_trace.py.  meson test passes the paths:

    RECORDER_CLI           build/librecorder/cli/recorder
    RECORDER_SEG_EVENTS    build/tests/examples/seg_events
    RECORDER_CHECK_TRACE   tests/analysis/check_trace.py
    RECORDER_TEST_LIB      build/tests/python/libnative_scopes.so
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

PY = sys.executable
CLI = os.environ.get("RECORDER_CLI", "")
SEG_EVENTS = os.environ.get("RECORDER_SEG_EVENTS", "")
CHECK_TRACE = os.environ.get("RECORDER_CHECK_TRACE", "")
TEST_LIB = os.environ.get("RECORDER_TEST_LIB", "")


SANITIZER_MARKS = ("runtime error:", "ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "WARNING: ThreadSanitizer")


def run(cmd, **kw):
    """subprocess.run, text output captured; fails on a sanitizer report
    (UBSan's do not always change the exit status)."""
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    r = subprocess.run(cmd, **kw)
    for mark in SANITIZER_MARKS:
        assert mark not in (r.stderr or ""), f"{cmd}: sanitizer report:\n{r.stderr}"
    return r


def available_hooks():
    r = subprocess.run([PY, "-c", "import recorder._native as n; print(','.join(n.hooks()))"],
                       capture_output=True, text=True, check=True)
    return r.stdout.strip().split(",")


HOOKS = available_hooks()
NATIVE_HOOKS = [h for h in HOOKS if h != "eval"]


def child_env(**extra):
    env = dict(os.environ)
    for k in ("RECORDER", "RECORDER_NAME", "RECORDER_FILTER", "RECORDER_FILTER_OUT", "RECORDER_PYTHON_FOLLOW",
              "RECORDER_PYTHON_INNER", "RECORDER_RING_KB", "RECORDER_KEEP"):
        env.pop(k, None)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def _text(s):
    """seg_events writes each byte >= 0x7f as \\u00XX: the UTF-8 back."""
    return s.encode("latin-1").decode("utf-8", "replace") if isinstance(s, str) else s


class Thread:
    """One thread's events from a segment, with its slices paired."""

    def __init__(self, raw):
        self.name = _text(raw["name"])
        self.tid = raw["tid"]
        self.events = [dict(e, **{k: _text(e[k]) for k in ("name", "msg") if k in e}) for e in raw["events"]]
        self.slices = []      # dicts: name, depth, parent, begin, end, children
        self.problems = []
        stack = []
        for e in self.events:
            if e["t"] == "B":
                s = {"name": e["name"], "depth": len(stack), "parent": stack[-1]["name"] if stack else None,
                     "begin": e["ns"], "end": None, "children": []}
                if stack:
                    stack[-1]["children"].append(s)
                stack.append(s)
                self.slices.append(s)
            elif e["t"] == "E":
                if not stack:
                    self.problems.append(f"end of {e['name']} without a begin")
                    continue
                s = stack.pop()
                if e["name"] is not None and e["name"] != s["name"]:
                    self.problems.append(f"end of {e['name']} closes {s['name']}")
                s["end"] = e["ns"]
        self.open = [s["name"] for s in stack]

    def names(self):
        return [s["name"] for s in self.slices]

    def others(self, kind):
        return [e for e in self.events if e["t"] == kind]


class Segment:
    def __init__(self, doc):
        self.doc = doc
        self.threads = [Thread(t) for t in doc["threads"]]

    def thread(self, name):
        found = [t for t in self.threads if t.name == name]
        assert found, f"no thread {name!r} in {[t.name for t in self.threads]}"
        return found[0]

    def all_names(self):
        return [n for t in self.threads for n in t.names()]

    def assert_well_formed(self, allow_open=()):
        """Every end matches the innermost begin, and nothing is left open
        but what the test expects."""
        for t in self.threads:
            assert not t.problems, f"thread {t.name}: {t.problems[:5]}"
            left = [n for n in t.open if not any(a in n for a in allow_open)]
            assert not left, f"thread {t.name}: left open: {left}"


def read_segment(path):
    assert SEG_EVENTS, "RECORDER_SEG_EVENTS is not set (run through meson test)"
    r = run([SEG_EVENTS, path], timeout=60)
    assert r.returncode == 0, f"seg_events {path}: {r.stderr}"
    return Segment(json.loads(r.stdout))


FOOTER = """
import recorder as _r_, os as _o_
open(_o_.environ["RECORDER_TEST_SEGFILE"], "w").write(_r_.segment_path() or "")
"""


def run_recorded(tmp_path, code, args=(), env=None, runner=None, timeout=120, footer=True, check=True):
    """Run code (a script) in a child Python with its segment kept; returns
    (Segment or None, CompletedProcess).  runner: options for
    python3 -m recorder, or None to run the script plainly."""
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(code) + (FOOTER if footer else ""))
    segfile = tmp_path / "segment.txt"
    # Kept only when it is read back (and then removed): a program that
    # exits without the footer leaves nothing behind.
    keep = {"RECORDER_KEEP": 1} if footer else {}
    e = child_env(RECORDER_TEST_SEGFILE=segfile, **keep, **(env or {}))
    cmd = [PY, *(["-m", "recorder", *runner] if runner is not None else []), str(script), *args]
    r = run(cmd, env=e, timeout=timeout, cwd=tmp_path)
    if check:
        assert r.returncode == 0, f"{cmd} exited {r.returncode}:\n{r.stdout}\n{r.stderr}"
    seg = None
    if segfile.exists() and segfile.read_text():
        path = segfile.read_text()
        try:
            seg = read_segment(path)
        finally:
            os.unlink(path)
    return seg, r


def remove_segment_of(pid):
    """The segment a test's program left by dying of a signal (a writer
    keeps it then, for a post-mortem): it is the test's to remove."""
    for name in os.listdir("/dev/shm"):
        if name == f"recorder.{pid}" or name.startswith(f"recorder.{pid}."):
            try:
                os.unlink(os.path.join("/dev/shm", name))
            except FileNotFoundError:
                pass


def check_trace(path, *extra):
    """The strict checker's verdict, and the trace's otherData."""
    assert CHECK_TRACE, "RECORDER_CHECK_TRACE is not set"
    r = subprocess.run([sys.executable, CHECK_TRACE, str(path), *extra], capture_output=True, text=True)
    assert r.returncode == 0, f"check_trace {path}:\n{r.stdout}{r.stderr}"
    with open(path) as f:
        doc = json.load(f)
    return doc


def trace_slices(doc, pid=None):
    """B events of a trace file: (tid, name, args) in order."""
    return [(e["tid"], e["name"], e.get("args", {})) for e in doc["traceEvents"]
            if e.get("ph") == "B" and (pid is None or e["pid"] == pid)]


def assert_no_loss(doc):
    rec = doc["otherData"]["recorder"]
    for one in rec.get("processes", [rec]):   # a trace of several processes lists them
        assert one["unmatched_ends"] == 0, one
    for e in doc["traceEvents"]:
        assert "begin_lost" not in e.get("cat", ""), e


@pytest.fixture(params=HOOKS)
def hook(request):
    return request.param


@pytest.fixture(params=NATIVE_HOOKS)
def native_hook(request):
    return request.param
