#!/usr/bin/env python3
"""The attacker's test suite: hostile segments and hostile names against
every tool that reads /dev/shm (tests/security/README.md says which case
checks which guarantee).

usage: sec_test.py CASE --recorder R --top T --web W --craft C --prog P --work DIR

Each CASE is a function case_CASE below.  It prints "ok:" / "FAILED:" for
each check and exits 1 if any failed, 77 (skipped) when it needs root or a
tool that is missing.  Nothing is timed: every timeout only turns a hang
into a failure ("hung"), and a hang is exactly what several of these
attacks try to cause.  Sanitizer reports (the ASan+UBSan build) in any
tool's stderr fail the check that ran it.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SHM = "/dev/shm"
TIMEOUT = 60            # a tool that has not returned by then hung
DEADLINE = 20.0         # waiting for a screen, a line, a file
OK, USAGE, NOTFOUND, ACCESS, FORMAT, VERSION, TRUNCATED, IO = 0, 2, 3, 4, 5, 6, 7, 8
SAN = ("AddressSanitizer", "UndefinedBehaviorSanitizer", "LeakSanitizer", "runtime error:", "SUMMARY: ")
HERE = os.path.dirname(os.path.abspath(__file__))

A = None
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
        self.sock = f"sec-{tag}-{os.getpid()}-{len(cleanups)}"
        self.dir = tempfile.mkdtemp(prefix="sec-tmux-")
        self.conf = os.path.join(self.dir, "tmux.conf")
        with open(self.conf, "w") as f:
            f.write('set -g default-terminal "tmux-256color"\nset -g status off\nset -g remain-on-exit on\n'
                    "set -g escape-time 0\n")
        self.status = os.path.join(self.dir, "status")
        self.errfile = os.path.join(self.dir, "stderr")
        cleanups.append(self.close)

    def tmux(self, *args):
        return subprocess.run(["tmux", "-L", self.sock, "-f", self.conf, *args], capture_output=True, text=True,
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
        subprocess.run(["tmux", "-L", self.sock, "kill-server"], capture_output=True)
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


# ---- cases: crafted segments through every reader --------------------------

# What each scenario's rings must at least yield as bad entries (entries of
# a type the writer never makes, instants with impossible lengths), and
# the plain slot that must still decode exactly.
SCENARIOS = {
    # scenario: (min bad entries, plain tid, plain scopes)
    "types": (492, 1001, 20),
    "exploit": (329, 1000, 20),
    "instant": (215, 1001, 20),
    "heads": (2, 1000, 20),
    "dropped": (1, 1000, 20),
    "strings": (0, 1000, 20),
    "values": (0, None, 0),
    # A ring of 2^19 entries that each pack to 19 bytes: the capture's
    # 8 MiB output buffer fills with them within one poll.
    "packmax": (0, None, 0),
}
EXTRA = {"packmax": ["--ring-entries", "524288"]}


def check_trace(doc, scen, what):
    if doc is None:
        return
    min_bad, tid, n = SCENARIOS[scen]
    o = other(doc)
    bad = o.get("entries_bad", -1)
    # A capture file keeps the implausible heads it saw in LOSS records
    # (docs/capture-format.md): counted as bad there too, never as lost.
    check(bad >= min_bad, f"{what}: hostile entries counted as bad ({bad} >= {min_bad})")
    if tid is not None:
        got = begins(doc, "craft_outer", tid), begins(doc, "craft_inner", tid)
        check(got == (n, n), f"{what}: the well-formed thread decodes whole ({got} == {(n, n)})")
    lost = o.get("entries_not_kept", 0) + o.get("entries_overwritten", 0) + o.get("entries_dropped", 0)
    if scen in ("heads", "dropped"):
        check(lost == 0, f"{what}: impossible heads and counters are not counted as lost entries ({lost})")
    check(lost < 2 ** 40, f"{what}: losses stay plausible ({lost})")


def case_craft_cli():
    """Guarantees 1 and 6: each crafted scenario through capture (packed and
    raw) + convert, dump, report and ls."""
    for scen in SCENARIOS:
        h = Holder(scen, extra=EXTRA.get(scen, ()))
        what = f"[{scen}]"
        # ls: listed alive, with sane numbers
        row, _ = ls_row("recorder." + h.name)
        if check(row is not None and row.get("state") == "alive", f"{what} ls lists it alive ({row})"):
            if scen in ("heads", "dropped"):
                check(row["events"] == 82 and row["lost"] == 0 and row["overwritten"] == 0,
                      f"{what} ls: only the plausible head counts (events {row['events']} == 82, lost "
                      f"{row['lost']}, overwritten {row['overwritten']})")
            check(row["events"] < 2 ** 40 and row["lost"] < 2 ** 40, f"{what} ls: numbers stay sane ({row})")
        code, out, _ = rec("ls")
        check(code == OK and printable(out), f"{what} ls: exit 0, nothing a terminal would act on")
        # dump
        j = os.path.join(A.work, f"dump-{scen}.json")
        code, _, err = rec("dump", h.target, "-o", j)
        check(code == OK, f"{what} dump exits 0 ({code}; {err.strip()[-300:]!r})")
        check(printable(err), f"{what} dump's summary has no control bytes")
        if code == OK:
            check_trace(load_json(j, what), scen, f"{what} dump")
        # report
        code, out, err = rec("report", h.target)
        check(code == OK and "pid" in out, f"{what} report exits 0 ({code}; {err.strip()[-300:]!r})")
        check(printable(out) and printable(err), f"{what} report prints nothing a terminal would act on")
        # capture, packed and raw, then every conversion
        for raw in ([], ["--raw"]):
            tag = f"{what} capture{' --raw' if raw else ''}"
            f = os.path.join(A.work, f"cap-{scen}{'-raw' if raw else ''}.rec")
            code, _, err = rec("capture", h.target, "-o", f, "--duration", "0.3", *raw)
            s = capture_summary(err)
            check(code == OK and s is not None, f"{tag}: exit 0 with its summary ({code}; {err.strip()[-400:]!r})")
            if s and scen in ("heads", "dropped"):
                check(s["history"] + s["lost"] == 0, f"{tag}: no absurd losses ({s})")
                m = re.search(r"warning: (\d+) impossible ring heads or drop counts were seen", err)
                check(m is not None and int(m.group(1)) >= SCENARIOS[scen][0],
                      f"{tag}: says how many impossible heads it saw ({err.strip()[-300:]!r})")
            if code != OK:
                continue
            for ext in ("json", "csv", "folded"):
                o = os.path.join(A.work, f"cap-{scen}.{ext}")
                c2, _, e2 = rec("convert", f, "-o", o)
                check(c2 == OK and os.path.exists(o), f"{tag} | convert .{ext}: exit 0 ({c2}; {e2.strip()[-300:]!r})")
                if c2 == OK and ext == "json":
                    check_trace(load_json(o, tag), scen, f"{tag} | convert")
            c2, out, _ = rec("report", f)
            check(c2 == OK and printable(out), f"{tag} | report: exit 0, printable")
        h.stop()
        check(not os.path.exists(h.path), f"{what} craft_seg removed its file")


def case_craft_churn():
    """Guarantees 1 and 6 while the segment changes between reads: heads
    that run backwards, jump by 2^63 and back, dropped counters that fall,
    fresh random entries of every type -- through capture (a reader that
    polls for a while), dump, report and ls."""
    h = Holder("all", churn=True)
    f = os.path.join(A.work, "churn.rec")
    code, _, err = rec("capture", h.target, "-o", f, "--duration", "1.5")
    s = capture_summary(err)
    check(code == OK and s is not None, f"capture of a churning segment: exit 0 ({code}; {err.strip()[-400:]!r})")
    if s:
        check(s["lost"] + s["history"] < 2 ** 40, f"capture: losses stay plausible ({s})")
    for ext in ("json", "csv", "folded"):
        o = os.path.join(A.work, f"churn.{ext}")
        c2, _, e2 = rec("convert", f, "-o", o)
        check(c2 == OK, f"convert .{ext} of it: exit 0 ({c2}; {e2.strip()[-300:]!r})")
    doc = load_json(os.path.join(A.work, "churn.json"), "churn capture")
    if doc:
        o = other(doc)
        check(o.get("entries_bad", 0) > 0, f"the capture counted bad entries ({o.get('entries_bad')})")
        check("craft_outer" in names_in(doc), "and decoded the valid scopes among them")
    for i in range(5):
        j = os.path.join(A.work, f"churn-dump{i}.json")
        code, _, err = rec("dump", h.target, "-o", j)
        check(code == OK, f"dump #{i} of a churning segment: exit 0 ({code}; {err.strip()[-300:]!r})")
        doc = load_json(j, "churn dump") if code == OK else None
        if doc:
            o = other(doc)
            lost = o.get("entries_not_kept", 0) + o.get("entries_overwritten", 0) + o.get("entries_dropped", 0)
            check(lost < 2 ** 40, f"dump #{i}: losses stay plausible ({lost})")
        code, out, _ = rec("report", h.target)
        check(code == OK and printable(out), f"report #{i}: exit 0, printable")
        row, _ = ls_row(h.target)
        check(row is not None and row.get("events", 2 ** 63) < 2 ** 40 and row.get("lost", 2 ** 63) < 2 ** 40,
              f"ls #{i}: sane numbers ({row})")
    check(h.p.poll() is None, "the hostile writer is still running (the readers never disturbed it)")
    h.stop()


def case_craft_top():
    """Guarantee 1 in recorder-top's drain: every scenario, and the
    churning one, drawn for a while; it stays up and quits cleanly."""
    for scen in ["all"] + list(SCENARIOS):
        h = Holder(scen, churn=(scen == "all"))
        top_watch(h.target, [f"pid {h.pid}"], f"recorder-top [{scen}]", frames=30,
                  before_quit=lambda t: [t.tmux("send-keys", "-t", "t", k) for k in ("2", "3", "1")])
        h.stop()


def case_craft_top_file():
    """Guarantee 1 in recorder-top's capture-file path: each crafted
    scenario captured (packed and raw), then browsed: every record passes
    the reader's checks, so the hostile entries reach the model; the
    cursor goes to the end, back and to the start; it stays up and quits
    cleanly."""
    keys = ("]", ">", "[", "<", "2", "3", "1")
    for scen in ["all"] + list(SCENARIOS):
        h = Holder(scen)
        for raw in ([], ["--raw"]):
            f = os.path.join(A.work, f"top-{scen}{'-raw' if raw else ''}.rec")
            code, _, err = rec("capture", h.target, "-o", f, "--duration", "0.3", *raw)
            require(code == OK, f"capture of [{scen}] ({code}; {err.strip()[-300:]!r})")
            top_watch(f, ["file top-", "1 Top"], f"recorder-top FILE [{scen}{' raw' if raw else ''}]", frames=20,
                      before_quit=lambda t: [t.tmux("send-keys", "-t", "t", k) for k in keys])
        h.stop()


def case_craft_web():
    """Guarantee 1 in recorder-web's drain: every scenario, and the
    churning one; a WebSocket client receives messages, the snapshot
    exports, the server stays up."""
    for scen in ["all"] + list(SCENARIOS):
        h = Holder(scen, churn=(scen == "all"))
        web(h.target, f"[{scen}]", "watch", holder=h)
        h.stop()


# ---- cases: names that are not segments ------------------------------------

def root_only_segment():
    """A valid segment, full of forged_scope, in a directory only root can
    enter: what a reader that followed a symlink would read."""
    d = tempfile.mkdtemp(prefix="sec-rootonly-")
    os.chmod(d, 0o700)
    cleanups.append(lambda: shutil.rmtree(d, ignore_errors=True))
    path = os.path.join(d, "secret.seg")
    code, _, err = run([A.craft, "--path", path, "--scenario", "forged"], what="craft_seg forged")
    require(code == 0, f"a root-only forged segment ({err.strip()})")
    os.chmod(path, 0o600)
    return path


def squat(path, kind, target=None):
    if kind == "fifo":
        os.mkfifo(path, 0o666)
    else:
        os.symlink(target, path)
    remove_later(path)


def squatting_wrapper(kind, target, prog_args, user=None):
    """sh -c '<squat recorder.$$>; exec sec_prog ...': the program's own
    name is taken before its first event."""
    if kind == "fifo":
        sq = "mkfifo /dev/shm/recorder.$$"
    elif kind == "symlink":
        sq = f"ln -s {shlex.quote(target)} /dev/shm/recorder.$$"
    else:   # another user's file with a forged header: this pid, this start time, and the launcher's tag
        sq = (f"runuser -u {user} -- {shlex.quote(A.craft)} --path /dev/shm/recorder.$$ --scenario forged "
              f"--forge-pid $$ --forge-start auto --launcher $PPID:auto")
    return ["sh", "-c", f"{sq} && exec \"$0\" \"$@\"", A.prog, *prog_args]


def case_names():
    """Guarantees 3 and 4: a FIFO and a symlink (to a root-only segment full
    of forged scopes) at a live program's recorder.<pid>; then at a
    recorder.<name>.  Nothing hangs; each name gets a one-line reason;
    the program's fallback segment is found by pid by every reader."""
    secret = root_only_segment()
    for kind in ("fifo", "symlink"):
        tag = f"[{kind} at recorder.<pid>]"
        v = Victim(argv_prefix=squatting_wrapper(kind, secret, [])[:-1])
        plain = os.path.join(SHM, f"recorder.{v.pid}")
        remove_later(plain)
        check(os.path.basename(v.path).startswith(f"recorder.{v.pid}.") and os.path.isfile(v.path),
              f"{tag} the writer fell back to recorder.<pid>.<random> ({v.path})")
        pid = str(v.pid)
        # readers by pid find the fallback, and only it
        j = os.path.join(A.work, f"names-{kind}.json")
        code, _, err = rec("dump", pid, "-o", j)
        doc = load_json(j, tag) if code == OK else None
        check(code == OK and doc is not None and "victim_outer" in names_in(doc) and
              "forged_scope" not in names_in(doc), f"{tag} dump PID: the program's own trace ({code}; {err.strip()!r})")
        code, out, err = rec("report", pid)
        check(code == OK and "victim_outer" in out and "forged_scope" not in out,
              f"{tag} report PID: the program's scopes ({code}; {err.strip()!r})")
        f = os.path.join(A.work, f"names-{kind}.rec")
        code, _, err = rec("capture", pid, "-o", f, "--duration", "0.3")
        check(code == OK, f"{tag} capture PID: exit 0 ({code}; {err.strip()[-300:]!r})")
        code, _, _ = rec("convert", f, "-o", j)
        doc = load_json(j, tag) if code == OK else None
        check(doc is not None and "victim_outer" in names_in(doc) and "forged_scope" not in names_in(doc),
              f"{tag} capture PID | convert: the program's own data")
        # ls: the squatted name is one line with its reason; the fallback is alive
        row, rows = ls_row(f"recorder.{v.pid}")
        check(row is not None and row["state"] == "foreign" and row.get("error"),
              f"{tag} ls: recorder.<pid> listed as foreign with a reason ({row})")
        fb = [r for r in rows if r.get("name") == os.path.basename(v.path)]
        check(len(fb) == 1 and fb[0]["state"] == "alive" and fb[0]["pid"] == v.pid,
              f"{tag} ls: the fallback listed alive with its pid ({fb})")
        code, out, _ = rec("ls")
        lines = [l for l in out.splitlines() if f"recorder.{v.pid}:" in l]
        check(len(lines) == 1, f"{tag} ls: one line for the squatted name ({lines})")
        # naming the squatted name itself: a one-line reason, no hang
        for cmd in (["dump", f"recorder.{v.pid}", "-o", j], ["report", f"recorder.{v.pid}"],
                    ["capture", f"recorder.{v.pid}", "-o", f, "--duration", "0.3"], ["dump", plain, "-o", j]):
            code, _, err = rec(*cmd)
            check(code not in (OK, None), f"{tag} recorder {cmd[0]} {cmd[1]}: refused ({code})")
            one_line(err, f"{tag} recorder {cmd[0]} {cmd[1]}", "FIFO" if kind == "fifo" else "symbolic link")
        for tool in (A.top, A.web):
            code, _, err = run([tool, f"recorder.{v.pid}"], what=f"{os.path.basename(tool)} recorder.<pid>")
            check(code == FORMAT, f"{tag} {os.path.basename(tool)} recorder.<pid>: exit {FORMAT} ({code})")
            one_line(err, f"{tag} {os.path.basename(tool)} recorder.<pid>",
                     "FIFO" if kind == "fifo" else "symbolic link")
        # the viewers by pid
        top_watch(pid, [f"pid {pid}", "victim_"], f"{tag} recorder-top PID", frames=10)
        # the picker lists the program (by its fallback) and does not hang
        t = Tmux("picker")
        t.start([A.top])
        t.wait(lambda s: re.search(rf"\b{pid}\s+sec_prog\b", s) is not None,
               f"{tag} the recorder-top picker lists pid {pid}")
        t.quit(f"{tag} picker")
        out = web(pid, f"{tag} recorder-web PID", "watch")
        check("victim_outer" in (out or "") and "forged_scope" not in (out or ""),
              f"{tag} recorder-web PID: serves the program's own scopes")
        v.stop()
        err = v.stderr
        fell = [l for l in err.splitlines() if "instead" in l]
        check(len(fell) == 1 and len(err.strip().splitlines()) == 1,
              f"{tag} the program said so in one line ({err.strip()!r})")
        check(not os.path.exists(v.path), f"{tag} the program removed its fallback segment at exit")
        check(os.path.lexists(plain), f"{tag} and left the squatter's name alone")

    # recorder.<name>: a FIFO and a symlink where a custom name should be
    for kind in ("fifo", "symlink"):
        name = f"sec-named-{kind}-{os.getpid()}"
        path = os.path.join(SHM, "recorder." + name)
        squat(path, kind, secret)
        tag = f"[{kind} at recorder.<name>]"
        j = os.path.join(A.work, "named.json")
        for cmd in (["dump", name, "-o", j], ["dump", "recorder." + name, "-o", j], ["report", "recorder." + name],
                    ["capture", "recorder." + name, "-o", os.path.join(A.work, "named.rec"), "--duration", "0.3"]):
            code, _, err = rec(*cmd)
            check(code not in (OK, None), f"{tag} recorder {' '.join(cmd[:2])}: refused ({code})")
            one_line(err, f"{tag} recorder {' '.join(cmd[:2])}", "FIFO" if kind == "fifo" else "symbolic link")
        for tool in (A.top, A.web):
            for t in (name, "recorder." + name):
                code, _, err = run([tool, t], what=f"{os.path.basename(tool)} {t}")
                check(code not in (OK, None), f"{tag} {os.path.basename(tool)} {t}: refused ({code})")
                one_line(err, f"{tag} {os.path.basename(tool)} {t}")
        code, out, _ = rec("ls")
        check(code == OK and len([l for l in out.splitlines() if f"recorder.{name}:" in l]) == 1,
              f"{tag} ls: one line for it")
        # a program given that name falls back and is found by pid
        v = Victim(env={"RECORDER_NAME": name})
        check(os.path.basename(v.path).startswith(f"recorder.{v.pid}.") and os.path.isfile(v.path),
              f"{tag} RECORDER_NAME squatted: the writer fell back to recorder.<pid>.<random> ({v.path})")
        code, out, err = rec("report", str(v.pid))
        check(code == OK and "victim_outer" in out, f"{tag} and report PID finds it ({code}; {err.strip()!r})")
        v.stop()
        check(len(v.stderr.strip().splitlines()) == 1, f"{tag} the program said so in one line ({v.stderr.strip()!r})")
        check(os.path.lexists(path), f"{tag} the squatter's name is left alone")


def case_names_launch():
    """Guarantees 2 and 3: `capture -o F -- CMD` and `run -- CMD` when the
    program's own recorder.<pid> is taken before it starts (a FIFO, a
    symlink to a root-only forged segment): they record the program, from
    its fallback segment, and nothing else; nothing hangs."""
    secret = root_only_segment()
    for kind in ("fifo", "symlink"):
        tag = f"[{kind} squatted before start]"
        f = os.path.join(A.work, f"launch-{kind}.rec")
        code, out, err = rec("capture", "-o", f, "--", *squatting_wrapper(kind, secret, ["scopes", "300"]))
        m = re.search(r"pid (\d+) (\S+)", out or "")
        if m:
            remove_later(os.path.join(SHM, f"recorder.{m.group(1)}"))
        check(code == OK and m is not None, f"{tag} capture -o F -- CMD: exit 0 ({code}; {err.strip()[-400:]!r})")
        j = os.path.join(A.work, f"launch-{kind}.json")
        c2, _, _ = rec("convert", f, "-o", j)
        doc = load_json(j, tag) if c2 == OK else None
        check(doc is not None and begins(doc, "victim_outer") == 300 and "forged_scope" not in names_in(doc),
              f"{tag} capture: all 300 of the program's scopes, nothing forged "
              f"({begins(doc, 'victim_outer') if doc else None})")
        if m:
            left = [n for n in os.listdir(SHM) if n.startswith(f"recorder.{m.group(1)}.")]
            check(not left, f"{tag} capture removed the program's fallback segment ({left})")
        code, out, err = rec("run", "-o", j, "--", *squatting_wrapper(kind, secret, ["scopes", "300"]))
        m = re.search(r"pid (\d+) (\S+)", out or "")
        if m:
            remove_later(os.path.join(SHM, f"recorder.{m.group(1)}"))
        doc = load_json(j, tag) if code == OK else None
        check(code == OK and doc is not None and begins(doc, "victim_outer") == 300 and
              "forged_scope" not in names_in(doc),
              f"{tag} run -- CMD: the program's own 300 scopes ({code}; {err.strip()[-400:]!r})")
        if m:
            left = [n for n in os.listdir(SHM) if n.startswith(f"recorder.{m.group(1)}.")]
            check(not left, f"{tag} run removed the program's fallback segment ({left})")


# ---- cases: another user -----------------------------------------------------

class User:
    def __init__(self):
        if os.geteuid() != 0:
            raise Skip("needs root (useradd, runuser)")
        if not shutil.which("useradd") or not shutil.which("runuser"):
            raise Skip("useradd or runuser missing")
        self.name = f"rsec{os.getpid()}"
        r = subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/bin/sh", self.name],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise Skip(f"useradd failed: {r.stderr.strip()}")
        cleanups.append(self.remove)
        import pwd
        self.uid = pwd.getpwnam(self.name).pw_uid
        # The other user runs the build's programs: a build tree under a
        # directory it cannot enter (a checkout in a 0700 mktemp directory)
        # makes this case meaningless, not failed.
        for exe in (A.recorder, A.craft, A.prog):
            r = subprocess.run(["runuser", "-u", self.name, "--", "test", "-x", exe], capture_output=True)
            if r.returncode != 0:
                self.remove()
                cleanups.remove(self.remove)
                raise Skip(f"another user cannot run {exe}: a parent directory of the build tree is not "
                           "searchable by others")

    def remove(self):
        subprocess.run(["pkill", "-KILL", "-U", str(self.uid)], capture_output=True)
        time.sleep(0.2)
        for n in os.listdir(SHM):
            p = os.path.join(SHM, n)
            try:
                if n.startswith("recorder.") and os.lstat(p).st_uid == self.uid:
                    os.unlink(p)
            except OSError:
                pass
        subprocess.run(["userdel", self.name], capture_output=True)


def case_other_user():
    """Guarantees 2, 3 and 4 across users: another user's forged file at
    the program's recorder.<pid> (its pid, its start time, even the
    launcher's tag) does not get into capture -- CMD or run -- CMD; root
    reading another user's segment is told whose it is; that user is
    refused root's segments."""
    u = User()
    # 1. capture -- CMD and run -- CMD with a forged file of the other user's
    tag = "[forged file of another user at recorder.<pid>]"
    f = os.path.join(A.work, "forged.rec")
    code, out, err = rec("capture", "-o", f, "--", *squatting_wrapper("user", None, ["scopes", "300"], user=u.name))
    m = re.search(r"pid (\d+)", out or "")
    if m:
        remove_later(os.path.join(SHM, f"recorder.{m.group(1)}"))
    check("another user's" in (err or ""), f"{tag} the forged file was in place: the program fell back")
    check(code == OK, f"{tag} capture -o F -- CMD: exit 0 ({code}; {err.strip()[-400:]!r})")
    j = os.path.join(A.work, "forged.json")
    c2, _, _ = rec("convert", f, "-o", j) if code == OK else (None, "", "")
    doc = load_json(j, tag) if c2 == OK else None
    check(doc is not None and begins(doc, "victim_outer") == 300 and "forged_scope" not in names_in(doc),
          f"{tag} capture: the program's own 300 scopes and nothing forged "
          f"({sorted(n for n in names_in(doc) if n)[:8] if doc else None})")
    code, out, err = rec("run", "-o", j, "--", *squatting_wrapper("user", None, ["scopes", "300"], user=u.name))
    m = re.search(r"pid (\d+)", out or "")
    if m:
        remove_later(os.path.join(SHM, f"recorder.{m.group(1)}"))
    doc = load_json(j, tag) if code == OK and os.path.exists(j) else None
    check(code == OK and doc is not None and begins(doc, "victim_outer") == 300 and
          "forged_scope" not in names_in(doc),
          f"{tag} run -- CMD: the program's own 300 scopes, nothing forged ({code}; {err.strip()[-400:]!r})")
    check("(craft_seg)" not in (err or ""), f"{tag} run -- CMD never dumped the forged file, not even on the way "
                                            f"({err.strip()[-400:]!r})")

    # 1b. a segment planted by the other user while `run` runs, with run's
    #     own launcher tag (pid and start time, both public) and some pid:
    #     no trace of it is written, and it is not run's to remove
    tag = "[a tagged segment planted by another user]"
    fake = 4000000 + os.getpid() % 100000
    planted = os.path.join(SHM, f"recorder.sec-planted-{os.getpid()}")
    remove_later(planted)
    plant = (f"runuser -u {u.name} -- {shlex.quote(A.craft)} --path {planted} --scenario forged "
             f"--forge-pid {fake} --forge-start 1 --launcher $PPID:auto")
    out_dir = tempfile.mkdtemp(prefix="sec-run-")
    cleanups.append(lambda: shutil.rmtree(out_dir, ignore_errors=True))
    code, out, err = rec("run", "-o", os.path.join(out_dir, "t.json"), "--",
                         "sh", "-c", f"{plant} && exec \"$0\" \"$@\"", A.prog, "scopes", "50")
    check(code == OK, f"{tag} run -- CMD: exit 0 ({code}; {err.strip()[-300:]!r})")
    check(os.path.lexists(planted), f"{tag} the planted file was there and run left it alone")
    check(sorted(os.listdir(out_dir)) == ["t.json"], f"{tag} only the program's own trace is written "
                                                    f"({sorted(os.listdir(out_dir))})")

    tag = "[forged file of another user at recorder.<pid>]"
    # 2. a live program of root's whose name another user squatted with a
    #    forged header: root's `dump PID` reads the program's own segment
    v = Victim(argv_prefix=squatting_wrapper("user", None, [], user=u.name)[:-1])
    remove_later(os.path.join(SHM, f"recorder.{v.pid}"))
    j = os.path.join(A.work, "forged-dump.json")
    code, _, err = rec("dump", str(v.pid), "-o", j)
    doc = load_json(j, tag) if code == OK else None
    check(code == OK and doc is not None and "victim_outer" in names_in(doc) and "forged_scope" not in names_in(doc),
          f"{tag} root's dump PID: the program's own segment, not the other user's forgery "
          f"({code}; {err.strip()!r}; {sorted(n for n in names_in(doc) if n)[:6] if doc else None})")
    code, out, err = rec("report", str(v.pid))
    check(code == OK and "victim_outer" in out and "forged_scope" not in out,
          f"{tag} root's report PID: the program's own scopes ({code}; {err.strip()!r})")
    _, s = top_watch(str(v.pid), [f"pid {v.pid}"], f"{tag} recorder-top PID", frames=10)
    check(s is not None and "victim_" in s and "forged_scope" not in s,
          f"{tag} recorder-top PID shows the program's own scopes")
    out = web(str(v.pid), f"{tag} recorder-web PID", "watch")
    check("victim_outer" in (out or "") and "forged_scope" not in (out or ""),
          f"{tag} recorder-web PID serves the program's own scopes")
    v.stop()

    # 3. the other user's own program: root may read it, and is told whose
    uv = Victim(user=u.name)
    tag = "[another user's segment]"
    code, _, err = rec("dump", str(uv.pid), "-o", os.path.join(A.work, "theirs.json"))
    check(code == OK, f"{tag} root's dump PID: exit 0 ({code}; {err.strip()!r})")
    check(f"owned by uid {u.uid}" in err, f"{tag} root's dump says 'owned by uid {u.uid}' ({err.strip()!r})")
    code, out, err = rec("report", str(uv.pid))
    check(code == OK and f"owned by uid {u.uid}" in (out + err),
          f"{tag} root's report says 'owned by uid {u.uid}' ({code}; {(out + err).strip()[:300]!r})")
    code, out, _ = rec("ls")
    line = [l for l in out.splitlines() if l.split()[:1] == [str(uv.pid)]]
    check(len(line) == 1 and f"owned by uid {u.uid}" in line[0], f"{tag} root's ls labels it ({line})")
    uv.stop()

    # 4. as that user: root's segments are refused, clearly, and nothing hangs
    rv = Victim()
    tag = "[root's segment, read by another user]"
    wd = tempfile.mkdtemp(prefix="sec-user-")
    os.chmod(wd, 0o777)
    cleanups.append(lambda: shutil.rmtree(wd, ignore_errors=True))
    out_json = os.path.join(wd, "x.json")
    for argv in ([A.recorder, "dump", str(rv.pid), "-o", out_json], [A.recorder, "report", str(rv.pid)],
                 [A.recorder, "capture", str(rv.pid), "-o", os.path.join(wd, "x.rec"), "--duration", "0.3"],
                 [A.recorder, "dump", rv.path, "-o", out_json], [A.top, str(rv.pid)], [A.web, str(rv.pid)]):
        code, _, err = run(argv, what=f"as {u.name}: {os.path.basename(argv[0])} {argv[1]}", user=u.name)
        check(code not in (OK, None), f"{tag} {os.path.basename(argv[0])} {argv[1]}: refused ({code})")
        one_line(err, f"{tag} {os.path.basename(argv[0])} {argv[1]}")
        check(not os.path.exists(out_json), f"{tag} nothing written")
    code, out, _ = run([A.recorder, "ls", "--json"], what="ls as another user", user=u.name)
    rows = [json.loads(l) for l in (out or "").splitlines() if l.startswith("{")]
    mine = [r for r in rows if r.get("name") == os.path.basename(rv.path)]
    check(len(mine) == 1 and mine[0]["state"] == "foreign" and "owned by uid 0" in mine[0].get("error", ""),
          f"{tag} ls as that user: foreign, owned by uid 0 ({mine})")
    rv.stop()


# ---- cases: truncation -------------------------------------------------------

def case_truncate_cli():
    """Guarantee 5 in the CLI: a live segment truncated (to 4096 bytes, and
    to 0) under `recorder capture` (exit 7, a complete, convertible file
    whose summary says so) and under `recorder dump` (no crash)."""
    for size in (4096, 0):
        tag = f"[truncated to {size}]"
        h = Holder("all", churn=True, truncate_to=size)
        f = os.path.join(A.work, f"trunc-{size}.rec")
        c = subprocess.Popen([A.recorder, "capture", h.target, "-o", f], stderr=subprocess.PIPE, text=True,
                             errors="replace", env=env_of(), cwd=A.work)
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end and not (os.path.exists(f) and os.path.getsize(f) > 65536):
            time.sleep(0.02)
        h.truncate()
        try:
            _, err = c.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            c.kill()
            _, err = c.communicate()
            check(False, f"{tag} capture returned (it hung)")
        sanitizer_clean(err, f"{tag} capture")
        check(c.returncode == TRUNCATED, f"{tag} capture exits {TRUNCATED} ({c.returncode}; {err.strip()[-400:]!r})")
        s = capture_summary(err)
        check(s is not None and "segment truncated" in s["ended"], f"{tag} its summary says 'segment truncated' ({s})")
        j = os.path.join(A.work, f"trunc-{size}.json")
        code, _, e2 = rec("convert", f, "-o", j)
        check(code == OK and "warning" not in e2, f"{tag} the capture file is complete and converts ({code}; {e2!r})")
        doc = load_json(j, tag) if code == OK else None
        check(doc is not None and "craft_outer" in names_in(doc), f"{tag} with what it had read")
        # dump and report after the truncation, and racing a second one
        for cmd in (["dump", h.target, "-o", j], ["report", h.target], ["ls"]):
            code, _, err = rec(*cmd)
            # 5 for an empty file ("too short for a recorder segment") is
            # accurate; 11 ("still starting") is not: it was published.
            want = (OK, TRUNCATED) + ((FORMAT,) if size == 0 else ())
            check(code in want, f"{tag} recorder {cmd[0]} afterwards: {code} in {want} ({err.strip()[-200:]!r})")
        h.stop()
        # dump racing the truncation: start the dump, truncate while it reads
        for i in range(10):
            h = Holder("all", churn=True, truncate_to=size)
            d = subprocess.Popen([A.recorder, "dump", h.target, "-o", j], stderr=subprocess.PIPE, text=True,
                                 errors="replace", env=env_of(), cwd=A.work)
            h.truncate()
            try:
                _, err = d.communicate(timeout=TIMEOUT)
                sanitizer_clean(err, f"{tag} dump racing it #{i}")
                want = (OK, TRUNCATED) + ((FORMAT,) if size == 0 else ())
                check(d.returncode in want, f"{tag} dump racing it #{i}: exit in {want} ({d.returncode}; "
                                            f"{err.strip()[-200:]!r})")
            except subprocess.TimeoutExpired:
                d.kill()
                d.communicate()
                check(False, f"{tag} dump racing it #{i} returned (it hung)")
            h.stop()


def case_truncate_top():
    """Guarantee 5 in recorder-top: it stays up and keeps drawing when the
    segment it watches shrinks (to 4096 bytes, and to 0)."""
    for size in (4096, 0):
        h = Holder("all", churn=True, truncate_to=size)
        top_watch(h.target, [f"pid {h.pid}"], f"recorder-top [truncated to {size}]", frames=20,
                  before_quit=lambda t: (h.truncate(), t.frames(20),
                                         check(t.exited() is None, "recorder-top is up after the truncation")))
        h.stop()


def case_truncate_top_message():
    """Guarantee 5: recorder-top says 'segment truncated' once the segment
    it watches shrank."""
    h = Holder("all", churn=True, truncate_to=4096)
    t = Tmux("truncmsg")
    t.start([A.top, "--refresh", "50", h.target])
    t.wait(lambda s: f"pid {h.pid}" in s, "recorder-top draws")
    h.truncate()
    t.wait(lambda s: "segment truncated" in s, "recorder-top shows 'segment truncated'")
    check(t.exited() is None, "recorder-top is still up")
    t.quit("recorder-top after a truncation")
    h.stop()


def case_truncate_web():
    """Guarantee 5 in recorder-web: it stays up and serves a new client
    after the segment shrank (to 4096 bytes, and to 0)."""
    for size in (4096, 0):
        h = Holder("all", churn=True, truncate_to=size)
        web(h.target, f"[truncated to {size}]", "truncate", holder=h)
        h.stop()


# ---- case: launch and dump at once -------------------------------------------

def case_launch_race():
    """Guarantee 7: 50 times, start a program and at once `recorder dump`
    its pid while it creates its segment.  A trace or 'has no segment'
    (it had not published yet), never 'corrupt' or 'not a recorder
    segment'.  A trace may be empty of scopes: a segment is published
    before the program's first event lands in it, and its thread is
    attached (its start and name recorded, a thread in the trace) before
    its first scope begins: a dump in between has the thread and no
    scope, which is right (this case once wanted "0 events, 0 threads"
    only, and failed on that at load)."""
    outcomes = {"trace": 0, "empty trace": 0, "no segment": 0}
    for i in range(50):
        p = subprocess.Popen([A.prog, "race"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             env=env_of())
        cleanups.append(lambda p=p: stop(p))
        j = os.path.join(A.work, f"race.json")
        code, _, err = rec("dump", str(p.pid), "-o", j)
        low = (err or "").lower()
        if code == OK:
            # Published but no scope yet (the segment is made before the
            # first event's slot, the slot before the first scope): a
            # trace without slices, which is still a trace.
            doc = load_json(j, f"race #{i}")
            empty = doc is not None and not any(e.get("ph") in ("B", "E", "X", "i", "I")
                                                for e in doc.get("traceEvents", []))
            ok = doc is not None and ("victim_outer" in names_in(doc) or empty)
            outcomes["empty trace" if empty else "trace"] += ok
            check(ok, f"race #{i}: the trace has the program's scope, or is empty ({err.strip()!r})")
        elif code == NOTFOUND and "has no segment" in err:
            outcomes["no segment"] += 1
        else:
            check(False, f"race #{i}: a trace or 'has no segment', not {code} {err.strip()!r}")
        check("corrupt" not in low and "not a recorder segment" not in low and "still starting" not in low,
              f"race #{i}: never called corrupt or unfinished ({err.strip()[:200]!r})")
        p.stdin.close()
        p.wait(timeout=TIMEOUT)
    check(sum(outcomes.values()) == 50, f"50 launches, 50 acceptable outcomes ({outcomes})")


# ---------------------------------------------------------------------------

def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    for k in ("recorder", "top", "web", "craft", "prog", "work"):
        ap.add_argument("--" + k, required=True)
    A = ap.parse_args()
    for k in ("recorder", "top", "web", "craft", "prog", "work"):
        setattr(A, k, os.path.abspath(getattr(A, k)))
    shutil.rmtree(A.work, ignore_errors=True)
    os.makedirs(A.work)
    os.chmod(A.work, 0o755)
    fn = globals().get("case_" + A.case)
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


if __name__ == "__main__":
    sys.exit(main())
