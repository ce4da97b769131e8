"""clilive: helpers for test_cli.py's scenarios (cli_capture_cases.py and
cli_export_cases.py too): recorder run with text output, cli_prog started
and left running, traces checked strictly, segment copies cut or patched,
capture's summary.  The checks, the arguments and the exit codes are
clitest's, shared with every other test script of tests/cli.
"""
import json
import os
import re
import select
import struct
import subprocess
import sys

from clitest import PROG, RECORDER, TIMEOUT, WORK, check, require, seg

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK_TRACE = os.path.join(HERE, "..", "analysis", "check_trace.py")


def rec(*args, env=None, timeout=TIMEOUT):
    """Run recorder; returns (code, stdout, stderr)."""
    e = dict(os.environ)
    if env:
        e.update(env)
    p = subprocess.run([RECORDER, *map(str, args)], capture_output=True, text=True, env=e, timeout=timeout,
                       cwd=WORK)
    return p.returncode, p.stdout, p.stderr


def start(*args, env=None):
    """Start cli_prog; returns (Popen, pid) once it printed 'ready PID'."""
    e = dict(os.environ)
    e.pop("RECORDER_KEEP", None)
    if env:
        e.update(env)
    p = subprocess.Popen([PROG, *map(str, args)], stdout=subprocess.PIPE, text=True, env=e, cwd=WORK)
    line = readline(p)
    m = re.match(r"ready (\d+)", line or "")
    require(m is not None, f"cli_prog {' '.join(map(str, args))} started ({line!r})")
    return p, int(m.group(1))


def readline(p, timeout=TIMEOUT):
    r, _, _ = select.select([p.stdout], [], [], timeout)
    return p.stdout.readline() if r else None




def reap(p):
    try:
        p.kill()
    except ProcessLookupError:
        pass
    p.wait(timeout=TIMEOUT)




def validate_trace(path):
    """The strict checker when the analysis tests have it; JSON syntax and
    the trace-event shape meanwhile."""
    if os.path.exists(CHECK_TRACE):
        p = subprocess.run([sys.executable, CHECK_TRACE, path], capture_output=True, text=True, timeout=TIMEOUT)
        check(p.returncode == 0, f"check_trace.py {os.path.basename(path)}: {p.stdout[-300:]}{p.stderr[-300:]}")
    with open(path, "rb") as f:
        data = f.read()
    try:
        doc = json.loads(data)
    except ValueError as e:
        check(False, f"{os.path.basename(path)} is JSON ({e})")
        return {"traceEvents": []}
    check(isinstance(doc.get("traceEvents"), list), f"{os.path.basename(path)} has traceEvents")
    return doc


def events_named(doc, name, ph=None):
    return [e for e in doc["traceEvents"] if e.get("name") == name and (ph is None or e.get("ph") == ph)]


def slice_names(doc):
    """Names of slices: complete and begin events, and open slices of zero
    length (the exporter writes those as instants whose category says open;
    docs/analysis.md)."""
    return {e.get("name") for e in doc["traceEvents"]
            if e.get("ph") in ("X", "B") or (e.get("ph") == "i" and "open" in e.get("cat", "").split(","))}


def one_line_error(code, err, want, what):
    lines = [l for l in err.splitlines() if l.strip()]
    check(code == want, f"{what}: exit {code}, expected {want}")
    check(len(lines) == 1 and lines[0].startswith("recorder"), f"{what}: one-line error ({err.strip()!r})")


def segment_copy(pid, name, cut=None, patch=None):
    """A copy of a segment file in WORK, optionally cut or patched."""
    with open(seg(pid), "rb") as f:
        data = bytearray(f.read())
    if patch:
        patch(data)
    if cut is not None:
        data = data[:cut]
    path = os.path.join(WORK, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


# Header offsets (struct rec_header, include/recorder.h).
OFF_VERSION, OFF_PID, OFF_PROC_START = 8, 24, 32


def set_u32(off, v):
    return lambda d: d.__setitem__(slice(off, off + 4), struct.pack("<I", v))


def set_u64(off, v):
    return lambda d: d.__setitem__(slice(off, off + 8), struct.pack("<Q", v))


def capture_summary(err):
    m = re.search(r"(\d+) events \((\d+) entries\).*not kept (\d+) entries.*"
                  r"lost (\d+) entries: (\d+) dropped, (\d+) overwritten; ended: (.*)",
                  err)
    require(m is not None, f"capture printed its summary ({err.strip()[-300:]!r})")
    ev, ent, history, lost, dropped, over = map(int, m.groups()[:6])
    return {"events": ev, "entries": ent, "history": history, "lost": lost, "dropped": dropped, "overwritten": over,
            "ended": m.group(7)}


def launch(cap_args, prog_args, env=None):
    """recorder capture -o FILE CAP_ARGS -- cli_prog PROG_ARGS; returns (code, stdout, stderr, out)."""
    out = os.path.join(WORK, "launch.rec")
    if os.path.exists(out):
        os.unlink(out)
    e = {"CLI_PROG_NOWAIT": "1"}
    e.update(env or {})
    code, so, err = rec("capture", "-o", out, *cap_args, "--", PROG, *prog_args, env=e)
    return code, so, err, out
