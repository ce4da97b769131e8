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
    code += "from recorder import _native\nprint('K', _native.SITE_OFF_AFTER)\n"
    seg, r = run_recorded(tmp_path, code)
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
    if hook == "monitoring":
        # the len site is switched off after K short calls (the test
        # below), both counters written then
        k = int(r.stdout.split("K ")[1].split()[0])
        assert [c["value"] for c in counts] == [k], counts
    else:
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


SITES = """
import recorder, time
from recorder import _native
K = _native.SITE_OFF_AFTER
print("K", K)
def cb(x):
    return -x
def site(f, xs, k):
    return f(xs, key=k)     # one call site for every call below
def work(n_short):
    xs = [3, 1, 2]
    for _ in range(n_short):
        site(sorted, xs, None)    # short: no callback
    site(sorted, xs, cb)          # a recorded callback inside: recorded if seen
"""


def site_counters(main):
    shorts = [e["value"] for e in main.others("C") if e["name"].startswith("builtins under ")]
    off = [e for e in main.others("C") if e["name"].startswith("builtin call sites switched off")]
    return shorts, off


@pytest.mark.parametrize("extra", [0, -1])
def test_call_site_of_short_builtins_switched_off(tmp_path, hook, extra):
    """3.12+ (monitoring), with a threshold: a call site whose last
    SITE_OFF_AFTER builtins were all short is switched off at its next
    call, until the next start: a builtin there is then not seen, even one
    that would be recorded (here: one with a recorded Python callback
    inside).  What is no longer seen is counted exactly: the short calls
    seen (K) and the sites switched off (1), both written when it happens.
    One short call fewer (extra=-1) and the site is still watched.  The
    profile hook has no such switch.  A new start watches the site again."""
    code = SITES + (f"recorder.enable(hook={hook!r}, builtin_min_us={HOUR_US})\nwork(K + {extra})\n"
                    "recorder.disable()\n") * 2
    seg, r = run_recorded(tmp_path, code)
    k = int(r.stdout.split("K ")[1].split()[0])
    seg.assert_well_formed()
    main = seg.thread("MainThread")
    works = [s for s in main.slices if s["name"].startswith("work (prog.py:")]
    assert len(works) == 2, main.names()
    switched = hook == "monitoring" and extra == 0
    for w in works:   # each start re-arms the site: the same both times
        sites = [s for s in w["children"] if s["name"] == "site (prog.py:8)"]
        last = [c["name"] for c in sites[-1]["children"]]
        assert last == (["cb (prog.py:6)"] * 3 if switched else ["builtins.sorted"]), last
        if not switched:
            assert [c["name"] for c in sites[-1]["children"][0]["children"]] == ["cb (prog.py:6)"] * 3
    shorts, off = site_counters(main)
    if switched:
        assert [e["name"] for e in off] == [f"builtin call sites switched off ({k} calls under "
                                            f"{HOUR_US * 1000} ns in a row; later calls not seen)"] * 2, off
        assert [e["value"] for e in off] == [1, 2], off
        assert shorts == [k, 2 * k], shorts   # exactly the short calls seen
    else:
        assert not off and not shorts, (off, shorts)   # under the 4096 step: nothing written


def test_recorded_builtin_resets_its_site(tmp_path, hook):
    """The count is of short calls in a row: a builtin recorded at the site
    (one with a recorded callback) starts it again, so K - 1 short calls,
    a recorded one, and K - 1 more leave the site watched, and the next
    recorded one is seen too."""
    code = SITES + f"recorder.enable(hook={hook!r}, builtin_min_us={HOUR_US})\nwork(K - 1)\nwork(K - 1)\n" \
        "recorder.disable()\n"
    seg, _ = run_recorded(tmp_path, code)
    seg.assert_well_formed()
    main = seg.thread("MainThread")
    works = [s for s in main.slices if s["name"].startswith("work (prog.py:")]
    assert len(works) == 2, main.names()
    for w in works:
        sites = [s for s in w["children"] if s["name"] == "site (prog.py:8)"]
        assert [c["name"] for c in sites[-1]["children"]] == ["builtins.sorted"], sites[-1]
    assert site_counters(main) == ([], [])


def test_wait_call_site_never_switched_off(tmp_path, hook):
    """A known blocking call (a wait scope: time.sleep) keeps its site
    watched however many short calls it made: a long one there is
    recorded."""
    code = """
import recorder, time
from recorder import _native
def nap(s):
    time.sleep(s)
def work():
    for _ in range(_native.SITE_OFF_AFTER + 5):
        nap(0)
    nap(0.05)
"""
    code += "recorder.enable(hook=%r, builtin_min_us=20000)\nwork()\nrecorder.disable()\n" % hook
    seg, _ = run_recorded(tmp_path, code)
    seg.assert_well_formed()
    main = seg.thread("MainThread")
    naps = [s for s in main.slices if s["name"] == "nap (prog.py:4)"]
    last = naps[-1]["children"]
    assert [c["name"] for c in last] == ["time.sleep"], last
    assert last[0]["end"] - last[0]["begin"] >= 50 * 10**6 * 0.99
    assert not site_counters(main)[1]
