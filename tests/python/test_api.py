"""The API usable without the runner: scope (context manager, decorator),
signpost, counter, thread_name, flows -- what each records, and the
errors it gives for wrong arguments."""
import pytest

from conftest import run_recorded


def test_scope_context_manager_and_decorator(tmp_path):
    code = """
import recorder
@recorder.scope("step")
def step(x):
    return x + 1
@recorder.scope
def bare():
    with recorder.scope("inner"):
        pass
class Model:
    @recorder.scope("Model.forward")
    def forward(self, x):
        return step(x)
def fails():
    with recorder.scope("boom"):
        raise ValueError("x")
with recorder.scope("outer"):
    assert Model().forward(1) == 2
    bare()
    try:
        fails()
    except ValueError:
        pass
s = recorder.scope("reused")
for _ in range(3):
    with s:
        pass
assert step.__name__ == "step" and step.__wrapped__(1) == 2 and step.scope_name == "step"
"""
    seg, _ = run_recorded(tmp_path, code)
    seg.assert_well_formed()
    main = seg.thread("MainThread")
    top = [s for s in main.slices if s["depth"] == 0]
    assert [s["name"] for s in top] == ["outer", "reused", "reused", "reused"]
    assert [c["name"] for c in top[0]["children"]] == ["Model.forward", "bare", "boom"]
    assert [c["name"] for c in top[0]["children"][0]["children"]] == ["step"]
    assert [c["name"] for c in top[0]["children"][1]["children"]] == ["inner"]


def test_signpost_counter_thread_name_flows(tmp_path):
    long_msg = "é" * 30     # 60 bytes: cut to 45 bytes, whole characters
    code = f"""
import recorder, threading
recorder.signpost("Run number 5", "This is the run after 5 warmup runs")
recorder.signpost(header="Run result post proc")
recorder.signpost("long", {long_msg!r})
recorder.counter("kv_cache_tokens", 1234)
recorder.counter("ratio", 0.5)
def worker():
    recorder.thread_name("decoder-0")
    with recorder.scope("consume"):
        recorder.flow_end(42)
with recorder.scope("produce"):
    recorder.flow_begin(42)
    t = threading.Thread(target=worker)
    t.start(); t.join()
"""
    seg, _ = run_recorded(tmp_path, code)
    seg.assert_well_formed()
    main = seg.thread("MainThread")
    inst = [(e["name"], e["msg"]) for e in main.others("I")]
    assert inst[:2] == [("Run number 5", "This is the run after 5 warmup runs"), ("Run result post proc", "")]
    assert inst[2] == ("long", "é" * 22)
    assert [(e["name"], e["value"]) for e in main.others("C")] == [("kv_cache_tokens", 1234), ("ratio", 0.5)]
    assert [e["id"] for e in main.others("s")] == [42]
    worker = seg.thread("decoder-0")
    assert [e["id"] for e in worker.others("f")] == [42]
    assert worker.names() == ["consume"]


@pytest.mark.parametrize("call, error", [
    ("recorder.scope(3)", "TypeError"),
    ("recorder.scope('a', 'b')", "TypeError"),
    ("recorder.signpost(3)", "TypeError"),
    ("recorder.signpost()", "TypeError"),
    ("recorder.signpost('h', message=b'x')", "TypeError"),
    ("recorder.counter('c', 'x')", "TypeError"),
    ("recorder.counter(1, 2)", "TypeError"),
    ("recorder.thread_name(None)", "TypeError"),
    ("recorder.flow_begin('x')", "TypeError"),
    ("recorder.enable(filter='abc')", "TypeError"),
    ("recorder.enable(filter_out=[f'x{i}' for i in range(65)])", "ValueError"),   # not dropped unsaid
    ("recorder.Profiler(filter=['x'] * 33).enable()", "ValueError"),
    ("recorder.enable(hook='nope')", "ValueError"),
])
def test_wrong_arguments(tmp_path, call, error):
    _, r = run_recorded(tmp_path, f"import recorder\n{call}\n", footer=False, check=False)
    assert r.returncode == 1 and f"{error}:" in r.stderr, r.stderr


def test_scope_refuses_generators_and_coroutines(tmp_path):
    code = """
import recorder
for f in ("def g():\\n    yield 1", "async def g():\\n    pass", "async def g():\\n    yield 1"):
    ns = {}
    exec(f, ns)
    try:
        recorder.scope("x")(ns["g"])
    except TypeError as e:
        assert "generator or coroutine" in str(e)
    else:
        raise SystemExit("accepted " + f)
"""
    run_recorded(tmp_path, code, footer=False)


def test_recording_off(tmp_path):
    code = """
import recorder
with recorder.scope("x"):
    recorder.signpost("y")
recorder.enable()
def f(): pass
f()
recorder.disable()
assert recorder.segment_path() is None and recorder.init() is None
"""
    seg, _ = run_recorded(tmp_path, code, env={"RECORDER": "0"})
    assert seg is None
