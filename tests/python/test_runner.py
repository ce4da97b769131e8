"""python3 -m recorder: a script and -m module, the trace it writes with
-o in every format (strictly checked), exit status and signals passed
through, usage errors, and a live `recorder dump` of a running program."""
import csv
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import (CLI, PY, SANITIZER_MARKS, assert_no_loss, check_trace, child_env, remove_segment_of, run,
                      trace_slices)

PROG = """
import sys, threading
def leaf(i):
    return sorted([i, 2, 1])
class Worker:
    def run(self, n):
        return [leaf(i) for i in range(n)]
def main():
    t = threading.Thread(target=Worker().run, args=(3,), name="helper")
    t.start(); t.join()
    Worker().run(2)
if __name__ == "__main__":
    main()
    sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
"""


def runner(tmp_path, *opts, code=PROG, env=None, timeout=120):
    (tmp_path / "prog.py").write_text(code)
    p = subprocess.Popen([PY, "-m", "recorder", *opts], cwd=tmp_path, env=child_env(**(env or {})),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=timeout)
    if p.returncode < 0:
        remove_segment_of(p.pid)   # killed by a signal: its segment stays
    for mark in SANITIZER_MARKS:
        assert mark not in err, err
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def test_script_names_threads_args_and_status(tmp_path):
    # --all-builtins: sorted([3 items]) is shorter than the default threshold
    r = runner(tmp_path, "--all-builtins", "-o", "t.json", "prog.py", "7")
    assert r.returncode == 7, r.stderr
    doc = check_trace(tmp_path / "t.json")
    assert_no_loss(doc)
    threads = {e["tid"]: e["args"]["name"] for e in doc["traceEvents"]
               if e.get("ph") == "M" and e["name"] == "thread_name"}
    assert sorted(threads.values()) == ["MainThread", "helper"]
    sl = trace_slices(doc)
    by_thread = {}
    for tid, name, args in sl:
        by_thread.setdefault(threads[tid], []).append((name, args))
    main = by_thread["MainThread"]
    assert main[0] == ("<module>", {"file": "prog.py", "line": 1})
    assert ("main", {"file": "prog.py", "line": 8}) in main
    assert ("Worker.run", {"file": "prog.py", "line": 6}) in by_thread["helper"]
    assert ("builtins.sorted", {}) in by_thread["helper"]
    assert not [n for n, _ in main if "recorder" in n or n.startswith("_shutdown")], main


def test_module_mode(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "__main__.py").write_text("import sys\ndef go():\n    return len(sys.argv)\nraise SystemExit(go())\n")
    r = runner(tmp_path, "--no-native", "-o", "m.json", "-m", "pkg", "a", "b")
    assert r.returncode == 3, r.stderr     # argv is [path, a, b]
    names = [n for _, n, _ in trace_slices(check_trace(tmp_path / "m.json"))]
    assert names[:2] == ["<module>", "go"] and "builtins.len" not in names


def test_live_dump_shows_python_names_per_thread(tmp_path):
    code = """
import threading, time, sys
stop = threading.Event()
def spin_worker():
    while not stop.is_set():
        time.sleep(0.001)
def spin_main():
    while not stop.is_set():
        time.sleep(0.001)
threading.Thread(target=spin_worker, name="spinner", daemon=True).start()
print("ready", flush=True)
timer = threading.Timer(20, stop.set)
timer.daemon = True
timer.start()
spin_main()
"""
    (tmp_path / "live.py").write_text(code)
    # (the spinner and the timer are daemons: SIGINT ends the program)
    p = subprocess.Popen([PY, "-m", "recorder", "live.py"], cwd=tmp_path, env=child_env(),
                         stdout=subprocess.PIPE, text=True)
    def names_now():
        d = run([CLI, "dump", str(p.pid), "-o", str(tmp_path / "live.json")],
                capture_output=True, text=True, timeout=60)
        assert d.returncode == 0, d.stderr
        doc = check_trace(tmp_path / "live.json")
        threads = {e["tid"]: e["args"]["name"] for e in doc["traceEvents"]
                   if e.get("ph") == "M" and e["name"] == "thread_name"}
        names = {}
        for tid, name, args in trace_slices(doc):
            names.setdefault(threads[tid], set()).add((name, args.get("file"), args.get("line")))
        return names

    try:
        assert p.stdout.readline().strip() == "ready"
        # Dumped until both threads are in their loops (a condition, not a delay).
        deadline = time.monotonic() + 60
        while True:
            names = names_now()
            if ("time.sleep", None, None) in names.get("spinner", ()) and \
                    ("time.sleep", None, None) in names.get("MainThread", ()) or time.monotonic() > deadline:
                break
            time.sleep(0.05)
    finally:
        p.send_signal(signal.SIGINT)
        p.wait(30)
        remove_segment_of(p.pid)   # KeyboardInterrupt ends Python by SIGINT: the segment stays
    assert ("spin_main", "live.py", 7) in names["MainThread"], names
    assert ("spin_worker", "live.py", 4) in names["spinner"], names
    assert ("time.sleep", None, None) in names["spinner"]


def _pftrace():
    sys.path.insert(0, os.path.join(os.environ["RECORDER_SOURCE_ROOT"], "tests", "perfetto"))
    try:
        import pftrace
        pftrace.trace_class()   # protoc and python3-protobuf are there
        return pftrace
    except (ImportError, OSError) as e:
        pytest.skip(f"no protobuf decoder: {e}")
    finally:
        sys.path.pop(0)


@pytest.mark.parametrize("ext", [".json", ".pftrace", ".csv"])
def test_file_and_line_are_args_in_every_format(tmp_path, ext):
    """-o x.json, x.pftrace and x.csv straight from the capture, in C (issue
    21, item 2): each read by a real parser (json, the protobuf decoder of
    tests/perfetto, csv), the Python scope named as the JSON names it with
    its file and line apart; one line on stderr, naming no private capture.
    (--all-builtins: builtins.sorted is shorter than the default 10 us.)"""
    r = runner(tmp_path, "--all-builtins", "-o", "out" + ext, "prog.py")
    assert r.returncode == 0, r.stderr
    said = [ln for ln in r.stderr.splitlines() if ln.startswith("recorder:")]
    assert len(said) == 1 and said[0].startswith("recorder: wrote out" + ext), r.stderr
    assert ".rec" not in r.stderr, r.stderr
    out = tmp_path / ("out" + ext)
    if ext == ".json":
        got = [(n, a) for _, n, a in trace_slices(json.load(open(out)))]
    elif ext == ".pftrace":
        got = [(e["name"], e["args"]) for e in _pftrace().decode(str(out))["events"] if e["ph"] == "B"]
    else:
        rows = list(csv.DictReader(open(out, newline="")))
        got = [(r["name"], {"file": r["file"], "line": int(r["line"])} if r["file"] else {}) for r in rows]
    if ext == ".csv":
        assert ("Worker.run (prog.py:6)", {"file": "prog.py", "line": 6}) in got, got
        assert ("builtins.sorted", {}) in got, got
    else:
        assert ("Worker.run", {"file": "prog.py", "line": 6}) in got, got
        assert ("main", {"file": "prog.py", "line": 8}) in got, got
        assert ("builtins.sorted", {}) in got, got


@pytest.mark.parametrize("ext", [".csv", ".folded", ".rec"])
def test_other_formats(tmp_path, ext):
    r = runner(tmp_path, "-o", "out" + ext, "prog.py")
    assert r.returncode == 0, r.stderr
    out = tmp_path / ("out" + ext)
    if ext == ".csv":
        rows = out.read_text().splitlines()
        assert rows[0].startswith("name,calls,total_ns")
        assert any(row.startswith('"Worker.run (prog.py:6)",2,') for row in rows), rows
    elif ext == ".folded":
        assert any(line.startswith("<module> (prog.py:1);main (prog.py:8);Worker.run (prog.py:6)")
                   for line in out.read_text().splitlines())
    else:
        assert out.read_bytes()[:8] == b"RCRDCAP1"
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".rec") and p != "out.rec"]


def test_capture_json(tmp_path):
    r = runner(tmp_path, "--capture", "-o", "cap.json", "prog.py")
    assert r.returncode == 0, r.stderr
    doc = check_trace(tmp_path / "cap.json")
    assert ("Worker.run" in [n for _, n, _ in trace_slices(doc)])


@pytest.mark.parametrize("output", [None, "s.json"])
def test_signal_passes_through(tmp_path, output):
    code = "import os, signal\ndef die():\n    os.kill(os.getpid(), signal.SIGTERM)\ndie()\n"
    r = runner(tmp_path, *(["-o", output] if output else []), "prog.py", code=code)
    assert r.returncode in ((128 + signal.SIGTERM,) if output else (-signal.SIGTERM,)), r.returncode
    if output:
        names = [n for _, n, _ in trace_slices(check_trace(tmp_path / output))]
        assert names[:2] == ["<module>", "die"]


def test_uncaught_exception(tmp_path):
    r = runner(tmp_path, "prog.py", code="def f():\n    raise ValueError('boom')\nf()\n")
    assert r.returncode == 1
    assert "ValueError: boom" in r.stderr and 'File "' in r.stderr
    assert "recorder/_run.py" not in r.stderr   # the runner's frames are not the program's


@pytest.mark.parametrize("args, status, message", [
    ([], 2, "which program?"),
    (["-l", "prog.py"], 2, "needs -p"),
    (["--bogus", "prog.py"], 2, "unknown option"),
    (["-o", "x.txt", "prog.py"], 2, "extension"),
    (["-o", "x.pftrace.txt", "prog.py"], 2, "recorder: -o x.pftrace.txt: the extension says the format"),
    (["--capture", "-o", "x.csv", "prog.py"], 2, "--capture goes with a timeline"),
    (["--max-depth", "x", "prog.py"], 2, "wants a number"),
    (["--hook", "nope", "prog.py"], 2, "--hook is"),
    (["--capture", "prog.py"], 2, "--capture needs -o"),
    (["missing.py"], 2, "can't open file"),
    (["-o", "t.json", "missing.py"], 2, "can't open file"),
    (["-m", "no_such_module_here"], 1, "No module named"),
    (["--_inner", "-o", "t.json", "prog.py"], 2, "--_inner"),   # the runner's own: -o would be ignored unsaid
])
def test_usage_errors(tmp_path, args, status, message):
    r = runner(tmp_path, *args)
    assert r.returncode == status and message in r.stderr, (r.returncode, r.stderr)
    assert not (tmp_path / "t.json").exists()


def test_help(tmp_path):
    r = runner(tmp_path, "--help")
    assert r.returncode == 0 and r.stdout.startswith("usage: python3 -m recorder")
    for opt in ("-o, --output", "-p, --partial", "-l, --lines", "--no-native", "--filter", "--filter-out",
                "--max-depth"):
        assert opt in r.stdout


def test_runner_filters(tmp_path):
    (tmp_path / "mylib.py").write_text("def helper():\n    return 1\n")
    code = "import mylib\ndef top():\n    return mylib.helper()\ntop()\n"
    r = runner(tmp_path, "--filter", "mylib", "-o", "f.json", "prog.py", code=code)
    assert r.returncode == 0, r.stderr
    got = {(n, a.get("file")) for _, n, a in trace_slices(check_trace(tmp_path / "f.json"))}
    assert got == {("<module>", "mylib.py"), ("helper", "mylib.py")}, got
    r = runner(tmp_path, "--filter-out", "mylib", "--max-depth", "2", "-o", "g.json", "prog.py", code=code)
    doc = check_trace(tmp_path / "g.json")
    names = [n for _, n, _ in trace_slices(doc)]
    assert names[0] == "<module>" and "top" in names and "helper" not in names, names
    depth = deepest = 0
    for e in doc["traceEvents"]:
        depth += {"B": 1, "E": -1}.get(e.get("ph"), 0)
        deepest = max(deepest, depth)
    assert deepest == 2, deepest


def test_filter_items_beyond_the_bound_are_refused(tmp_path):
    """--filter and --filter-out hold at most 32 substrings each (the
    writer's bound, REC__MAX_FILTERS): the last of 32 counts, and a 33rd is
    refused before the program starts, never dropped unsaid (the extension
    ignored every item after its own 64th, so a --filter-out module was
    recorded)."""
    (tmp_path / "mylib.py").write_text("def helper():\n    return 1\n")
    code = "import mylib\nopen('started', 'w').close()\nmylib.helper()\n"
    decoys = [f"zz{i}" for i in range(64)]
    r = runner(tmp_path, "--filter-out", ",".join(decoys[:31] + ["mylib"]), "-o", "f.json", "prog.py", code=code)
    assert r.returncode == 0, r.stderr
    names = [n for _, n, _ in trace_slices(check_trace(tmp_path / "f.json"))]
    assert "helper" not in names, names
    os.unlink(tmp_path / "started")
    for opt in ("--filter", "--filter-out"):
        for n in (32, 64):
            r = runner(tmp_path, opt, ",".join(decoys[:n] + ["mylib"]), "-o", "g.json", "prog.py", code=code)
            assert r.returncode == 2 and f"{opt}: at most 32" in r.stderr, (opt, n, r.returncode, r.stderr)
            assert not (tmp_path / "started").exists() and not (tmp_path / "g.json").exists()


def test_json_args_from_every_export(tmp_path):
    """File and line are args in every JSON the exporter writes of a
    Python program, not only the runner's: `recorder convert` of its
    capture and `recorder dump` of its segment; the same on B and E (the
    strict checker pairs them); the .pftrace the same, as debug
    annotations."""
    r = runner(tmp_path, "--all-builtins", "-o", "c.rec", "prog.py")
    assert r.returncode == 0, r.stderr
    for fmt, out in (("json", "c.json"), ("perfetto", "c.pftrace")):
        conv = run([CLI, "convert", str(tmp_path / "c.rec"), "-o", str(tmp_path / out)])
        assert conv.returncode == 0, conv.stderr
    doc = check_trace(tmp_path / "c.json")
    sl = [(n, a) for _, n, a in trace_slices(doc)]
    assert ("Worker.run", {"file": "prog.py", "line": 6}) in sl and ("builtins.sorted", {}) in sl, sl
    ends = [(e["name"], e.get("args")) for e in doc["traceEvents"] if e["ph"] == "E"]
    assert ("Worker.run", {"file": "prog.py", "line": 6}) in ends, ends
    assert not [n for n, _ in sl if "(prog.py:" in n], sl
    pf = _pftrace().decode(str(tmp_path / "c.pftrace"))
    begins = [(e["name"], e["args"]) for e in pf["events"] if e["ph"] == "B"]
    assert ("Worker.run", {"file": "prog.py", "line": 6}) in begins and ("builtins.sorted", {}) in begins, begins


def test_command_mode(tmp_path):
    """-c CODE runs the code as `python3 -c` does (argv[0] "-c", the cwd on
    the path), recorded, with -o and without; -c with no code is a usage
    error."""
    code = "import sys\ndef f(n):\n    return n * 2\nprint(f(21), sys.argv[1:], sys.argv[0])\n"
    r = runner(tmp_path, "-o", "c.json", "-c", code, "a", "b")
    assert r.returncode == 0, r.stderr
    assert "42 ['a', 'b'] -c" in r.stdout
    doc = check_trace(tmp_path / "c.json")
    names = {e["name"] for e in doc["traceEvents"] if e.get("ph") == "B"}
    assert "f" in names and "<module>" in names, names
    r = runner(tmp_path, "-c", "raise SystemExit(5)")
    assert r.returncode == 5, r.stderr
    r = runner(tmp_path, "-c")
    assert r.returncode == 2 and "-c wants" in r.stderr
