"""What each hook records: calls, threads, exceptions, generators,
coroutines, filters, depth, builtins, and stopping.  Every test runs for
every hook this interpreter offers (eval, profile; monitoring on 3.12+),
builtins for those that see them."""
import sys

import pytest

from conftest import run_recorded

FIB = """
import recorder, sys
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
"""


def enable(hook, native=False, **kw):
    args = ", ".join([f"hook={hook!r}", f"native={native!r}"] + [f"{k}={v!r}" for k, v in kw.items()])
    return f"recorder.enable({args})\n"


def test_calls_nest_with_file_and_line(tmp_path, hook):
    seg, _ = run_recorded(tmp_path, FIB + enable(hook) + "fib(4)\nrecorder.disable()\n")
    seg.assert_well_formed()
    main = seg.thread("MainThread")
    fibs = [s for s in main.slices if s["name"] == "fib (prog.py:3)"]
    assert len(fibs) == 9                      # fib(4) makes 9 calls
    assert fibs[0]["depth"] == 0 and max(s["depth"] for s in fibs) == 3
    assert all(s["parent"] in (None, "fib (prog.py:3)") for s in fibs)
    # nothing of recorder's own (enable/disable) is recorded
    assert not [n for n in main.names() if "recorder" in n or "_control" in n], main.names()


def test_threads_before_and_after_start(tmp_path, hook):
    code = FIB + """
import threading
go = threading.Event(); stop = threading.Event()
def early():
    go.wait()
    fib(2)
    stop.wait()
t1 = threading.Thread(target=early, name="early")
t1.start()
""" + enable(hook) + """
go.set()
t2 = threading.Thread(target=fib, args=(2,), name="late")
t2.start(); t2.join()
import time; time.sleep(0.2)
stop.set(); t1.join()
recorder.disable()
"""
    seg, _ = run_recorded(tmp_path, code)
    seg.assert_well_formed()
    assert "fib (prog.py:3)" in seg.thread("late").names()
    # A thread running before the start is covered once it calls again.
    assert "fib (prog.py:3)" in seg.thread("early").names()


def test_thread_started_without_threading(tmp_path, hook):
    # _thread.start_new_thread after the start: the eval and monitoring
    # hooks cover it; the profile hook does not (docs/python.md, "Hooks"):
    # this pins down both, so the docs change if either does.
    code = FIB + """
import _thread, threading
done = threading.Event()
def raw():
    recorder.thread_name("raw")
    fib(2)
    done.set()
""" + enable(hook) + """
_thread.start_new_thread(raw, ())
assert done.wait(30)
import time; time.sleep(0.1)
recorder.disable()
"""
    seg, _ = run_recorded(tmp_path, code)
    seg.assert_well_formed()
    names = seg.thread("raw").names()
    if hook != "profile":
        assert "fib (prog.py:3)" in names, names
    else:
        assert names == [], names


def test_exceptions_close_every_scope(tmp_path, hook):
    code = """
import recorder
def c(): raise KeyError("x")
def b(): c()
def a():
    try:
        b()
    except KeyError:
        pass
    return 1
""" + enable(hook) + "a()\nrecorder.disable()\n"
    seg, _ = run_recorded(tmp_path, code)
    seg.assert_well_formed()
    main = seg.thread("MainThread")
    by = {s["name"].split(" ")[0]: s for s in main.slices}
    assert by["c"]["parent"].startswith("b ") and by["b"]["parent"].startswith("a ")
    assert all(s["end"] is not None for s in main.slices)


def test_generators_each_resume_and_abandoned(tmp_path, hook):
    code = """
import recorder, gc
def gen():
    yield 1
    yield 2
    yield 3
def use():
    g = gen()
    next(g); next(g)      # two resumes, then abandoned while suspended
    del g
    gc.collect()
    return list(gen())    # four resumes: three yields and the end
""" + enable(hook) + "use()\nrecorder.disable()\n"
    seg, _ = run_recorded(tmp_path, code)
    seg.assert_well_formed()
    main = seg.thread("MainThread")
    gens = [s for s in main.slices if s["name"].startswith("gen (")]
    # 2 resumes + the close of the abandoned one (GeneratorExit thrown in;
    # 3.13 closes a generator suspended outside try/with without running
    # it) + 4
    closing = 1 if sys.version_info < (3, 13) else 0
    assert len(gens) == 2 + closing + 4, main.names()
    assert all(s["parent"].startswith("use (") for s in gens)


def test_coroutines_interleaved(tmp_path, hook):
    code = """
import recorder, asyncio
async def leaf(i):
    await asyncio.sleep(0)
    return i
async def task(i):
    a = await leaf(i)
    await asyncio.sleep(0)
    return a + await leaf(i)
async def main():
    return await asyncio.gather(task(1), task(2), task(3))
""" + enable(hook) + "asyncio.run(main())\nrecorder.disable()\n"
    seg, _ = run_recorded(tmp_path, code)
    seg.assert_well_formed()
    names = seg.thread("MainThread").names()
    # each task resumes at least three times (start, after each await)
    assert names.count("task (prog.py:6)") >= 9, names
    assert names.count("leaf (prog.py:3)") >= 12


def test_filters_on_module_and_file(tmp_path, hook):
    (tmp_path / "keepme.py").write_text("def kept():\n    return dropped()\ndef dropped():\n    return 1\n")
    (tmp_path / "other.py").write_text("def other():\n    return 2\n")
    code = "import keepme, other, recorder\n" + enable(hook, filter=["keepme"]) + \
        "keepme.kept(); other.other()\nrecorder.disable()\n" + \
        enable(hook, filter_out=["other"]) + "keepme.kept(); other.other()\nrecorder.disable()\n"
    seg, _ = run_recorded(tmp_path, code)
    seg.assert_well_formed()
    names = seg.thread("MainThread").names()
    assert names.count("kept (keepme.py:1)") == 2 and names.count("dropped (keepme.py:3)") == 2
    assert "other (other.py:1)" not in names


def test_max_depth(tmp_path, hook):
    seg, _ = run_recorded(tmp_path, FIB + enable(hook, max_depth=2) + "fib(5)\nrecorder.disable()\n")
    seg.assert_well_formed()
    main = seg.thread("MainThread")
    assert main.slices and max(s["depth"] for s in main.slices) == 1
    assert len(main.slices) == 3   # fib(5), fib(4), fib(3)


def test_stop_ends_open_scopes_as_they_return(tmp_path, hook):
    code = """
import recorder
def after(): return 1
def inner():
    recorder.disable()   # scopes open here end when their frames return
    after()              # not recorded
    return 2
def outer():
    inner()
    after()              # not recorded
    return 3
""" + enable(hook) + "outer()\nafter()\n"
    seg, _ = run_recorded(tmp_path, code)
    seg.assert_well_formed()
    names = seg.thread("MainThread").names()
    assert names == ["outer (prog.py:8)", "inner (prog.py:4)"], names


def test_builtins_named_by_module(tmp_path, native_hook):
    code = """
import recorder, time, math
def work():
    xs = []
    xs.append(3)
    sorted(xs)
    time.monotonic()
    try:
        math.sqrt(-1)      # a builtin that raises ends its scope too
    except ValueError:
        pass
    return dict.fromkeys(xs)
""" + enable(native_hook, native=True, builtin_min_us=0) + "work()\nrecorder.disable()\n" + \
        enable(native_hook, native=False) + "work()\nrecorder.disable()\n"
    seg, _ = run_recorded(tmp_path, code)
    seg.assert_well_formed()
    main = seg.thread("MainThread")
    work = [s for s in main.slices if s["name"] == "work (prog.py:3)"]
    assert len(work) == 2
    kids = [c["name"] for c in work[0]["children"]]
    assert kids == ["builtins.list.append", "builtins.sorted", "time.monotonic", "math.sqrt",
                    "builtins.dict.fromkeys"], kids
    assert work[1]["children"] == []   # native=False


def test_eval_hook_refuses_builtins(tmp_path):
    if "eval" not in __import__("conftest").HOOKS:
        pytest.skip("no eval hook")
    _, r = run_recorded(tmp_path, "import recorder\nrecorder.enable(hook='eval', native=True)\n",
                        footer=False, check=False)
    assert r.returncode != 0 and "Python calls only" in r.stderr
