"""examples/python/inference.py, the Python demo, under the runner: its
decoder threads' lanes hold the Python scopes, the numpy functions they
call, and the example's own scopes, counters, signposts and flows."""
import os

import pytest

from conftest import PY, assert_no_loss, check_trace, child_env, run

pytest.importorskip("numpy")
EXAMPLE = os.path.join(os.environ.get("RECORDER_EXAMPLES", ""), "inference.py")


def test_inference_example(tmp_path):
    # --all-builtins: x.max(-1) on a small array is shorter than the default
    # threshold (10 us) on a fast machine, longer under ASan: every one here
    r = run([PY, "-m", "recorder", "--all-builtins", "-o", "inf.json", EXAMPLE, "--requests", "4", "--tokens", "3"],
                       cwd=tmp_path, env=child_env(), timeout=300)
    assert r.returncode == 0, r.stderr
    assert "served 4 requests, 12 tokens" in r.stdout
    doc = check_trace(tmp_path / "inf.json")
    assert_no_loss(doc)
    ev = doc["traceEvents"]
    lanes = {e["tid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "thread_name"}
    assert sorted(lanes.values()) == ["MainThread", "decoder-0", "decoder-1"]
    per = {}
    for e in ev:
        if e.get("ph") == "B":
            per.setdefault(lanes[e["tid"]], []).append(e["name"])
    decoders = per.get("decoder-0", []) + per.get("decoder-1", [])
    assert decoders.count("request") == 4 and decoders.count("token") == 12
    for name in ("Block.forward", "Block.attention", "softmax"):
        assert name in decoders, name
    # numpy's C methods are builtins (x.max(-1) in softmax); numpy 1's
    # array-function dispatcher was one too, numpy 2's is a callable
    # object that no hook reports as a builtin (docs/python.md).
    assert "numpy.ndarray.max" in decoders, decoders
    import numpy
    if int(numpy.__version__.split(".")[0]) < 2:
        assert "numpy.core._multiarray_umath.implement_array_function" in decoders
    assert per["MainThread"].count("enqueue") == 4
    counters = [e for e in ev if e.get("ph") == "C" and e["name"] == "kv_cache_tokens"]
    assert len(counters) == 12
    assert len([e for e in ev if e.get("ph") == "i" and e["name"] == "request done"]) == 4
    # flows: zero-length "flow" slices; an end has flow_in (docs/perfetto.md)
    ends = [e for e in ev if e.get("ph") == "X" and e.get("flow_in") and not e.get("flow_out")]
    assert sorted(e["bind_id"] for e in ends) == [1, 2, 3, 4]
