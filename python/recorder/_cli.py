"""_cli.py -- `python3 -m recorder`: options, and the outer process of -o.

Without -o the program runs in this very process (recorder/_run.py) and
records into its live segment, for recorder-top, recorder-web and
`recorder dump`.  With -o FILE this process stays outside: it runs the
program again, as an inner `python3 -m recorder`, under the `recorder`
command, and when the program has exited turns the trace it wrote into
FILE -- as `recorder run` does for any program:

  .json   `recorder run`: every process of the tree (forks, multiprocessing
          workers) in the one trace, a process track each; each thread's ring holds
          its last 512k scopes (--ring-kb); then file and line go into args
  .rec    `recorder capture -- CMD`: the main process lossless, the tree's others from their rings
  .csv, .folded (and .json with --capture): a capture, then `recorder convert`

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

Run a Python program with every Python call on every thread recorded as a
scope, named by the function's qualified name (file and line alongside),
into the process's recorder segment: recorder-top PID and recorder-web PID
watch it live.  Builtins and extension functions are scopes too
(builtins.sorted, numpy.zeros).  C code that includes recorder.h records
into the same lanes.

options:
  -o, --output FILE     when the program exits, write its trace to FILE:
                        .json (Perfetto; every process of the tree, a track each),
                        .rec (a lossless capture), .csv (statistics per scope),
                        .folded (flame graph stacks)
  -p, --partial         record only while enabled: recorder.Profiler().enable()
                        to .disable(), `with recorder.profile():`, or a test
                        using the pytest fixture recorder_profile (tracy_profile)
  -l, --lines           also a scope for each line run (only with -p)
  --no-native           no scopes for builtins and extension functions
  --filter S[,S...]     record only functions whose module or file contains one
  --filter-out S[,S...] ... and none of these
  --max-depth N         record scopes nested at most N deep (0: no limit)
  --ring-kb KB          each thread's ring (default with -o FILE.json: 16384,
                        about 512k scopes; else the writer's 1024)
  --capture             with -o FILE.json: capture every event (no ring limit;
                        the main process only)
  --no-follow           do not record Python children that are not forks
                        (multiprocessing spawn/forkserver, subprocess)
  --hook HOOK           auto, eval, profile or monitoring (docs/python.md)
  --recorder PATH       the `recorder` command that writes -o (default: the one
                        built or installed with this package, else PATH)
  -h, --help            this help

Exit status: the program's (128+N if signal N ended it); 2 for bad options.
Docs: docs/python.md.
"""

OUTPUT_KINDS = (".json", ".rec", ".csv", ".folded")
RING_KB_JSON = 16384
STRINGS_KB = 16384


class UsageError(Exception):
    pass


class Options:
    def __init__(self):
        self.output = None
        self.partial = False
        self.lines = False
        self.native = True
        self.filter = []
        self.filter_out = []
        self.max_depth = 0
        self.ring_kb = None
        self.capture = False
        self.follow = True
        self.hook = "auto"
        self.recorder = None
        self.inner = False
        self.script = None
        self.module = None
        self.args = []
        self.passed = []   # the options as given, for the inner process


_VALUED = {"-o": "output", "--output": "output", "--filter": "filter", "--filter-out": "filter_out",
           "--max-depth": "max_depth", "--ring-kb": "ring_kb", "--hook": "hook", "--recorder": "recorder"}
_FLAGS = {"-p": "partial", "--partial": "partial", "-l": "lines", "--lines": "lines", "--no-native": "native",
          "--capture": "capture", "--no-follow": "follow", "--_inner": "inner"}
_OUTER_ONLY = {"output", "ring_kb", "capture", "recorder"}


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
    elif key == "max_depth":
        o.max_depth = _int(opt, v, 0, 1 << 30)
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
    if o.script is None and o.module is None:
        raise UsageError("which program? give a SCRIPT or -m MODULE")
    if o.lines and not o.partial:
        raise UsageError("-l (a scope per line) needs -p: lines are recorded only where profiling is enabled")
    if o.output is not None:
        ext = os.path.splitext(o.output)[1]
        if ext not in OUTPUT_KINDS:
            raise UsageError(f"-o {o.output}: the file's extension says its format: {', '.join(OUTPUT_KINDS)}")
        if o.capture and ext != ".json":
            raise UsageError("--capture goes with -o FILE.json (.rec, .csv and .folded are always captured)")
    elif o.capture:
        raise UsageError("--capture needs -o FILE")
    return o


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


def _fix_json(paths):
    from . import trace_args
    for p in paths:
        if os.path.exists(p):
            try:
                trace_args.rewrite(p)
            except (OSError, UnicodeError) as e:
                print(f"recorder: {p}: could not move file and line into args: {e}", file=sys.stderr)


def outer(o):
    """-o FILE: run the program under `recorder`, then finish FILE."""
    rec = find_recorder(o.recorder)
    if o.script is not None and not os.path.isfile(o.script):
        raise UsageError(f"can't open file {o.script!r}: no such file")
    from . import _follow
    env = dict(os.environ)
    env[_follow.INNER] = "1"
    env.setdefault("RECORDER_STRINGS_KB", str(STRINGS_KB))
    _follow.setup(env, o)
    # The inner process must import this package, wherever it was found.
    _follow.with_pythonpath(env, [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))])
    ext = os.path.splitext(o.output)[1]
    inner = _inner_cmd(o)
    if ext == ".json" and not o.capture:
        if o.ring_kb is not None or "RECORDER_RING_KB" not in env:
            env["RECORDER_RING_KB"] = str(o.ring_kb or RING_KB_JSON)
        rc = _wait([rec, "run", "-o", o.output, "--", *inner], env)
        _fix_json([o.output])
        return rc
    ring = ["--ring-kb", str(o.ring_kb)] if o.ring_kb else []
    if ext == ".rec":
        return _wait([rec, "capture", "-q", "-o", o.output, *ring, "--", *inner], env)
    tmp = f"{o.output}.{os.getpid()}.rec"
    rc = _wait([rec, "capture", "-q", "-o", tmp, *ring, "--", *inner], env)
    if os.path.exists(tmp):
        crc = subprocess.call([rec, "convert", tmp, "-o", o.output])
        os.unlink(tmp)
        if ext == ".json" and crc == 0:
            _fix_json([o.output])
        if rc == 0:
            rc = crc
    return rc


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        o = parse(argv)
        if o.output is not None and not o.inner:
            return outer(o)
        from . import _run
        if o.ring_kb is not None:
            os.environ["RECORDER_RING_KB"] = str(o.ring_kb)
        os.environ.setdefault("RECORDER_STRINGS_KB", str(STRINGS_KB))
        _run.run(o, o.script, o.module, o.args)
    except UsageError as e:
        print(f"recorder: {e}\n(python3 -m recorder --help for the options)", file=sys.stderr)
        return 2
    except Exception as e:
        from . import _run
        if isinstance(e, _run.ProgramNotFound):
            print(f"recorder: {e}", file=sys.stderr)
            return e.status
        raise
    return 0
