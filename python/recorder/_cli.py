"""_cli.py -- `python3 -m recorder`: options, and the outer process of -o.

Without -o the program runs in this very process (recorder/_run.py) and
records into its live segment, for recorder-top, recorder-web and
`recorder dump`.  With -o FILE this process stays outside: it runs the
program again, as an inner `python3 -m recorder`, under the `recorder`
command, which writes FILE when the program has exited -- as it does for
any program:

  .json, .pftrace   `recorder run`: every process of the tree (forks,
          multiprocessing workers) in the one trace, a process track each,
          each captured while it runs (16 MiB rings, --ring-kb)
  .rec, .csv, .folded (and a timeline with --capture)   `recorder capture
          -o FILE -- CMD`: the same capture of the whole tree (64 MiB rings)

This process writes no file at all.  Which format FILE's name asks for,
and whether FILE may be written, it asks `recorder check-output` (the
CLI's one table of extensions and its one output rule) before the program
starts: a refused FILE is the CLI's message and status, and nothing runs.
The `recorder` command writes FILE by its output rule (docs/cli.md,
"Output files"), and its JSON exporter puts a Python scope's file and
line in the slice's args (docs/python.md).

Ctrl-C reaches the program; SIGTERM and SIGHUP are passed on.  The exit
status is the program's, 128+N if signal N killed it.
"""
import os
import signal
import subprocess
import sys

USAGE = """\
usage: python3 -m recorder [OPTIONS] SCRIPT [ARGS...]
       python3 -m recorder [OPTIONS] -m MODULE [ARGS...]
       python3 -m recorder [OPTIONS] -c CODE [ARGS...]

Run a Python program with every Python call on every thread recorded as a
scope, named by the function's qualified name (file and line alongside),
into the process's recorder segment: recorder-top PID and recorder-web PID
watch it live.  Builtins and extension functions are scopes too
(builtins.sorted, numpy.zeros).  C code that includes recorder.h records
into the same lanes.

options:
  -o, --output FILE     when the program exits, write its trace to FILE:
                        .json (Perfetto JSON; every process of the tree, a track
                        each), .pftrace (the same as Perfetto's protobuf),
                        .rec (a lossless capture), .csv (statistics per scope),
                        .folded (flame graph stacks); written by `recorder`
                        (mode 0600; a planted link or another user's file is
                        refused before the program starts)
  -p, --partial         record only while enabled: recorder.Profiler().enable()
                        to .disable(), `with recorder.profile():`, or a test
                        using the pytest fixture recorder_profile (tracy_profile)
  -l, --lines           also a scope for each line run (only with -p)
  --no-native           no scopes for builtins and extension functions
  --builtin-us US       record a builtin only if it lasts US microseconds or
                        more (default 10; shorter ones are counted on each lane,
                        not recorded: docs/python.md)
  --all-builtins        record every builtin call, however short (--builtin-us 0)
  --imports             record imports in full (default: each top-level import
                        is one scope, "import torch", with a count of its calls)
  --filter S[,S...]     record only functions whose module or file contains one
  --filter-out S[,S...] ... and none of these
  --max-depth N         record scopes nested at most N deep (0: no limit)
  --ring-kb KB          each thread's ring (default 16384 KiB, 1 M entries:
                        3-10 s of a busy Python thread, for recorder-top or
                        `recorder run` to catch up; .rec, .csv, .folded:
                        65536; RECORDER_RING_KB, if set, without --ring-kb)
  --keep                keep each process's segment in /dev/shm after it ends
                        (RECORDER_KEEP=1; `recorder dump` reads it, `recorder gc`
                        removes it); without it a process ended by SIGTERM
                        (Pool.terminate()) removes its segment too.  Not with -o
  --capture             with -o FILE.json or .pftrace: through `recorder
                        capture` (64 MiB rings) rather than `recorder run`
  --no-follow           do not record Python children that are not forks
                        (multiprocessing spawn/forkserver, subprocess)
  --hook HOOK           auto, eval, profile or monitoring (docs/python.md)
  --cuda                also the program's GPU work and NVTX ranges (kernels,
                        copies, torch.cuda.nvtx ranges), through librecorder-cuda.so
                        (CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH; the path
                        `recorder cuda-lib` prints; docs/gpu.md)
  --torch-ops           PyTorch's aten ops as NVTX ranges: the program runs inside
                        torch.autograd.profiler.emit_nvtx() (needs torch; with
                        --cuda they are recorded as scopes)
  --recorder PATH       the `recorder` command that writes -o (default: the one
                        built or installed with this package, else PATH)
  -h, --help            this help

Exit status: the program's (128+N if signal N ended it); 2 for bad options;
recorder's status when it refuses -o FILE (docs/cli.md).
Docs: docs/python.md.
"""

TIMELINES = ("json", "perfetto")   # what `recorder check-output` says of a trace `recorder run` writes
# The runner's ring per thread, live and for `recorder run` (docs/python.md,
# "Rings"): a Python thread writes 100-300k events/s, so 16 MiB (1 M
# entries) holds 3-10 s of it, for a viewer that a loaded machine
# schedules late.  The writer's own default (1 MiB) holds a fraction of a
# second of it.
RING_KB = 16384


class UsageError(Exception):
    pass


class Refused(Exception):
    """`recorder` refused -o FILE (it printed why); .status is its exit status."""

    def __init__(self, status):
        super().__init__(status)
        self.status = status


class Options:
    def __init__(self):
        self.output = None
        self.partial = False
        self.lines = False
        self.native = True
        self.imports = False
        self.builtin_us = 10
        self.all_builtins = False
        self.filter = []
        self.filter_out = []
        self.max_depth = 0
        self.ring_kb = None
        self.capture = False
        self.keep = False
        self.follow = True
        self.hook = "auto"
        self.cuda = False
        self.torch_ops = False
        self.recorder = None
        self.inner = False
        self.script = None
        self.module = None
        self.command = None    # -c CODE
        self.args = []
        self.passed = []   # the options as given, for the inner process


_VALUED = {"-o": "output", "--output": "output", "--filter": "filter", "--filter-out": "filter_out",
           "--max-depth": "max_depth", "--ring-kb": "ring_kb", "--hook": "hook", "--recorder": "recorder",
           "--builtin-us": "builtin_us"}
_FLAGS = {"-p": "partial", "--partial": "partial", "-l": "lines", "--lines": "lines", "--no-native": "native",
          "--capture": "capture", "--no-follow": "follow", "--_inner": "inner", "--imports": "imports",
          "--cuda": "cuda", "--torch-ops": "torch_ops", "--keep": "keep",
          "--all-builtins": "all_builtins"}
# cuda: the `recorder` command (-o) or main() sets the variables; the inner
# process inherits them.
_OUTER_ONLY = {"output", "ring_kb", "capture", "recorder", "cuda", "keep"}


def _int(opt, v, lo, hi):
    try:
        n = int(v, 10)
    except ValueError:
        raise UsageError(f"{opt} wants a number, not {v!r}") from None
    if not lo <= n <= hi:
        raise UsageError(f"{opt} must be between {lo} and {hi}, not {n}")
    return n


def _set(o, key, opt, v):
    if key in ("filter", "filter_out"):
        items = [s for s in v.split(",") if s]
        if not items:
            raise UsageError(f"{opt} wants substrings, not {v!r}")
        getattr(o, key).extend(items)
        # The writer's bound (recorder._native.MAX_FILTERS): refused here,
        # before anything runs, rather than by the program's first enable().
        from . import _native
        if len(getattr(o, key)) > _native.MAX_FILTERS:
            raise UsageError(f"{opt}: at most {_native.MAX_FILTERS} substrings, not {len(getattr(o, key))}")
    elif key == "max_depth":
        o.max_depth = _int(opt, v, 0, 1 << 30)
    elif key == "builtin_us":
        o.builtin_us = _int(opt, v, 0, 3600 * 10**6)
    elif key == "ring_kb":
        o.ring_kb = _int(opt, v, 4, 1 << 20)
    elif key == "hook":
        if v not in ("auto", "eval", "profile", "monitoring"):
            raise UsageError(f"--hook is auto, eval, profile or monitoring, not {v!r}")
        o.hook = v
    else:
        setattr(o, key, v)


def parse(argv):
    """Options up to the program (SCRIPT, or -m MODULE); the rest is the
    program's own."""
    o = Options()
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            raise SystemExit(print(USAGE, end="") or 0)
        if a == "--":
            i += 1
            if i < len(argv):
                o.script = argv[i]
                i += 1
            break
        if a == "-m" or (a.startswith("-m") and not a.startswith("--")):
            o.module = a[2:] or (argv[i + 1] if i + 1 < len(argv) else None)
            i += 1 if a[2:] else 2
            if not o.module:
                raise UsageError("-m wants a module name")
            break
        if a == "-c" or (a.startswith("-c") and not a.startswith("--")):
            o.command = a[2:] or (argv[i + 1] if i + 1 < len(argv) else None)
            i += 1 if a[2:] else 2
            if o.command is None:
                raise UsageError("-c wants the program's code")
            break
        if not a.startswith("-") or a == "-":
            o.script = a
            i += 1
            break
        opt, eq, val = a.partition("=")
        if opt in _VALUED:
            if not eq:
                if i + 1 >= len(argv):
                    raise UsageError(f"{opt} wants a value")
                val = argv[i + 1]
                i += 1
            _set(o, _VALUED[opt], opt, val)
            if _VALUED[opt] not in _OUTER_ONLY:
                o.passed += [opt, val]
        elif a in _FLAGS:
            key = _FLAGS[a]
            setattr(o, key, key not in ("native", "follow"))
            if key not in _OUTER_ONLY and key != "inner":
                o.passed.append(a)
        elif a.startswith("-o") and len(a) > 2:
            o.output = a[2:]
        elif len(a) > 2 and a[0] == "-" and a[1] != "-" and all(c in "pl" for c in a[1:]):
            for c in a[1:]:
                setattr(o, _FLAGS["-" + c], True)
                o.passed.append("-" + c)
        else:
            raise UsageError(f"unknown option {a!r}")
        i += 1
    o.args = argv[i:]
    if o.script is None and o.module is None and o.command is None:
        raise UsageError("which program? give a SCRIPT, -m MODULE or -c CODE")
    if o.lines and not o.partial:
        raise UsageError("-l (a scope per line) needs -p: lines are recorded only where profiling is enabled")
    # -o FILE itself is judged by `recorder check-output` (outer()).
    if o.inner and o.output is not None:   # the inner never gets -o: it would be ignored unsaid
        raise UsageError("--_inner is the runner's own inner process, which writes no -o FILE")
    if o.output is None and o.capture:
        raise UsageError("--capture needs -o FILE")
    if o.output is not None and o.keep:
        raise UsageError("--keep keeps the live segments; with -o FILE the trace is the file (recorder run --keep)")
    if o.torch_ops:
        import importlib.util
        if importlib.util.find_spec("torch") is None:
            raise UsageError("--torch-ops needs PyTorch, and `import torch` finds none for " + sys.executable)
    return o


def cuda_lib(rec):
    """The GPU library's path, as `recorder run --cuda` would give it
    (`recorder cuda-lib`: one rule, in the CLI).  Not there: its message
    is on stderr already, and Refused carries its status."""
    try:
        r = subprocess.run([rec, "cuda-lib"], stdout=subprocess.PIPE, text=True)
    except OSError as e:
        raise UsageError(f"cannot run {rec}: {e.strerror}") from None
    if r.returncode != 0:
        raise Refused(r.returncode)
    return r.stdout.strip()


def find_recorder(given=None):
    """The `recorder` command: --recorder, $RECORDER_CLI, the one built or
    installed with this package, PATH."""
    import shutil
    cands = [given, os.environ.get("RECORDER_CLI")]
    for name in ("_build_config", "_build_config_installed"):
        try:
            mod = __import__(f"recorder.{name}", fromlist=["RECORDER_CLI"])
            cands.append(mod.RECORDER_CLI)
            break
        except ImportError:
            continue
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
        if c and c is given:
            raise UsageError(f"--recorder {c}: not an executable file")
    found = shutil.which("recorder")
    if not found:
        raise UsageError("-o needs the `recorder` command (build the project with Meson, put it on PATH, "
                         "or pass --recorder PATH)")
    return found


def _inner_cmd(o):
    cmd = [sys.executable, "-m", "recorder", "--_inner", *o.passed]
    if o.module is not None:
        return cmd + ["-m", o.module, *o.args]
    if o.command is not None:
        return cmd + ["-c", o.command, *o.args]
    return cmd + ["--", o.script, *o.args]


def _wait(cmd, env):
    """Run cmd; Ctrl-C reaches it (the terminal sends it to the group) and
    is ignored here; SIGTERM and SIGHUP are passed on."""
    try:
        proc = subprocess.Popen(cmd, env=env)
    except OSError as e:
        print(f"recorder: cannot run {cmd[0]}: {e.strerror}", file=sys.stderr)
        return 127
    old = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGQUIT)}
    fwd = {s: signal.signal(s, lambda sig, _f: proc.send_signal(sig)) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        rc = proc.wait()
    finally:
        for s, h in {**old, **fwd}.items():
            signal.signal(s, h)
    return rc if rc >= 0 else 128 - rc


def output_format(rec, path):
    """The format FILE's name asks for (json, perfetto, csv, folded, rec),
    from `recorder check-output`, which also checks that FILE may be
    written.  Refused: its message is on stderr already, and Refused
    carries its status."""
    try:
        r = subprocess.run([rec, "check-output", "--", path], stdout=subprocess.PIPE, text=True)
    except OSError as e:
        raise UsageError(f"cannot run {rec}: {e.strerror}") from None
    if r.returncode != 0:
        raise Refused(r.returncode)
    return r.stdout.strip()


def outer(o):
    """-o FILE: run the program under `recorder`, which writes FILE."""
    rec = find_recorder(o.recorder)
    if o.script is not None and not os.path.isfile(o.script):
        raise UsageError(f"can't open file {o.script!r}: no such file")
    fmt = output_format(rec, o.output)
    if o.capture and fmt not in TIMELINES:
        raise UsageError(f"--capture goes with a timeline, -o FILE.json or .pftrace ({o.output} is always captured)")
    from . import _follow
    env = dict(os.environ)
    env[_follow.INNER] = "1"
    _follow.setup(env, o)
    # The inner process must import this package, wherever it was found.
    _follow.with_pythonpath(env, [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))])
    inner = _inner_cmd(o)
    cuda = ["--cuda"] if o.cuda else []
    if fmt in TIMELINES and not o.capture:
        if o.ring_kb is not None or "RECORDER_RING_KB" not in env:
            env["RECORDER_RING_KB"] = str(o.ring_kb or RING_KB)
        return _wait([rec, "run", "-o", o.output, *cuda, "--", *inner], env)
    ring = ["--ring-kb", str(o.ring_kb)] if o.ring_kb else []
    return _wait([rec, "capture", "-q", "-o", o.output, *ring, *cuda, "--", *inner], env)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        o = parse(argv)
        if o.output is not None and not o.inner:
            return outer(o)
        if o.cuda:
            # In this process: set before the program's first NVTX call
            # or cuInit, which read them.
            lib = cuda_lib(find_recorder(o.recorder))
            os.environ["CUDA_INJECTION64_PATH"] = lib
            os.environ["NVTX_INJECTION64_PATH"] = lib
        from . import _run
        if o.keep:
            os.environ["RECORDER_KEEP"] = "1"   # this process and every child
        if o.ring_kb is not None or "RECORDER_RING_KB" not in os.environ:
            os.environ["RECORDER_RING_KB"] = str(o.ring_kb or RING_KB)
        _run.run(o, o.script, o.module, o.args, command=o.command)
    except UsageError as e:
        print(f"recorder: {e}\n(python3 -m recorder --help for the options)", file=sys.stderr)
        return 2
    except Refused as e:
        return e.status
    except Exception as e:
        from . import _run
        if isinstance(e, _run.ProgramNotFound):
            print(f"recorder: {e}", file=sys.stderr)
            return e.status
        raise
    return 0
