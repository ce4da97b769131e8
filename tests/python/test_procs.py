"""The runner's processes (issue 20, item 12; issue 21, item 3): a
multiprocessing Pool's workers leave no segment in /dev/shm after
`with Pool(3)` (their os._exit() and Pool.terminate()'s SIGTERM skip
atexit), unless --keep; a worker's segment is named as Python names it
(ForkPoolWorker-N); a process ended by SIGTERM removes its segment; and
the runner's default ring per thread is the one docs/python.md gives."""
import json
import os
import re
import subprocess

from conftest import CLI, PY, child_env, remove_segment_of, run

# Each worker takes one task and waits for the others at a barrier: all
# three have started (a worker still starting when terminate() comes never
# becomes one, and keeps the interpreter's name) -- a condition, not a wait.
POOL = """
import os
from multiprocessing import Barrier, Pool
def init(b):
    global barrier
    barrier = b
def work(i):
    barrier.wait(120)
    return os.getpid()
if __name__ == "__main__":
    with Pool(3, initializer=init, initargs=(Barrier(3),)) as p:
        workers = [w.pid for w in p._pool]
        assert len(set(p.map(work, range(3), chunksize=1))) == 3
    print(os.getpid(), *workers)
"""


def segments_of(pid):
    return [n for n in os.listdir("/dev/shm") if n == f"recorder.{pid}" or n.startswith(f"recorder.{pid}.")]


def run_pool(tmp_path, *opts, env=None):
    (tmp_path / "pool.py").write_text(POOL)
    r = run([PY, "-m", "recorder", *opts, "pool.py"], cwd=tmp_path, env=child_env(**(env or {})), timeout=120)
    assert r.returncode == 0, r.stderr
    main, *workers = map(int, r.stdout.split())
    assert len(workers) == 3, r.stdout
    return main, workers


def test_pool_workers_leave_no_segment(tmp_path):
    main, workers = run_pool(tmp_path)
    left = [s for p in [main, *workers] for s in segments_of(p)]
    for p in [main, *workers]:
        remove_segment_of(p)
    assert left == [], left


def test_pool_workers_kept_with_keep_and_named_as_python_names_them(tmp_path):
    main, workers = run_pool(tmp_path, "--keep")
    try:
        r = run([CLI, "ls", "--json"], timeout=60)
        assert r.returncode == 0, r.stderr
        # Each process's own segment, recorder.<pid>: a dead one of the
        # same pid (a pid come round) is moved aside and may be listed too.
        names = {e["pid"]: e["process"] for e in map(json.loads, r.stdout.splitlines())
                 if e.get("name") == f"recorder.{e.get('pid')}"}
        assert all(names.get(w, "").startswith("ForkPoolWorker-") for w in workers), (workers, names)
        assert sorted(names[w] for w in workers) == ["ForkPoolWorker-1", "ForkPoolWorker-2", "ForkPoolWorker-3"]
        assert main in names, "the main process's segment is kept too"
    finally:
        for p in [main, *workers]:
            remove_segment_of(p)


TERM = """
import os, signal, sys
def f():
    return 1
pid = os.fork()
if pid == 0:
    f()   # the child's own segment, then SIGTERM as Pool.terminate() sends it
    os.kill(os.getpid(), signal.SIGTERM)
    signal.pause()
_, status = os.waitpid(pid, 0)
print(os.getpid(), pid, os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM)
"""


def test_sigterm_removes_the_segment_unless_kept(tmp_path):
    (tmp_path / "term.py").write_text(TERM)
    for keep in (False, True):
        r = run([PY, "-m", "recorder", *(["--keep"] if keep else []), "term.py"], cwd=tmp_path, env=child_env(),
                timeout=120)
        assert r.returncode == 0, r.stderr
        main, pid, by_term = r.stdout.split()
        left = segments_of(int(pid))
        remove_segment_of(int(pid))
        remove_segment_of(int(main))   # kept with --keep
        assert by_term == "True", r.stdout   # still dies of the signal
        assert bool(left) == keep, (keep, left)


def documented_ring_kb():
    text = open(os.path.join(os.environ["RECORDER_SOURCE_ROOT"], "docs", "python.md"), encoding="utf-8").read()
    m = re.search(r"runner's ring per thread is \*\*(\d+) KiB\*\*", text)
    assert m, "docs/python.md states the runner's default ring"
    return int(m.group(1))


def ring_kb(*opts, env=None):
    r = subprocess.run([PY, "-m", "recorder", *opts, "-c", "import recorder._native as n; print(n.ring_kb())"],
                       env=child_env(**(env or {})), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return int(r.stdout)


def test_default_ring_is_the_documented_one():
    want = documented_ring_kb()
    assert ring_kb() == want
    assert ring_kb(env={"RECORDER_RING_KB": "2048"}) == 2048   # the variable, if set
    assert ring_kb("--ring-kb", "4096") == 4096                 # the option first
    assert ring_kb("--ring-kb", "4096", env={"RECORDER_RING_KB": "2048"}) == 4096
