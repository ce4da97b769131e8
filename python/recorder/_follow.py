"""_follow.py -- recording in child processes.

A fork keeps its parent's hooks and records into a segment of its own by
itself (the writer makes one in the child).  Other Python children --
multiprocessing's spawn and forkserver workers, subprocess running
sys.executable -- start a fresh interpreter: the runner passes them its
options in RECORDER_PYTHON_FOLLOW and puts recorder/_autostart first on
PYTHONPATH, whose sitecustomize (which then runs the one it hides) calls
start_child() before the child's own code.

Not followed: children started with -S, -I or -E (no sitecustomize, or
PYTHONPATH ignored), and interpreters that cannot import this build of
the package (another Python version): those say so on stderr, once, and
run unrecorded.
"""
import json
import os
import sys

ENV = "RECORDER_PYTHON_FOLLOW"
INNER = "RECORDER_PYTHON_INNER"   # set for the runner's own inner process: it starts itself
AUTOSTART = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_autostart")


def config(opts):
    return {"partial": opts.partial, "native": opts.native, "lines": opts.lines, "max_depth": opts.max_depth,
            "filter": list(opts.filter), "filter_out": list(opts.filter_out), "hook": opts.hook,
            "imports": opts.imports}


def with_pythonpath(env, first):
    parts = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    for p in reversed(first):
        if p not in parts:
            parts.insert(0, p)
    env["PYTHONPATH"] = os.pathsep.join(parts)


def setup(env, opts):
    """Make env (os.environ, or the inner process's) pass the options on to
    Python children."""
    if not opts.follow:
        env.pop(ENV, None)
        return
    env[ENV] = json.dumps(config(opts), separators=(",", ":"))
    with_pythonpath(env, [AUTOSTART, os.path.dirname(os.path.dirname(AUTOSTART))])


def start_child():
    """In a child's sitecustomize: record as the runner does."""
    if os.environ.pop(INNER, None):
        return  # the runner's inner process: it starts recording itself
    raw = os.environ.get(ENV)
    if not raw:
        return
    try:
        cfg = json.loads(raw)
        from . import _control
        _control.set_defaults(native=cfg["native"], lines=cfg["lines"], max_depth=cfg["max_depth"],
                              filter=cfg["filter"], filter_out=cfg["filter_out"], hook=cfg["hook"],
                              imports=cfg.get("imports", False))
        if not cfg["partial"]:
            _control.enable()
        from . import _procs
        _procs.install()
    except Exception as e:  # never stop the child over its recording
        print(f"recorder: not recording this child process ({sys.executable}): {e}", file=sys.stderr)
