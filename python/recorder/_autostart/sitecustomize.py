"""sitecustomize for Python child processes of `python3 -m recorder`.

recorder/_follow.py puts this directory first on PYTHONPATH of the
programs the runner starts, so a Python child that is not a fork
(multiprocessing spawn or forkserver, subprocess) records too.  It first
runs the sitecustomize it hides (Debian ships one), then starts recording
as the runner's options say (RECORDER_PYTHON_FOLLOW).
"""


def _run_hidden():
    import importlib.machinery
    import importlib.util
    import os
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    path = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    mod = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = mod
    spec.loader.exec_module(mod)


def _start():
    try:
        from recorder import _follow
    except Exception as e:  # another Python, or the package moved: run unrecorded
        import sys
        print(f"recorder: not recording this child process ({sys.executable}): {e}", file=sys.stderr)
        return
    _follow.start_child()


try:
    _run_hidden()
finally:
    _start()
