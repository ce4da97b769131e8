"""_control.py -- when recording is on, and with which hook.

Recording is on while at least one enable() is outstanding: the runner's
whole-program mode holds one for the program's life; Profiler, profile()
and the pytest fixture each hold one while they are active.  The first
enable() configures the C side and starts a hook; the last disable() stops
it.  Stopping never cuts a scope: scopes open at the stop end when their
frames return (recorder._native.stop).

The hook ("auto" picks the cheapest that records what is asked):
  eval        PEP 523 frame evaluation: Python calls only, cheapest,
              covers every thread whenever it started;
  profile     PyEval_SetProfile (+ SetTrace for lines): builtins and lines;
              threads started later through threading only;
  monitoring  sys.monitoring (Python >= 3.12): all of it, every thread.
"""
import os
import threading

from . import _native

OWN_DIR = os.path.dirname(os.path.abspath(__file__))
HOOKS = ("auto", "eval", "profile", "monitoring")

_lock = threading.RLock()
_count = 0
_saved_threading = None
# builtin_min_us: builtins shorter than this are counted, not recorded
# (docs/python.md, "Builtins"); 0 records every one.
_defaults = {"native": True, "lines": False, "max_depth": 0, "filter": (), "filter_out": (), "hook": "auto",
             "imports": False, "builtin_min_us": 10}


def set_defaults(**kw):
    """The runner's options, for every later enable() that does not say
    otherwise (Profiler() under `python3 -m recorder -p -l`)."""
    for k, v in kw.items():
        if k not in _defaults:
            raise TypeError(f"unknown option {k!r}")
        if v is not None:
            _defaults[k] = tuple(v) if k in ("filter", "filter_out") else v


def defaults():
    return dict(_defaults)


def choose_hook(native, lines, hook="auto"):
    """The hook that records what is asked, cheapest first."""
    have = _native.hooks()
    if hook not in HOOKS:
        raise ValueError(f"hook must be one of {', '.join(HOOKS)}, not {hook!r}")
    if hook == "auto":
        # Measured (bench/python, docs/performance/python.md): eval costs
        # least for Python calls alone; for builtins and lines,
        # sys.monitoring beats the profile hook where it exists.
        if not (native or lines) and "eval" in have:
            return "eval"
        return "monitoring" if "monitoring" in have else "profile"
    if hook not in have:
        raise ValueError(f"the {hook} hook is not available on this Python (available: {', '.join(have)})")
    if hook == "eval" and (native or lines):
        raise ValueError("the eval hook sees Python calls only: use it with native=False and no lines")
    return hook


def _threading_hooks(install):
    """threading.setprofile/settrace for threads started later (profile
    hook only), keeping what was there to put it back."""
    global _saved_threading
    if install:
        _saved_threading = (threading.getprofile(), threading.gettrace())
        threading.setprofile(_native._profile_installer)
        if _native_cfg.get("lines"):
            threading.settrace(_native._trace_installer)
    elif _saved_threading is not None:
        prof, trace = _saved_threading
        if threading.getprofile() is _native._profile_installer:
            threading.setprofile(prof)
        if threading.gettrace() is _native._trace_installer:
            threading.settrace(trace)
        _saved_threading = None


_native_cfg = {}


def enable(native=None, lines=None, max_depth=None, filter=None, filter_out=None, hook=None, imports=None,
           builtin_min_us=None):
    """Start recording (or count one more enable if it is on already; the
    options of the first one are in force).  Returns the hook used."""
    global _count, _native_cfg
    with _lock:
        if _count:
            _count += 1
            return _native.running()
        cfg = dict(_defaults)
        for k, v in (("native", native), ("lines", lines), ("max_depth", max_depth), ("filter", filter),
                     ("filter_out", filter_out), ("hook", hook), ("imports", imports),
                     ("builtin_min_us", builtin_min_us)):
            if v is not None:
                cfg[k] = v
        if isinstance(cfg["filter"], str) or isinstance(cfg["filter_out"], str):
            raise TypeError("filter and filter_out are sequences of substrings")
        chosen = choose_hook(cfg["native"], cfg["lines"], cfg["hook"])
        if not _native.init():
            # Recording is off (RECORDER=0, or no segment): no hook at all,
            # so the program runs at full speed; the enable still counts.
            _count = 1
            return None
        _native.configure(native=bool(cfg["native"]), lines=bool(cfg["lines"]), max_depth=int(cfg["max_depth"]),
                          filter=tuple(cfg["filter"]), filter_out=tuple(cfg["filter_out"]), own_dir=OWN_DIR,
                          imports=bool(cfg["imports"]), builtin_min_ns=int(cfg["builtin_min_us"] * 1000))
        _native_cfg = cfg
        if chosen == "profile":
            _threading_hooks(True)
        _native.start(chosen)
        _count = 1
        return chosen


def disable():
    """Undo one enable(); the last one stops recording.  Extra calls are
    ignored."""
    global _count
    with _lock:
        if not _count:
            return
        _count -= 1
        if _count:
            return
        if _native.running():
            _native.stop()
        _threading_hooks(False)


def is_enabled():
    return _count > 0


class Profiler:
    """Tracy's Profiler: record from enable() to disable().

        profiler = recorder.Profiler()
        profiler.enable()
        function_under_test()
        profiler.disable()

    Options default to the runner's (python3 -m recorder -p ...), else to
    native=True, lines=False, imports=False (each top-level import one
    scope), builtin_min_us=10 (builtins shorter than 10 us are counted, not
    recorded; 0: every one).  Recording covers every thread.  Scopes open
    at disable() end when their functions return, so enable() and disable()
    may sit anywhere: inside the function under test or around its call.
    """

    def __init__(self, *, native=None, lines=None, max_depth=None, filter=None, filter_out=None, hook=None,
                 imports=None, builtin_min_us=None):
        self._opts = dict(native=native, lines=lines, max_depth=max_depth, filter=filter, filter_out=filter_out,
                          hook=hook, imports=imports, builtin_min_us=builtin_min_us)
        self._on = False

    def enable(self):
        if not self._on:
            enable(**self._opts)
            self._on = True

    def disable(self):
        if self._on:
            self._on = False
            disable()

    def __enter__(self):
        self.enable()
        return self

    def __exit__(self, *exc):
        self.disable()
        return False


class profile(Profiler):
    """`with recorder.profile():` records the block; `@recorder.profile()`
    records each call of the function.  Takes Profiler's options."""

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def profiled(*args, **kwargs):
            with profile(**self._opts):
                return func(*args, **kwargs)

        return profiled
