"""C code in the same lanes: a library that includes recorder.h, loaded
with ctypes, records into the Python process's segment, its scopes nested
inside the Python scope that called it and around the Python callbacks it
makes, on that thread's lane."""
import pytest

from conftest import TEST_LIB, run_recorded

PROG = """
import ctypes, recorder, threading, sys
lib = ctypes.CDLL({lib!r})
lib.native_segment.restype = ctypes.c_char_p
native_work = lib.native_work      # looked up now: ctypes' lookup is Python code
CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int)
def callback(i):
    return i * 10
cb = CB(callback)
def call_native(n):
    return native_work(n, cb)
order = sys.argv[1]
if order == "c-first":
    c_seg = lib.native_segment().decode()   # the C copy makes the segment
{enable}
if order == "py-first":
    recorder.signpost("python first")       # the Python copy makes it
    c_seg = lib.native_segment().decode()
assert call_native(2) == 10
t = threading.Thread(target=call_native, args=(1,), name="worker")
t.start(); t.join()
recorder.disable()
assert c_seg == recorder.segment_path(), (c_seg, recorder.segment_path())
"""


@pytest.mark.parametrize("order", ["c-first", "py-first"])
def test_c_scopes_nest_in_python_scopes(tmp_path, hook, order):
    assert TEST_LIB, "RECORDER_TEST_LIB is not set"
    enable = f"recorder.enable(hook={hook!r}, native=False)"
    seg, _ = run_recorded(tmp_path, PROG.format(lib=TEST_LIB, enable=enable), args=[order])
    seg.assert_well_formed()
    for lane, n in (("MainThread", 2), ("worker", 1)):
        t = seg.thread(lane)
        call = [s for s in t.slices if s["name"] == "call_native (prog.py:10)"]
        assert len(call) == 1, (lane, t.names())
        work = call[0]["children"]
        assert [w["name"] for w in work] == ["native_work"], (lane, t.names())
        steps = work[0]["children"]
        assert [s["name"] for s in steps] == [f"native_step.{i}" for i in range(n)]
        for s in steps:
            assert [c["name"] for c in s["children"]] == ["callback (prog.py:7)"]
        assert [c["name"] for c in t.others("C")] == ["native_acc"]
    # one thread slot per thread: the copies share them
    assert sorted(t.name for t in seg.threads) == ["MainThread", "worker"]
