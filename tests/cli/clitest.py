"""Helpers for the `recorder` command's tests that live in their own files
(test_outputs.py, test_text.py, ...): arguments, checks, running recorder
and cli_prog.  test_cli.py's scenarios use its checks too, and their own
text-mode helpers from clilive.py.

Every test script is run as: SCRIPT RECORDER CLI_PROG WORKDIR TEST
"""
import os
import re
import shutil
import subprocess
import sys

RECORDER, PROG, WORK = [os.path.abspath(a) for a in sys.argv[1:4]]
TEST = sys.argv[4]
SHM = "/dev/shm"
TIMEOUT = 120
SKIP = 77   # meson's "skipped"

# enum rec_status (librecorder/include/recorder/reader.h), the documented exit codes
OK, USAGE, NOTFOUND, ACCESS, FORMAT, VERSION, TRUNCATED, IO, NOMEM, BUSY = 0, 2, 3, 4, 5, 6, 7, 8, 9, 10

failures = 0


def check(cond, what):
    global failures
    if cond:
        print("ok:", what)
    else:
        print("FAILED:", what)
        failures += 1
    return cond


def require(cond, what):
    if not check(cond, what):
        sys.exit(1)


def env_without_keep(extra=None):
    e = dict(os.environ)
    e.pop("RECORDER_KEEP", None)
    e.update(extra or {})
    return e


def rec(*args, env=None, preexec_fn=None, stdout=None):
    """Run recorder in WORK (arguments: str, or bytes for any byte); returns
    (code, stdout bytes, stderr bytes)."""
    args = [a if isinstance(a, bytes) else str(a) for a in args]
    p = subprocess.run([RECORDER, *args], stdout=stdout or subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env or env_without_keep(), timeout=TIMEOUT, cwd=WORK, preexec_fn=preexec_fn)
    return p.returncode, p.stdout or b"", p.stderr


def run_prog(*args, keep=True):
    """Run cli_prog to its end, its segment kept; returns its pid."""
    p = subprocess.run([PROG, *map(str, args)], env=env_without_keep({"RECORDER_KEEP": "1"} if keep else None),
                       cwd=WORK, timeout=TIMEOUT, capture_output=True)
    m = re.search(rb"pid (\d+)", p.stdout)
    require(m is not None, f"cli_prog {' '.join(map(str, args))} said its pid ({p.stdout!r}, {p.stderr[-200:]!r})")
    return int(m.group(1))


def seg(pid):
    return os.path.join(SHM, f"recorder.{pid}")


def remove_segment(pid):
    try:
        os.unlink(seg(pid))
    except FileNotFoundError:
        pass


def one_line_error(code, err, want, what):
    lines = [l for l in err.decode(errors="replace").splitlines() if l.strip()]
    check(code == want, f"{what}: exit {code}, expected {want}")
    check(len(lines) == 1 and lines[0].startswith("recorder"), f"{what}: one-line error ({err.strip()!r})")


def main(tests):
    if TEST not in tests:
        sys.exit(f"unknown test {TEST}; one of {', '.join(tests)}")
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    code = tests[TEST]()
    if failures:
        print(f"{failures} check(s) failed")
        sys.exit(1)
    sys.exit(code or 0)
