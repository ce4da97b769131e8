"""Child processes: an os.fork() child records into a segment of its own
(nothing of its parent's open scopes in it); multiprocessing workers --
fork, spawn and forkserver -- each record, and `python3 -m recorder -o`
gathers a trace per process; --no-follow leaves spawned children out."""
import glob
import os

import pytest

from conftest import PY, assert_no_loss, check_trace, child_env, read_segment, run, run_recorded


def test_fork_child_has_its_own_segment(tmp_path, hook):
    code = f"""
import os, recorder
def in_child():
    return 1
def forker():
    return os.fork()
recorder.enable(hook={hook!r}, native=False)
if forker() == 0:
    # The child returns from forker, begun in the parent, then records.
    in_child()
    recorder.signpost("child")
    open("child_seg.txt", "w").write(recorder.segment_path())
    os._exit(0)
os.wait()
in_child()
recorder.disable()
"""
    seg, _ = run_recorded(tmp_path, code)
    seg.assert_well_formed()
    parent = seg.thread("MainThread").names()
    assert parent == ["forker (prog.py:5)", "in_child (prog.py:3)"], parent
    child_path = (tmp_path / "child_seg.txt").read_text()
    child = read_segment(child_path)
    os.unlink(child_path)
    assert child.doc["pid"] != seg.doc["pid"]
    t = child.thread("MainThread")
    # The child's segment starts at the fork: no end of forker's scope
    # (begun in the parent); then what the child runs (os.fork's
    # after-fork handlers first).
    assert not t.problems, t.problems
    assert "in_child (prog.py:3)" in t.names() and "forker (prog.py:5)" not in t.names(), t.names()
    assert not t.open, t.open
    assert [e["name"] for e in t.others("I")] == ["child"]


MP = """
import multiprocessing as mp, sys
def work(x):
    return x * x
def main(method):
    with mp.get_context(method).Pool(2) as pool:
        return sum(pool.map(work, range(6)))
if __name__ == "__main__":
    assert main(sys.argv[1]) == 55
"""


@pytest.mark.parametrize("method, follow", [("fork", True), ("spawn", True), ("forkserver", True),
                                             ("spawn", False)])
def test_multiprocessing_workers(tmp_path, method, follow):
    (tmp_path / "mp.py").write_text(MP)
    opts = [] if follow else ["--no-follow"]
    r = run([PY, "-m", "recorder", *opts, "--no-native", "-o", "mp.json", "mp.py", method],
                       cwd=tmp_path, env=child_env(), timeout=300)
    assert r.returncode == 0, r.stderr
    # One trace: the main process and its workers, a process track each.
    main = check_trace(tmp_path / "mp.json")
    assert_no_loss(main)
    pids = {e["pid"] for e in main["traceEvents"]}
    main_pid = [e["pid"] for e in main["traceEvents"] if e.get("ph") == "B" and e["name"] == "main"]
    assert main_pid
    works = [e["pid"] for e in main["traceEvents"] if e.get("ph") == "B" and e["name"] == "work"]
    assert main_pid[0] not in works
    assert not glob.glob(str(tmp_path / "mp.*.json"))
    if follow:
        assert len(works) == 6, (pids, r.stderr)
    else:
        assert not works and pids == {main_pid[0]}, pids
