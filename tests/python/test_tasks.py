"""asyncio tasks told apart (python/src/tasks.c, docs/python.md "asyncio
tasks"): three tasks run the same coroutine concurrently; in the JSON that
`recorder convert` writes of the capture, each resume slice of `fetch`
holds an instant "asyncio task" naming its task and a flow step whose id
is its task's, so the resumes group into three tasks, each its own chain."""
import pytest

from conftest import CLI, HOOKS, PY, check_trace, child_env, run

PROG = """
import asyncio
async def fetch(n):
    for _ in range(3):
        await asyncio.sleep(0)
    return n
async def main():
    tasks = [asyncio.create_task(fetch(i), name=f"fetcher-{i}") for i in range(3)]
    return await asyncio.gather(*tasks)
assert asyncio.run(main()) == [0, 1, 2]
"""


def slices_with_contents(doc):
    """Per thread, B/E paired: [(name, ts, end, [events inside])]."""
    by_tid, out = {}, []
    for e in doc["traceEvents"]:
        if e.get("ph") in ("B", "E", "i", "X"):
            by_tid.setdefault(e["tid"], []).append(e)
    for evs in by_tid.values():
        stack = []
        for e in evs:
            if e["ph"] == "B":
                stack.append([e["name"], e["ts"], None, []])
            elif e["ph"] == "E":
                s = stack.pop()
                s[2] = e["ts"]
                out.append(s)
            elif stack:
                stack[-1][3].append(e)
    return out


@pytest.mark.parametrize("hook", HOOKS)
def test_three_tasks_same_coroutine_told_apart(tmp_path, hook):
    (tmp_path / "prog.py").write_text(PROG)
    r = run([PY, "-m", "recorder", "--hook", hook, "--no-native" if hook == "eval" else "--all-builtins",
             "-o", "c.rec", "prog.py"], cwd=tmp_path, env=child_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    conv = run([CLI, "convert", str(tmp_path / "c.rec"), "-o", str(tmp_path / "c.json")])
    assert conv.returncode == 0, conv.stderr
    doc = check_trace(tmp_path / "c.json")
    fetch = [s for s in slices_with_contents(doc) if s[0] == "fetch"]
    assert len(fetch) == 3 * 4, [s[0] for s in fetch]   # each task: its start and 3 resumes
    tasks = {}
    for name, _, _, inside in fetch:
        marks = [e["args"]["msg"] for e in inside if e["ph"] == "i" and e["name"] == "asyncio task"]
        flows = [e["bind_id"] for e in inside if e.get("name") == "flow"]
        assert len(marks) == 1 and len(flows) == 1, inside
        tasks.setdefault(marks[0], set()).add(flows[0])
    assert sorted(tasks) == ["fetcher-0", "fetcher-1", "fetcher-2"], tasks
    ids = [next(iter(v)) for v in tasks.values()]
    assert all(len(v) == 1 for v in tasks.values()) and len(set(ids)) == 3, tasks   # one chain per task
    # main() runs as a task too (asyncio.run's), and so do asyncio's own
    # shutdown coroutines; asyncio.sleep's coroutine is resumed inside
    # fetch's step and is not marked again
    everything = slices_with_contents(doc)
    for name, _, _, inside in everything:
        marks = [e for e in inside if e["ph"] == "i" and e["name"] == "asyncio task"]
        if name == "main":
            assert len(marks) == 1, inside
        if name == "sleep":
            assert not marks, inside
    assert any(s[0] == "sleep" for s in everything)
