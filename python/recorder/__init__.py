"""recorder -- Python calls, lines and native code in recorder's live segment.

A Python program records into the same shared-memory segment
(/dev/shm/recorder.<pid>) as C code that includes recorder.h, so
recorder-top, recorder-web and `recorder dump` show both, live.

Whole programs:   python3 -m recorder [-o trace.json] script.py args...
                  python3 -m recorder -m pytest tests/
Part of one:      recorder.Profiler().enable() ... .disable()
                  with recorder.profile(): ...
                  the pytest fixture recorder_profile (alias tracy_profile)
Your own marks:   with recorder.scope("load"): ...      @recorder.scope("step")
                  recorder.signpost("run 5", "after warm-up")
                  recorder.counter("queue", 3)
                  recorder.thread_name("worker-0")
                  recorder.flow_begin(7) / flow_step(7) / flow_end(7)

Nothing is recorded until one of these is used; RECORDER=0 turns it all
off.  See docs/python.md.
"""
from . import _native
from ._control import Profiler, profile, enable, disable, is_enabled
from ._native import (
    scope,
    signpost,
    counter,
    thread_name,
    flow_begin,
    flow_step,
    flow_end,
    segment_path,
)

try:
    from ._build_config import VERSION as __version__
except ImportError:  # installed: only the installed configuration is there
    from ._build_config_installed import VERSION as __version__

__all__ = [
    "Profiler",
    "profile",
    "enable",
    "disable",
    "is_enabled",
    "scope",
    "signpost",
    "counter",
    "thread_name",
    "flow_begin",
    "flow_step",
    "flow_end",
    "segment_path",
    "init",
]


def init():
    """Create the process's segment now (it is otherwise made by the first
    event).  Returns its path, or None if recording is off."""
    _native.init()
    return _native.segment_path()
