"""_procs.py -- the processes the runner records (docs/python.md,
"multiprocessing"): each named as Python names it, and none leaving its
segment behind when SIGTERM ends it.

- A multiprocessing worker (ForkPoolWorker-1, SpawnPoolWorker-2,
  Process-3) gets its name in its segment's header, in place of the
  interpreter's "python3", once its Process object is current: from
  multiprocessing's after-fork hooks (fork, forkserver), or in a spawn
  worker from SpawnProcess._after_fork, which runs none.
- A worker leaves by os._exit(), and SIGTERM (Pool.terminate(), which
  `with Pool(...)` calls on its way out) ends a process; neither runs
  atexit, which removes the segment: multiprocessing's exit function and
  a SIGTERM handler in C (writer.c) remove it instead, unless
  RECORDER_KEEP=1 (the runner's --keep) or a launcher (-o: recorder run,
  recorder capture) waits to read it.  A program that sets its own
  SIGTERM handler keeps it.
"""
import os
import sys

from . import _native


class _Namer:
    """The key multiprocessing's after-fork registry holds (weakly)."""


_NAMER = _Namer()


def _name_worker(_namer):
    proc = sys.modules.get("multiprocessing.process")
    util = sys.modules.get("multiprocessing.util")
    if proc is not None:
        _native.process_name(proc.current_process().name)
    if util is not None:
        # A worker ends by os._exit(), which skips the writer's atexit;
        # multiprocessing's own exit function runs its finalizers first
        # (the lowest priority last).
        util.Finalize(None, _native.close_segment, exitpriority=-(1 << 30))


def _register():
    """In a worker-to-be: name it when multiprocessing has set it up."""
    util = sys.modules.get("multiprocessing.util")
    if util is not None:
        util.register_after_fork(_NAMER, _name_worker)


def _spawned():
    """A spawn worker (python -c 'from multiprocessing.spawn import spawn_main; ...')."""
    argv = getattr(sys, "orig_argv", sys.argv)
    return any("multiprocessing.spawn" in a and "spawn_main" in a for a in argv)


def install():
    """In the runner's process and in each child it starts recording."""
    try:
        _native.unlink_on_term()
    except OSError:
        pass   # SIGTERM then keeps the segment, as before
    os.register_at_fork(after_in_child=_register)
    if _spawned():
        # A spawn worker runs no after-fork hooks (SpawnProcess._after_fork
        # does nothing): name it from there, in this worker only.
        import multiprocessing.context as ctx   # spawn_main imports it next anyway
        plain = ctx.SpawnProcess._after_fork

        def _after_fork():
            plain()
            _name_worker(None)

        ctx.SpawnProcess._after_fork = staticmethod(_after_fork)
