"""_run.py -- run a script or a module as `python3 SCRIPT` / `python3 -m
MODULE` would, with recording on (or, with -p, ready for Profiler).

The program runs in a fresh __main__ module that stands in for the real
one (sys.modules["__main__"]), with sys.argv and sys.path[0] as Python
sets them, so pickling its functions works, and multiprocessing's spawn
workers find and re-import it.  The hook starts just before the program's
first line: its <module> is the outermost scope (under builtins.exec with
the profile hook, which sees that call), and the runner's own frames are
never recorded.

Recording stays on after the program's code returns: threads still
running, atexit functions and finalizers are the program's too.
"""
import builtins
import importlib.machinery
import io
import os
import sys
import threading
import types

from . import _control, _follow, _native, _procs


class ProgramNotFound(Exception):
    """The script or module is not there: Python's own exit status for it."""

    def __init__(self, msg, status):
        super().__init__(msg)
        self.status = status


def _script_code(path):
    if os.path.isdir(path):
        raise ProgramNotFound(f"{path!r} is a directory: run its package with -m", 2)
    try:
        with io.open_code(path) as f:
            source = f.read()
    except OSError as e:
        raise ProgramNotFound(f"can't open file {path!r}: [Errno {e.errno}] {e.strerror}", 2) from None
    return compile(source, os.path.abspath(path), "exec", dont_inherit=True)


def _main_module(**attrs):
    main = types.ModuleType("__main__")
    main.__dict__.update(__builtins__=builtins, __cached__=None, __package__=None, __spec__=None,
                         __loader__=None, __file__=None)
    main.__dict__.update(attrs)
    return main


def prepare(script=None, module=None, args=(), command=None):
    """The program's code and its __main__, with sys set up for it."""
    if command is not None:
        # As `python3 -c`: argv[0] is "-c", the cwd first on the path.
        code = compile(command, "<string>", "exec", dont_inherit=True)
        main = _main_module()
        sys.argv[:] = ["-c", *args]
        sys.path[0] = ""
    elif script is not None:
        code = _script_code(script)
        path = os.path.abspath(script)
        main = _main_module(__file__=path,
                            __loader__=importlib.machinery.SourceFileLoader("__main__", path))
        sys.argv[:] = [script, *args]
        sys.path[0] = os.path.dirname(os.path.realpath(script))
    else:
        import runpy
        sys.path[0] = os.getcwd()  # as python3 -m puts it
        try:
            mod_name, spec, code = runpy._get_module_details(module)
        except ImportError as e:
            raise ProgramNotFound(str(e), 1) from None
        main = _main_module(__file__=spec.origin, __cached__=spec.cached, __loader__=spec.loader,
                            __package__=spec.parent, __spec__=spec)
        sys.argv[:] = [spec.origin or module, *args]
    return code, main


def _trimmed(tb):
    """The traceback from the program's first frame on (not the runner's)."""
    own = _control.OWN_DIR + os.sep
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith(own):
        tb = tb.tb_next
    return tb


def _torch_ops():
    """torch.autograd.profiler.emit_nvtx(), entered (run() leaves it when the
    program's code is done): every aten op an NVTX range, recorded by the
    GPU library (--cuda).  A torch that does not import, or whose
    emit_nvtx() fails, is a clear error (status 2)."""
    try:
        from torch.autograd import profiler
        ctx = profiler.emit_nvtx()
        ctx.__enter__()   # a torch built without NVTX says so here
        return ctx
    except Exception as e:
        print(f"recorder: --torch-ops: torch.autograd.profiler.emit_nvtx() is not available: "
              f"{type(e).__name__}: {e}", file=sys.stderr)
        raise SystemExit(2) from None


def run(opts, script=None, module=None, args=(), command=None):
    """Run the program; returns only by raising SystemExit (or the
    program's KeyboardInterrupt, which ends Python as Ctrl-C would)."""
    os.environ.pop(_follow.INNER, None)
    _follow.setup(os.environ, opts)
    _control.set_defaults(native=opts.native, lines=opts.lines, max_depth=opts.max_depth, filter=opts.filter,
                          filter_out=opts.filter_out, hook=opts.hook, imports=opts.imports,
                          builtin_min_us=0 if opts.all_builtins else opts.builtin_us)
    code, main = prepare(script, module, args, command)
    # --torch-ops: imported before the hook is on (torch's import is not
    # the program's), entered around the program only.
    torch_ops = _torch_ops() if getattr(opts, "torch_ops", False) else None
    # The segment now, so that a -p run that never enables still leaves one
    # (an empty trace rather than none); and the main thread's lane named.
    _native.init()
    _native.thread_name("MainThread")
    # Workers named as Python names them; SIGTERM leaves no segment.
    _procs.install()
    saved_main = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    if not opts.partial:
        _control.enable()
    try:
        exec(code, main.__dict__)
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as e:
        tb = _trimmed(e.__traceback__)
        sys.excepthook(type(e), e.with_traceback(tb), tb)
        raise SystemExit(1) from None
    finally:
        del saved_main
        # The program's code is done: what Python does on the way out
        # (threading._shutdown, atexit) is not recorded, unless threads of
        # the program still run (they are recorded to their end).
        # (threading._active, not active_count(): that is Python code, and
        # the hook is still on.)
        if not opts.partial and len(threading._active) + len(threading._limbo) <= 1:
            _control.disable()
        if torch_ops is not None:
            torch_ops.__exit__(None, None, None)
    raise SystemExit(0)

