#!/usr/bin/env python3
"""Where `-o FILE` writes, for every command that takes it (dump, convert,
run, capture, gather): the output-file rule of docs/cli.md ("Output files").

usage: test_outputs.py RECORDER CLI_PROG WORKDIR TEST
TEST is a command (dump, convert, run, capture): what any user can check;
or COMMAND_root: devices made with mknod and files of another uid, which
need root and skip (exit 77) without it.

Why: recorder runs as root next to production programs.  Writing FILE.tmp
and renaming it over FILE replaced /dev/null with a regular file; a planted
FILE.tmp symlink made root overwrite what it pointed to; capture truncated
whatever FILE was, another user's file included.
"""
import io
import json
import os
import re
import resource
import select
import signal
import stat
import subprocess
import sys
import tarfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from accounts import unused_uid  # noqa: E402 -- tests/accounts.py, shared with tests/python
from clitest import (ACCESS, IO, OK, PROG, RECORDER, SKIP, TIMEOUT, WORK, check, env_without_keep, main,  # noqa: E402
                     one_line_error, rec, remove_segment, require, run_prog)

CAP_MAGIC = b"RCRDCAP1"
VICTIM_TEXT = b"precious: must never be overwritten\n"


# --- the four writers --------------------------------------------------------
class Writer:
    """One command that writes -o FILE, with what it needs to run."""

    def __init__(self, name):
        self.name = name
        # a name whose extension says what the command writes (others are refused)
        self.out_name = {"capture": "out.rec", "gather": "out.tar"}.get(name, "out.json")
        self.pid = None
        self.cap = None
        if name == "dump":   # a dead program's segment, read by pid
            self.pid = run_prog("scopes", 5)
        if name == "gather":   # a trace to gather
            self.src = os.path.join(WORK, "source.pftrace")
            code, _, err = rec("run", "-o", self.src, "--", PROG, "scopes", "5")
            require(code == OK, f"made a trace to gather ({err.strip()[-200:]!r})")
        if name == "convert":   # a capture file
            self.cap = os.path.join(WORK, "source.rec")
            code, _, err = rec("capture", "-o", self.cap, "--", PROG, "scopes", "5")
            require(code == OK, f"made a capture to convert ({err.strip()[-200:]!r})")

    def args(self, out):
        # run and capture start a program that leaves a mark (see started)
        cmd = ["sh", "-c", 'touch "$0"; exec "$1" exit 0', self.marker(), PROG]
        return {"dump": ["dump", self.pid, "-o", out],
                "convert": ["convert", self.cap, "-o", out, "--format", "json"],
                "run": ["run", "-o", out, "--", *cmd],
                "capture": ["capture", "-o", out, "--", *cmd],
                "gather": ["gather", "-o", out, getattr(self, "src", "")]}[self.name]

    def marker(self):
        return os.path.join(WORK, "started")

    def started(self):
        """Did run or capture start its program since last asked?"""
        try:
            os.unlink(self.marker())
            return True
        except FileNotFoundError:
            return False

    def check_not_started(self, what):
        if self.name in ("run", "capture"):
            check(not self.started(), f"{what}: the program was not started")

    def write(self, out, preexec_fn=None):
        self.started()   # forget earlier runs
        return rec(*self.args(out), preexec_fn=preexec_fn)

    def popen(self, out):
        return subprocess.Popen([RECORDER, *map(str, self.args(out))], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, cwd=WORK, env=env_without_keep())

    def valid(self, data):
        """Is data what this command writes?"""
        if self.name == "capture":
            return data.startswith(CAP_MAGIC)
        if self.name == "gather":
            try:
                with tarfile.open(fileobj=io.BytesIO(data)) as t:
                    return sorted(t.getnames()) == ["perfetto_manifest.json", "source.pftrace"]
            except tarfile.TarError:
                return False
        try:
            return len(json.loads(data)["traceEvents"]) > 0
        except (ValueError, KeyError, TypeError):
            return False

    def close(self):
        if self.pid:
            remove_segment(self.pid)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def victim(d, name="victim"):
    """A file whose contents must survive."""
    path = os.path.join(d, name)
    with open(path, "wb") as f:
        f.write(VICTIM_TEXT)
    os.chmod(path, 0o644)
    return path


def temp_leftovers(d, before):
    return sorted(set(os.listdir(d)) - set(before))


def fresh_dir(name, mode=0o755):
    d = os.path.join(WORK, name)
    os.makedirs(d)
    os.chmod(d, mode)
    return d


def no_tmp_named(err, what):
    check(b".tmp" not in err, f"{what}: the message names the path, not a temporary file ({err.strip()!r})")


# --- cases any user can check --------------------------------------------------
def case_new_file(w):
    d = fresh_dir("new")
    out = os.path.join(d, w.out_name)
    code, _, err = w.write(out)
    check(code == OK, f"{w.name} -o a new file: exit 0 ({err.strip()[-200:]!r})")
    check(w.started() or w.name in ("dump", "convert", "gather"), "the program ran (and left its mark)")
    st = os.lstat(out)
    check(stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600,
          f"it is a regular file of mode 0600 ({oct(st.st_mode)})")
    check(w.valid(read(out)), "with the whole output in it")
    check(os.listdir(d) == [w.out_name], f"and nothing else in its directory ({os.listdir(d)})")


def case_replace_regular(w):
    d = fresh_dir("replace")
    out = victim(d, w.out_name)
    code, _, err = w.write(out)
    check(code == OK, f"{w.name} -o an existing file: exit 0 ({err.strip()[-200:]!r})")
    st = os.lstat(out)
    check(stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600 and w.valid(read(out)),
          f"it is replaced by the output, mode 0600 ({oct(st.st_mode)})")
    check(os.listdir(d) == [w.out_name], f"no temporary file left ({os.listdir(d)})")


def case_planted_tmp_link(w):
    """The old FILE.tmp name, planted as a symlink: ignored."""
    d = fresh_dir("planted")
    target = victim(d)
    out = os.path.join(d, w.out_name)
    os.symlink(target, out + ".tmp")
    code, _, err = w.write(out)
    check(code == OK, f"{w.name} with a planted FILE.tmp symlink: exit 0 ({err.strip()[-200:]!r})")
    check(read(target) == VICTIM_TEXT, "what the link points to is untouched")
    check(os.path.islink(out + ".tmp") and w.valid(read(out)), "the link is left alone; FILE has the output")


def case_sticky_symlink(w):
    """A symlink in a world-writable sticky directory (like /tmp): refused."""
    d = fresh_dir("sticky", 0o1777)
    target = victim(WORK, "victim-of-link")
    out = os.path.join(d, w.out_name)
    os.symlink(target, out)
    before = os.listdir(d)
    code, _, err = w.write(out)
    one_line_error(code, err, ACCESS, f"{w.name} -o a symlink in a sticky dir")
    w.check_not_started("refused")
    check(w.out_name.encode() in err and b"symbolic link" in err,
          f"the message says why, naming the path ({err.strip()!r})")
    no_tmp_named(err, w.name)
    check(read(target) == VICTIM_TEXT and os.path.islink(out), "the link and its target are untouched")
    check(temp_leftovers(d, before) == [], "no temporary file left")


def case_link_to_file(w):
    """Elsewhere a link to a file is neither followed nor replaced."""
    d = fresh_dir("links")
    target = victim(d)
    out = os.path.join(d, w.out_name)
    os.symlink("victim", out)
    code, _, err = w.write(out)
    one_line_error(code, err, ACCESS, f"{w.name} -o a symlink to a file")
    check(read(target) == VICTIM_TEXT and os.path.islink(out), "the link and its target are untouched")


def case_directory(w):
    d = fresh_dir("adir")
    code, _, err = w.write(d)
    one_line_error(code, err, IO, f"{w.name} -o a directory")
    w.check_not_started("a directory")
    check(b"is a directory" in err, f"says it is a directory ({err.strip()!r})")
    no_tmp_named(err, w.name)
    check(os.listdir(d) == [] and os.listdir(WORK).count("adir") == 1, "nothing written in or next to it")


def case_missing_dir(w):
    out = os.path.join(WORK, "no-such-dir", w.out_name)
    code, _, err = w.write(out)
    one_line_error(code, err, IO, f"{w.name} -o a path whose directory does not exist")
    w.check_not_started("no directory")
    check(b"no-such-dir" in err and b"does not exist" in err, f"names the path ({err.strip()!r})")
    no_tmp_named(err, w.name)


def limit_file_size():
    """In the child: writes past 100 bytes fail with EFBIG (not SIGXFSZ)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))


def capture_running(out, preexec_fn):
    """recorder capture PID -o out, of a program already running (so that
    only recorder gets the limit)."""
    p = subprocess.Popen([PROG, "hold"], stdout=subprocess.PIPE, env=env_without_keep(), cwd=WORK)
    line = p.stdout.readline()
    require(line.startswith(b"ready "), f"cli_prog hold started ({line!r})")
    pid = int(line.split()[1])
    try:
        return rec("capture", pid, "-o", out, "--duration", "0.2", preexec_fn=preexec_fn)
    finally:
        p.kill()
        p.wait(timeout=TIMEOUT)
        remove_segment(pid)


def case_failed_write(w):
    """A write that fails leaves the old file as it was (for capture: one
    that fails before its first records are written)."""
    if w.name == "run":
        return   # the program would inherit the limit; dump covers run's writer
    d = fresh_dir("failing")
    out = victim(d, w.out_name)
    if w.name == "capture":
        code, _, err = capture_running(out, limit_file_size)
    else:
        code, _, err = w.write(out, preexec_fn=limit_file_size)
    one_line_error(code, err, IO, f"{w.name} whose writes fail")
    no_tmp_named(err, w.name)
    check(read(out) == VICTIM_TEXT and os.listdir(d) == [w.out_name], "the old file is untouched, no temporary left")


def case_fifo(w):
    """A FIFO with a reader gets the data and stays a FIFO."""
    d = fresh_dir("fifo")
    out = os.path.join(d, "pipe")
    os.mkfifo(out)
    fd = os.open(out, os.O_RDONLY | os.O_NONBLOCK)
    p = w.popen(out)
    data = b""
    while True:   # until the writer has exited and the pipe is drained
        r, _, _ = select.select([fd], [], [], 0.1)
        chunk = os.read(fd, 1 << 20) if r else b""
        data += chunk
        if not chunk and p.poll() is not None:
            break
    os.close(fd)
    err = p.stderr.read()
    check(p.returncode == OK, f"{w.name} -o a FIFO with a reader: exit 0 ({err.strip()[-200:]!r})")
    check(w.valid(data), f"the reader got the whole output ({len(data)} bytes)")
    check(stat.S_ISFIFO(os.lstat(out).st_mode) and os.listdir(d) == ["pipe"], "it is still a FIFO, alone")


def case_fifo_no_reader(w):
    """No reader: a clear error, not a hang (the wait is bounded)."""
    if w.name != "dump":
        return   # the same code for all; it waits a few seconds
    d = fresh_dir("fifo-alone")
    out = os.path.join(d, "pipe")
    os.mkfifo(out)
    code, _, err = w.write(out)
    one_line_error(code, err, IO, f"{w.name} -o a FIFO nobody reads")
    check(b"reading" in err, f"says nobody reads it ({err.strip()!r})")
    check(stat.S_ISFIFO(os.lstat(out).st_mode), "it is still a FIFO")


def case_stdout(w):
    if w.name == "run":
        return   # run writes a file per process: -o - is a usage error
    if w.name == "capture":
        return   # with -- CMD the program's output would mix in (a usage error)
    code, out, err = w.write("-")
    check(code == OK and w.valid(out), f"{w.name} -o - writes to stdout ({err.strip()[-200:]!r})")
    # /dev/stdout is a link (root's) to our stdout, here a file the caller
    # opened: written through it, not refused as a link to a file.
    path = os.path.join(WORK, "stdout.dat")
    with open(path, "wb") as f:
        code, _, err = rec(*w.args("/dev/stdout"), stdout=f)
    check(code == OK and w.valid(read(path)), f"{w.name} -o /dev/stdout > FILE ({err.strip()[-200:]!r})")


# --- cases that need root --------------------------------------------------------
def case_char_device(w):
    """Copies of /dev/null and /dev/full: written through, never replaced."""
    d = fresh_dir("dev")
    null, full = os.path.join(d, "null"), os.path.join(d, "full")
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    code, _, err = w.write(null)
    check(code == OK, f"{w.name} -o a copy of /dev/null: exit 0 ({err.strip()[-200:]!r})")
    st = os.lstat(null)
    check(stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3), "it is still the char device 1,3")
    code, _, err = w.write(full)
    # run: the trace could not be written, so the run's capture is kept and
    # named in a warning (docs/cli.md, "run"); the error itself is one line.
    kept = re.search(rb"warning: kept the capture (\S+): recorder convert", err)
    if w.name == "run" and check(kept is not None, f"run -o /dev/full: the capture kept and named ({err.strip()!r})"):
        os.unlink(kept.group(1))
        err = b"\n".join(l for l in err.splitlines() if b"kept the capture" not in l)
    one_line_error(code, err, IO, f"{w.name} -o a copy of /dev/full (every write fails)")
    no_tmp_named(err, w.name)
    if w.name in ("dump", "convert", "run"):   # the exporters: the failed write's own reason
        check(b"writing failed: No space left on device" in err, f"{w.name}: the error says why ({err.strip()!r})")
    st = os.lstat(full)
    check(stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 7), "it is still the char device 1,7")
    check(sorted(os.listdir(d)) == ["full", "null"], f"nothing else in the directory ({os.listdir(d)})")


def case_other_users_file(w):
    """In a sticky dir, another user's file or FIFO is neither replaced nor
    written.  The owner is a uid no account has: to the kernel and to
    recorder that is another user, and /etc/passwd is left alone."""
    uid = unused_uid()
    require(uid is not None, "found a uid no account uses")
    d = fresh_dir("sticky-other", 0o1777)
    out = victim(d, w.out_name)
    os.chmod(out, 0o666)
    os.chown(out, uid, uid)
    code, _, err = w.write(out)
    one_line_error(code, err, ACCESS, f"{w.name} -o uid {uid}'s file in a sticky dir")
    w.check_not_started("refused")
    check(f"uid {uid}".encode() in err, f"the message names the owner ({err.strip()!r})")
    st = os.lstat(out)
    check(read(out) == VICTIM_TEXT and st.st_uid == uid, "the file is untouched and still theirs")
    fifo = os.path.join(d, "their-pipe")
    os.mkfifo(fifo, 0o666)
    os.chown(fifo, uid, uid)
    code, _, err = w.write(fifo)
    one_line_error(code, err, ACCESS, f"{w.name} -o uid {uid}'s FIFO in a sticky dir (a reader of theirs would leak it)")
    check(sorted(os.listdir(d)) == sorted([w.out_name, "their-pipe"]),
          f"nothing else in the directory ({os.listdir(d)})")


COMMON = [case_new_file, case_replace_regular, case_planted_tmp_link, case_sticky_symlink, case_link_to_file,
          case_directory, case_missing_dir, case_failed_write, case_fifo, case_fifo_no_reader, case_stdout]
ROOT = [case_char_device, case_other_users_file]


def scenario(name, cases):
    def run():
        if cases is ROOT and os.geteuid() != 0:
            print(f"SKIP: {name} needs root (mknod, chown to another uid); run the tests as root to check it")
            return SKIP
        w = Writer(name.split("_")[0])
        try:
            for c in cases:
                print(f"-- {c.__name__}")
                c(w)
        finally:
            w.close()
    return run


TESTS = {}
for cmd in ["dump", "convert", "run", "capture", "gather"]:
    TESTS[cmd] = scenario(cmd, COMMON)
    TESTS[cmd + "_root"] = scenario(cmd + "_root", ROOT)

if __name__ == "__main__":
    main(TESTS)
