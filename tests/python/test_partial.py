"""Partial recording (-p): Profiler, profile(), the pytest fixtures
(through the plugin's entry point) and line mode (-l)."""
import sys

from conftest import PY, assert_no_loss, check_trace, child_env, run, run_recorded, trace_slices

CODE = """
import recorder
def child_function_1():
    return sum(range(10))
def child_function_2():
    return [child_function_1() for _ in range(2)]
def function_under_test():
    child_function_1()
    child_function_2()
function_under_test()            # not recorded
profiler = recorder.Profiler()
profiler.enable()
function_under_test()
profiler.disable()
function_under_test()            # not recorded
with recorder.profile():
    child_function_1()
@recorder.profile()
def decorated():
    return child_function_1()
decorated()
child_function_2()               # not recorded
"""


def test_profiler_records_only_while_enabled(tmp_path):
    seg, _ = run_recorded(tmp_path, CODE, runner=["-p", "--no-native"])
    seg.assert_well_formed()
    main = seg.thread("MainThread")
    top = [s["name"] for s in main.slices if s["depth"] == 0]
    assert top == ["function_under_test (prog.py:7)", "child_function_1 (prog.py:3)", "decorated (prog.py:18)"]
    listcomp = 1 if sys.version_info < (3, 12) else 0   # 3.12 inlines comprehensions (PEP 709)
    assert len(main.slices) == 1 + 1 + 1 + listcomp + 2 + 1 + 1 + 1, main.names()


def test_profiler_without_the_runner(tmp_path):
    seg, _ = run_recorded(tmp_path, CODE)
    top = [s["name"] for s in seg.thread("MainThread").slices if s["depth"] == 0]
    assert top[0] == "function_under_test (prog.py:7)" and "decorated (prog.py:18)" in top


TESTS = """
def helper(n):
    total = 0
    for i in range(n):
        total += i
    return total
def test_profiled(recorder_profile):
    assert helper(3) == 3
def test_tracy(tracy_profile):
    assert helper(2) == 1
def test_not_profiled():
    assert helper(4) == 6
"""


def run_pytest(tmp_path, *opts):
    (tmp_path / "test_sample.py").write_text(TESTS)
    r = run([PY, "-m", "recorder", "-p", *opts, "-o", "p.json", "-m", "pytest", "-q",
                        "-p", "no:cacheprovider", "test_sample.py"],
                       cwd=tmp_path, env=child_env(), timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "3 passed" in r.stdout
    doc = check_trace(tmp_path / "p.json")
    assert_no_loss(doc)
    return doc


def test_pytest_fixtures(tmp_path):
    doc = run_pytest(tmp_path)
    names = [n for _, n, _ in trace_slices(doc)]
    assert names.count("test_profiled") == 1 and names.count("test_tracy") == 1
    assert "test_not_profiled" not in names
    assert names.count("helper") == 2        # helper(3) and helper(2), not helper(4)
    marks = [e["name"] for e in doc["traceEvents"] if e.get("ph") == "i"]
    assert marks == ["test test_sample.py::test_profiled", "test test_sample.py::test_tracy"]


def test_line_mode(tmp_path):
    doc = run_pytest(tmp_path, "-l")
    sl = trace_slices(doc)
    lines = [(n, a) for _, n, a in sl if a.get("function") == "helper"]
    # helper(3): lines 3, 4 x4 (the for, 3 iterations and the end), 5 x3, 6
    got = [n for n, _ in lines[:9]]
    assert got == ["test_sample.py:3"] + ["test_sample.py:4", "test_sample.py:5"] * 3 + \
        ["test_sample.py:4", "test_sample.py:6"], got
    assert lines[0][1] == {"function": "helper", "file": "test_sample.py", "line": 3}
    # each line scope nests inside the function's scope
    ev = [e for e in doc["traceEvents"] if e.get("ph") in ("B", "E")]
    depth, helper_depth = 0, None
    for e in ev:
        if e["ph"] == "B":
            if e["name"] == "helper":
                helper_depth = depth
            elif e.get("args", {}).get("function") == "helper":
                assert depth == helper_depth + 1, e
            depth += 1
        else:
            depth -= 1
