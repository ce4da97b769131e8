#!/usr/bin/env python3
"""sec_common: what every case of the attacker's suite (sec_test.py) uses:
checks, running the tools, craft_seg and sec_prog processes, traces,
recorder-top in tmux, recorder-web through sec_web.js, and main(), which
runs one case.  Nothing is timed: every timeout only turns a hang into a
failure ("hung").  Sanitizer reports in any tool's stderr fail the check
that ran it.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time

SHM = "/dev/shm"
TIMEOUT = 60            # a tool that has not returned by then hung
DEADLINE = 20.0         # waiting for a screen, a line, a file
OK, USAGE, NOTFOUND, ACCESS, FORMAT, VERSION, TRUNCATED, IO = 0, 2, 3, 4, 5, 6, 7, 8
SAN = ("AddressSanitizer", "UndefinedBehaviorSanitizer", "LeakSanitizer", "runtime error:", "SUMMARY: ")
HERE = os.path.dirname(os.path.abspath(__file__))

A = argparse.Namespace()   # the options; main() fills it in, the cases read it
failures = 0
cleanups = []           # callables run at exit, last first


class Skip(Exception):
    pass


def check(cond, what):
    global failures
    print(("ok: " if cond else "FAILED: ") + what, flush=True)
    if not cond:
        failures += 1
    return cond


def require(cond, what):
    if not check(cond, what):
        raise SystemExit(1)


def sanitizer_clean(text, what):
    bad = [m for m in SAN if m in (text or "")]
    return check(not bad, f"{what}: no sanitizer report" + (f" ({text.strip()[-1500:]})" if bad else ""))


def env_of(extra=None):
    e = dict(os.environ)
    e.pop("RECORDER_KEEP", None)
    e.pop("RECORDER_NAME", None)
    e.setdefault("UBSAN_OPTIONS", "halt_on_error=1:abort_on_error=1:print_stacktrace=1")
    e.setdefault("ASAN_OPTIONS", "abort_on_error=1:detect_leaks=1")
    if extra:
        e.update(extra)
    return e


def run(argv, what=None, timeout=TIMEOUT, env=None, user=None, stdin=subprocess.DEVNULL):
    """Runs a tool to its end: (code, stdout, stderr); a hang is a failure
    (code None).  Sanitizer reports fail."""
    what = what or " ".join(os.path.basename(str(a)) for a in argv[:4])
    cmd = [str(a) for a in argv]
    if user:
        cmd = ["runuser", "-u", user, "--"] + cmd
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout,
                           env=env_of(env), cwd=A.work, stdin=stdin)
    except subprocess.TimeoutExpired as e:
        check(False, f"{what}: returned within {timeout}s (it hung)")
        return None, (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or ""), \
            (e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
    sanitizer_clean(p.stderr, what)
    return p.returncode, p.stdout, p.stderr


def rec(*args, **kw):
    return run([A.recorder, *args], what="recorder " + " ".join(map(str, args))[:120], **kw)


def one_line(err, what, must=None):
    lines = [l for l in (err or "").splitlines() if l.strip()]
    ok = len(lines) == 1 and (must is None or must in lines[0])
    return check(ok, f"{what}: one line on stderr{' with ' + repr(must) if must else ''} ({(err or '').strip()[:300]!r})")


def printable(text):
    """No byte that could move a terminal's cursor or change its state."""
    return not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text or "")


# ---- processes ----------------------------------------------------------

def read_line(p, pattern, what, timeout=DEADLINE):
    """The first stdout line of p matching pattern (a regex), or fail."""
    import select
    end = time.monotonic() + timeout
    buf = ""
    while time.monotonic() < end:
        r, _, _ = select.select([p.stdout], [], [], 0.2)
        if r:
            line = p.stdout.readline()
            if not line:
                break
            m = re.search(pattern, line)
            if m:
                return m
            buf += line
        elif p.poll() is not None:
            break
    err = ""
    if p.poll() is not None and p.stderr:
        err = p.stderr.read()
    require(False, f"{what} printed {pattern!r} (got {buf!r} {err.strip()[:300]!r})")


def stop(p, sig=signal.SIGTERM):
    if p.poll() is None:
        try:
            p.send_signal(sig)
            p.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    return p.returncode


class Holder:
    """craft_seg --hold: a hostile segment with a live writer-like process."""

    def __init__(self, scenario, name=None, churn=False, truncate_to=None, extra=()):
        self.name = name or f"sec-{scenario}-{os.getpid()}-{len(cleanups)}"
        argv = [A.craft, "--name", self.name, "--scenario", scenario, "--hold"]
        if churn:
            argv.append("--churn")
        if truncate_to is not None:
            argv += ["--truncate-to", str(truncate_to)]
        argv += list(extra)
        self.p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env_of())
        cleanups.append(self.stop)
        m = read_line(self.p, r"^ready (\d+) (\S+)", f"craft_seg {scenario}")
        self.pid, self.path = int(m.group(1)), m.group(2)
        self.target = "recorder." + self.name

    def truncate(self):
        self.p.send_signal(signal.SIGUSR1)
        read_line(self.p, r"^truncated", "craft_seg truncating its file")

    def stop(self):
        stop(self.p)


class Victim:
    """sec_prog hold: a real instrumented program."""

    def __init__(self, argv_prefix=(), env=None, user=None):
        argv = list(argv_prefix) + [A.prog, "hold"]
        if user:
            argv = ["runuser", "-u", user, "--"] + argv
        self.p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=env_of(env), cwd=A.work)
        cleanups.append(self.stop)
        m = read_line(self.p, r"^ready (\d+) (\S+)", "sec_prog hold")
        self.pid, self.path = int(m.group(1)), m.group(2)

    def stop(self):
        # runuser passes SIGTERM on; the program removes its segment at exit.
        code = stop(self.p)
        self.stderr = self.p.stderr.read() if self.p.stderr else ""
        return code


def remove_later(path):
    def rm():
        try:
            if os.path.islink(path) or os.path.exists(path):
                os.unlink(path)
        except OSError:
            pass
    cleanups.append(rm)


# ---- traces ---------------------------------------------------------------

def load_json(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        check(False, f"{what}: {os.path.basename(path)} is a JSON trace ({e})")
        return None


def other(doc):
    return doc.get("otherData", {}).get("recorder", {}) if doc else {}


def begins(doc, name, tid=None):
    return sum(1 for e in doc.get("traceEvents", []) if e.get("name") == name and e.get("ph") in ("B", "X")
               and (tid is None or e.get("tid") == tid))


def names_in(doc):
    return {e.get("name") for e in doc.get("traceEvents", [])} if doc else set()


def capture_summary(err):
    m = re.search(r"(\d+) events \((\d+) entries\).*?(?:not kept (\d+) entries.*?)?lost (\d+) entries: (\d+) dropped, "
                  r"(\d+) overwritten; ended: ([^\n]*)", err or "", re.S)
    if not m:
        return None
    g = m.groups()
    return {"events": int(g[0]), "entries": int(g[1]), "history": int(g[2] or 0), "lost": int(g[3]),
            "dropped": int(g[4]), "overwritten": int(g[5]), "ended": g[6]}


def ls_row(name):
    code, out, _ = rec("ls", "--json")
    rows = [json.loads(l) for l in (out or "").splitlines() if l.startswith("{")]
    check(code == OK, f"recorder ls --json exits 0 ({code})")
    mine = [r for r in rows if r.get("name") == name]
    return mine[0] if mine else None, rows


# ---- tmux -----------------------------------------------------------------

class Tmux:
    def __init__(self, tag):
        if not shutil.which("tmux"):
            raise Skip("tmux is not installed")
        self.dir = tempfile.mkdtemp(prefix=f"sec-tmux-{tag}-")
        self.sock = os.path.join(self.dir, "sock")   # removed with the directory: tmux leaves it behind
        self.conf = os.path.join(self.dir, "tmux.conf")
        with open(self.conf, "w") as f:
            f.write('set -g default-terminal "tmux-256color"\nset -g status off\nset -g remain-on-exit on\n'
                    "set -g escape-time 0\n")
        self.status = os.path.join(self.dir, "status")
        self.errfile = os.path.join(self.dir, "stderr")
        cleanups.append(self.close)

    def tmux(self, *args):
        return subprocess.run(["tmux", "-S", self.sock, "-f", self.conf, *args], capture_output=True, text=True,
                              timeout=TIMEOUT).stdout

    def start(self, argv):
        env = {k: v for k, v in env_of({"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}).items()
               if k in ("LANG", "LC_ALL", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "PATH")}
        cmd = "env " + " ".join(shlex.quote(f"{k}={v}") for k, v in env.items()) + " " + \
              " ".join(shlex.quote(str(a)) for a in argv) + f" 2>{shlex.quote(self.errfile)}" + \
              f"; echo $? > {shlex.quote(self.status)}"
        self.tmux("new-session", "-d", "-s", "t", "-x", "120", "-y", "40", cmd)

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", "t")

    def wait(self, pred, what, timeout=DEADLINE):
        end = time.monotonic() + timeout
        s = ""
        while time.monotonic() < end:
            s = self.screen()
            if pred(s):
                return s
            if self.exited() is not None:
                break
            time.sleep(0.1)
        check(False, f"{what} (the screen shows:\n{s}\nstderr: {self.stderr()[-1500:]!r})")
        return None

    def exited(self):
        try:
            with open(self.status) as f:
                t = f.read()
            return int(t) if t.endswith("\n") else None
        except (FileNotFoundError, ValueError):
            return None

    def stderr(self):
        try:
            with open(self.errfile, errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def frames(self, n=20, period=0.05):
        """Lets recorder-top draw about n more frames (it redraws every
        --refresh ms); nothing is measured."""
        time.sleep(n * period)

    def quit(self, what):
        self.tmux("send-keys", "-t", "t", "q")
        end = time.monotonic() + DEADLINE
        while self.exited() is None and time.monotonic() < end:
            time.sleep(0.1)
        code = self.exited()
        check(code == 0, f"{what}: recorder-top quits with status 0 on q ({code}; {self.stderr()[-800:]!r})")
        sanitizer_clean(self.stderr(), what)
        self.close()

    def close(self):
        subprocess.run(["tmux", "-S", self.sock, "kill-server"], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)


def top_watch(target, expect, what, frames=20, before_quit=None):
    """recorder-top TARGET in tmux: it draws (expect is on the screen), keeps
    drawing for some frames and stays up, then quits cleanly."""
    t = Tmux(re.sub(r"\W", "", what)[:20])
    t.start([A.top, "--refresh", "50", target])
    s = t.wait(lambda s: all(x in s for x in expect), f"{what}: recorder-top draws {expect}")
    if s is None:
        return t, None
    t.frames(frames)
    check(t.exited() is None, f"{what}: recorder-top is still running after {frames} more frames")
    s = t.screen()
    check("1 Top" in s and "3 Threads" in s, f"{what}: and still drawing")
    if before_quit:
        before_quit(t)
    t.quit(what)
    return t, s


# ---- recorder-web ------------------------------------------------------------

def web(target, what, mode="watch", holder=None, extra=()):
    """tests/security/sec_web.js: recorder-web on target, a WebSocket
    client, the server alive afterwards."""
    node = shutil.which("node")
    if not node:
        raise Skip("node is not installed")
    argv = [node, os.path.join(HERE, "sec_web.js"), A.web, str(target), mode,
            str(holder.pid) if holder else "0", holder.path if holder else "-", *extra]
    code, out, err = run(argv, what=f"recorder-web: {what}", timeout=120)
    print("\n".join("    " + re.sub(r"[\x00-\x1f\x7f]", "?", l) for l in (out or "").splitlines()))
    check(code == 0, f"recorder-web: {what} ({code}; {err.strip()[-1500:]!r})")
    return out


# ---------------------------------------------------------------------------

def main(cases):
    """Runs the case named on the command line (cases: name -> function)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    for k in ("recorder", "top", "web", "craft", "prog", "work"):
        ap.add_argument("--" + k, required=True)
    A.__dict__.update(vars(ap.parse_args()))
    for k in ("recorder", "top", "web", "craft", "prog", "work"):
        setattr(A, k, os.path.abspath(getattr(A, k)))
    shutil.rmtree(A.work, ignore_errors=True)
    os.makedirs(A.work)
    os.chmod(A.work, 0o755)
    fn = cases.get(A.case)
    if not fn:
        print(f"unknown case {A.case}")
        return 2
    code = 0
    try:
        fn()
    except Skip as e:
        print(f"SKIP: {e}")
        code = 77
    except SystemExit as e:
        code = e.code or 1
    finally:
        for c in reversed(cleanups):
            try:
                c()
            except Exception as e:  # cleanup must go on
                print(f"cleanup: {e}")
    if code:
        return code
    print(f"{A.case}: {failures} failed")
    return 1 if failures else 0
