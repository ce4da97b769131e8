"""pytest_plugin.py -- pytest fixtures that record one test.

Registered through the package's entry point (pytest11), so any pytest run
where recorder is importable has them:

    def test_split_heads(device, recorder_profile):   # or tracy_profile
        ...

The test (with the fixtures set up after this one) is recorded on every
thread, after a signpost named after the test; run it under
`python3 -m recorder -p -o trace.json -m pytest ...` to get a trace file,
or watch it live.  Without -p, recording is on anyway and the fixture only
adds the scope.  Loading the plugin costs nothing until a fixture is used.
"""
import pytest


@pytest.fixture
def recorder_profile(request):
    """Record this test: a recorder.Profiler enabled around it."""
    from recorder import Profiler, signpost
    profiler = Profiler()
    profiler.enable()
    try:
        signpost(f"test {request.node.nodeid}")
        yield profiler
    finally:
        profiler.disable()


@pytest.fixture
def tracy_profile(recorder_profile):
    """Tracy's name for recorder_profile, for tests written for Tracy."""
    yield recorder_profile
