"""Builtins recorded only when they last long enough to matter
(python/src/builtins.c, docs/python.md "Builtins"): a builtin shorter than
the threshold is counted on its lane, not recorded; one that lasts it is
recorded with its own begin time; one with something recorded inside it
is recorded whatever its length; 0 (--all-builtins) records every one.

No test depends on how long a call takes on a loaded machine: "short"
means under a threshold of an hour, "long" is a sleep well past one of
20 ms (a sleep never returns early)."""
from conftest import NATIVE_HOOKS, run_recorded

import pytest

HOUR_US = 3600 * 10**6
WORK = """
import recorder, time
def cb(x):
    return -x
def work():
    xs = [3, 1, 2]
    for _ in range(5000):
        len(xs)
    sorted(xs, key=cb)     # a Python callback inside: recorded with it
    time.sleep(0.05)
"""


def in_order(t):
    """Ring order is time order on the lane, and each slice lies in its
    parent."""
    ns = [e["ns"] for e in t.events if "ns" in e]
    assert ns == sorted(ns), "events out of time order"

    def inside(s):
        for c in s["children"]:
            assert s["begin"] <= c["begin"] <= c["end"] <= s["end"], (s["name"], c["name"])
            inside(c)
    for s in t.slices:
        if s["depth"] == 0:
            inside(s)


@pytest.fixture(params=NATIVE_HOOKS)
def hook(request):
    return request.param


def work_slice(seg):
    main = seg.thread("MainThread")
    work = [s for s in main.slices if s["name"] == "work (prog.py:5)"]
    assert len(work) == 1, main.names()
    return main, work[0]


def test_short_builtins_counted_not_recorded(tmp_path, hook):
    code = WORK + f"recorder.enable(hook={hook!r}, builtin_min_us={HOUR_US})\nwork()\nrecorder.disable()\n"
    seg, _ = run_recorded(tmp_path, code)
    seg.assert_well_formed()
    main, work = work_slice(seg)
    in_order(main)
    kids = [c["name"] for c in work["children"]]
    # len and sleep are under an hour: not recorded; sorted holds a
    # recorded callback, so it is recorded around it
    assert kids == ["builtins.sorted"], kids
    assert [c["name"] for c in work["children"][0]["children"]] == ["cb (prog.py:3)"] * 3
    counts = [e for e in main.others("C") if e["name"].startswith("builtins under ")]
    assert counts and counts[0]["name"] == f"builtins under {HOUR_US * 1000} ns (not recorded)", counts
    assert max(c["value"] for c in counts) >= 4096   # 5000 len calls, counted in steps of 4096


def test_long_builtin_recorded_from_its_start(tmp_path, hook):
    code = WORK + f"recorder.enable(hook={hook!r}, builtin_min_us=20000)\nwork()\nrecorder.disable()\n"
    seg, _ = run_recorded(tmp_path, code)
    seg.assert_well_formed()
    main, work = work_slice(seg)
    in_order(main)
    kids = [c for c in work["children"]]
    # (a len call the scheduler preempted for 20 ms may be there too: not asserted)
    assert [c["name"] for c in kids][-1] == "time.sleep", [c["name"] for c in kids]
    sleep = kids[-1]
    assert sleep["end"] - sleep["begin"] >= 50 * 10**6 * 0.99   # its begin is the call's time, not the return's


def test_all_builtins(tmp_path, hook):
    code = WORK + f"recorder.enable(hook={hook!r}, builtin_min_us=0)\nwork()\nrecorder.disable()\n"
    seg, _ = run_recorded(tmp_path, code)
    seg.assert_well_formed()
    main, work = work_slice(seg)
    names = [c["name"] for c in work["children"]]
    assert names.count("builtins.len") == 5000 and names[-2:] == ["builtins.sorted", "time.sleep"], names[-3:]
    assert not [e for e in main.others("C") if e["name"].startswith("builtins under ")]


@pytest.mark.parametrize("flags,want_len", [(["--all-builtins"], True), (["--builtin-us", "0"], True),
                                            (["--builtin-us", str(HOUR_US)], False)])
def test_runner_flags(tmp_path, flags, want_len):
    seg, _ = run_recorded(tmp_path, WORK + "work()\n", runner=flags)
    seg.assert_well_formed()
    main, work = work_slice(seg)
    names = [c["name"] for c in work["children"]]
    assert (names.count("builtins.len") == 5000) == want_len, names[:5]
    assert ("builtins.len" in names) == want_len, names[:5]
    assert ("time.sleep" in names) == want_len, names[-3:]


def test_runner_default_threshold(tmp_path):
    """Without a flag the runner asks for 10 us (which calls fall under it
    depends on the machine: not tested here)."""
    code = "from recorder import _control\nprint(_control.defaults()['builtin_min_us'])\n"
    _, r = run_recorded(tmp_path, code, runner=[], footer=False)
    assert r.stdout.split() == ["10"], r.stdout


def test_runner_refuses_bad_threshold(tmp_path):
    _, r = run_recorded(tmp_path, "pass\n", runner=["--builtin-us", "-1"], footer=False, check=False)
    assert r.returncode != 0 and "--builtin-us" in r.stderr


def test_call_site_switched_off_after_a_python_callee(tmp_path, hook):
    """3.12+ (monitoring): a site whose first callee is a Python function is
    switched off (DISABLE), so a builtin it calls later is not seen until
    the next start; every site stays watched with 0 (--all-builtins).  The
    profile hook has no such switch: it sees it."""
    code = """
import recorder, time
def py(x):
    return x
def call(f, x):
    return f(x)
def work():
    call(py, 1)
    call(time.sleep, 0.05)
"""
    for min_us in (20000, 0):
        code += (f"recorder.enable(hook={hook!r}, builtin_min_us={min_us})\nwork()\nrecorder.disable()\n")
    seg, _ = run_recorded(tmp_path, code)
    seg.assert_well_formed()
    main = seg.thread("MainThread")
    calls = [s for s in main.slices if s["name"] == "call (prog.py:5)"]
    assert len(calls) == 4, main.names()
    sleeps = [[c["name"] for c in s["children"]] for s in calls[1::2]]
    switched = hook == "monitoring"
    assert sleeps[0] == ([] if switched else ["time.sleep"]), sleeps
    assert sleeps[1] == ["time.sleep"], sleeps
