"""Where `python3 -m recorder -o FILE` writes: the CLI's output rule
(docs/cli.md, "Output files"; docs/security.md), checked on the runner as
tests/cli/test_outputs.py checks it on the CLI's commands.

The runner writes no file itself: `recorder check-output` judges FILE
before the program starts, and `recorder run` or `recorder capture`
writes it.  Each hostile case is tried on a timeline (.json, through
`recorder run`) and on a converted capture (.csv, through `recorder
capture`): a symlink at the output (to a root-only file), a symlink at
every name the runner or the CLI creates on the way, another user's file
and FIFO in a sticky directory, devices, FIFOs with and without a reader,
a capture planted under the private capture's name; and every output is
mode 0600.  Cases that need root (mknod, chown) skip without it.
"""
import ctypes
import ctypes.util
import os
import select
import stat
import struct
import subprocess
import sys

import pytest

from conftest import PY, SANITIZER_MARKS, check_trace, child_env, run, trace_slices, CLI

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from accounts import unused_uid  # noqa: E402 -- tests/accounts.py, shared with tests/cli

SECRET = b"root-only: must never be readable by anyone else\n"
VICTIM = b"precious: must never be overwritten\n"
KINDS = ["json", "csv"]   # through `recorder run`, through `recorder capture`
IS_ROOT = os.geteuid() == 0


def prog(mark):
    """A program that leaves a mark when it starts."""
    return f"""
open({str(mark)!r}, "w").close()
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
fib(6)
"""


def runner(cwd, *opts, code=None, env=None, timeout=180, script_dir=None):
    """python3 -m recorder OPTS prog.py in cwd; the program's mark is
    script_dir/started (script_dir: where prog.py lives, default cwd)."""
    sd = script_dir or cwd
    (sd / "prog.py").write_text(code if code is not None else prog(sd / "started"))
    p = subprocess.Popen([PY, "-m", "recorder", *opts, str(sd / "prog.py")], cwd=cwd, env=child_env(**(env or {})),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:   # a hang is a failure, not a stuck suite
        p.kill()
        p.communicate()
        raise AssertionError(f"python3 -m recorder {' '.join(opts)} did not end within {timeout} s") from None
    for mark in SANITIZER_MARKS:
        assert mark not in err, err
    r = subprocess.CompletedProcess(p.args, p.returncode, out, err)
    r.pid = p.pid
    return r


def started(d):
    """Did the program start (since last asked)?"""
    try:
        os.unlink(d / "started")
        return True
    except FileNotFoundError:
        return False


def sticky_dir(tmp_path, name):
    d = tmp_path / name
    d.mkdir()
    os.chmod(d, 0o1777)
    return d


def secret_file(tmp_path):
    """A file only its owner (root, when the tests run as root) can read."""
    p = tmp_path / "shadow"
    p.write_bytes(SECRET)
    os.chmod(p, 0o600)
    return p


def no_copy_of(d, data):
    """No regular file under d holds data."""
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            st = os.lstat(p)
            if stat.S_ISREG(st.st_mode):
                with open(p, "rb") as fh:
                    assert data not in fh.read(), f"{p} holds a copy"


def assert_output(path, kind):
    """A regular file of mode 0600 with the whole trace in it."""
    st = os.lstat(path)
    assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600, oct(st.st_mode)
    if kind == "json":
        names = [(n, a) for _, n, a in trace_slices(check_trace(path))]
        assert ("fib", {"file": "prog.py", "line": 3}) in names, names
    elif kind == "csv":
        assert any(r.startswith('"fib (prog.py:3)",') for r in open(path).read().splitlines())
    elif kind == "rec":
        assert open(path, "rb").read(8) == b"RCRDCAP1"


# --- the output is mode 0600, and only it is left -----------------------------------
@pytest.mark.parametrize("kind", ["json", "pftrace", "csv", "folded", "rec"])
def test_new_and_replaced_outputs_are_0600(tmp_path, kind):
    out = tmp_path / ("out." + kind)
    r = runner(tmp_path, "-o", out.name)
    assert r.returncode == 0, r.stderr
    assert_output(out, kind)
    assert started(tmp_path)
    assert sorted(os.listdir(tmp_path)) == sorted(["prog.py", out.name]), os.listdir(tmp_path)
    assert ".rec" not in r.stderr.replace("out.rec", ""), r.stderr   # no temporary capture named
    out.write_bytes(VICTIM)
    os.chmod(out, 0o644)
    r = runner(tmp_path, "-o", out.name)
    assert r.returncode == 0, r.stderr
    assert_output(out, kind)


# --- a symlink at the output ----------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("where", ["sticky", "own"])
def test_symlink_at_output_neither_followed_nor_replaced(tmp_path, kind, where):
    """Another user plants FILE as a link to a root-only file: refused
    before the program starts; the link stays, and nothing the other user
    can read ever holds the file's content."""
    target = secret_file(tmp_path)
    d = sticky_dir(tmp_path, "shared") if where == "sticky" else tmp_path / "mine"
    d.mkdir(exist_ok=True)
    out = d / ("out." + kind)
    os.symlink(target, out)
    if where == "sticky" and IS_ROOT:
        os.lchown(out, unused_uid(), unused_uid())   # planted by someone else
    before = sorted(os.listdir(d))
    r = runner(d, "-o", out.name, script_dir=tmp_path)
    assert r.returncode != 0, r.stderr
    assert "symbolic link" in r.stderr and "out." + kind in r.stderr, r.stderr
    assert not started(tmp_path), "the program ran after -o was refused"
    assert os.path.islink(out) and os.readlink(out) == str(target)
    assert target.read_bytes() == SECRET and stat.S_IMODE(os.stat(target).st_mode) == 0o600
    assert sorted(os.listdir(d)) == before, os.listdir(d)
    no_copy_of(d, SECRET)


# --- a symlink at every name created on the way ----------------------------------------
IN_CREATE, IN_MOVED_TO = 0x100, 0x80


class Created:
    """Every name created in a directory (inotify), read after the fact:
    the kernel queues each event as the file appears."""

    def __init__(self, d):
        self.libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        assert self.fd >= 0, os.strerror(ctypes.get_errno())
        wd = self.libc.inotify_add_watch(self.fd, str(d).encode(), IN_CREATE | IN_MOVED_TO)
        assert wd >= 0, os.strerror(ctypes.get_errno())

    def names(self):
        out, buf = [], b""
        while True:
            try:
                buf += os.read(self.fd, 1 << 16)
            except BlockingIOError:
                break
        while buf:
            _, _, _, n = struct.unpack_from("iIII", buf)
            out.append(buf[16:16 + n].rstrip(b"\0").decode())
            buf = buf[16 + n:]
        os.close(self.fd)
        return set(out)


@pytest.mark.parametrize("kind", KINDS)
def test_no_predictable_names_and_planted_links_ignored(tmp_path, kind):
    """Two runs: every name created in the output's directory besides
    FILE differs between them, and none is made of the runner's pid
    (nothing predictable to plant).  Then a
    link to a victim at each of those names, and at the names the runner
    once used (FILE.args.tmp, FILE.<pid>.rec, FILE.tmp): the output is
    written, the victim and the links untouched."""
    d = tmp_path / "out"
    d.mkdir()
    out = "trace." + kind
    seen = []
    for _ in range(2):
        watch = Created(d)
        r = runner(d, "-o", out, script_dir=tmp_path)
        assert r.returncode == 0, r.stderr
        seen.append(watch.names() - {out})
        assert not [n for n in seen[-1] if str(r.pid) in n.split(".")], (r.pid, seen[-1])
        os.unlink(d / out)
    assert not (seen[0] & seen[1]), f"names created by both runs (predictable): {seen[0] & seen[1]}"
    victim = tmp_path / "victim"
    victim.write_bytes(VICTIM)
    old = {out + ".args.tmp", out + ".tmp", "." + out + ".tmp"}
    old |= {f"{out}.{pid}.rec" for pid in range(os.getpid(), os.getpid() + 64)}
    for name in seen[0] | seen[1] | old:
        os.symlink(victim, d / name)
    r = runner(d, "-o", out, script_dir=tmp_path)
    assert r.returncode == 0, r.stderr
    assert victim.read_bytes() == VICTIM
    assert_output(d / out, kind)
    for name in seen[0] | seen[1] | old:
        assert os.path.islink(d / name) and os.readlink(d / name) == str(victim), name


# --- a capture planted under the private capture's name -------------------------------
def test_planted_capture_is_not_converted(tmp_path):
    """recorder capture -o x.csv converts its private capture at the end.
    When the capture never starts (here: RECORDER=0, the program records
    nothing), a file someone put under that name must not become the
    output.  The program itself plants it: it sees the name in the
    directory (as any user of a shared directory can)."""
    made = runner(tmp_path, "-o", "planted.rec",
                  code="def planted_marker():\n    pass\nplanted_marker()\n")
    assert made.returncode == 0, made.stderr
    d = tmp_path / "out"
    d.mkdir()
    plant = f"""
import os, shutil
for n in os.listdir({str(d)!r}):
    if n.startswith(".out.csv.") and n.endswith(".tmp"):
        private = n[1:n.index(".rec.") + 4]   # .out.csv.XXXXXX.rec.RANDOM.tmp
        shutil.copy({str(tmp_path / "planted.rec")!r}, os.path.join({str(d)!r}, private))
        open({str(tmp_path / "planted")!r}, "w").write(private)
"""
    r = runner(d, "-o", "out.csv", code=plant, env={"RECORDER": "0"}, script_dir=tmp_path)
    assert (tmp_path / "planted").exists(), "the private capture's name was found and planted"
    private = (tmp_path / "planted").read_text()
    assert r.returncode != 0, r.stderr
    assert not (d / "out.csv").exists(), (d / "out.csv").read_text()
    assert (d / private).read_bytes() == (tmp_path / "planted.rec").read_bytes(), "the planted file is left alone"


# --- another user's file, devices, FIFOs ------------------------------------------------
@pytest.mark.skipif(not IS_ROOT, reason="needs root (chown to another uid)")
@pytest.mark.parametrize("kind", KINDS)
def test_other_users_file_and_fifo_refused(tmp_path, kind):
    uid = unused_uid()
    d = sticky_dir(tmp_path, "shared")
    out = d / ("out." + kind)
    out.write_bytes(VICTIM)
    os.chmod(out, 0o666)
    os.chown(out, uid, uid)
    r = runner(d, "-o", out.name, script_dir=tmp_path)
    assert r.returncode == 4 and f"uid {uid}" in r.stderr, (r.returncode, r.stderr)
    assert not started(tmp_path)
    assert out.read_bytes() == VICTIM and os.lstat(out).st_uid == uid
    fifo = d / ("pipe." + kind)
    os.mkfifo(fifo, 0o666)
    os.chown(fifo, uid, uid)
    r = runner(d, "-o", fifo.name, script_dir=tmp_path)
    assert r.returncode == 4 and f"uid {uid}" in r.stderr, (r.returncode, r.stderr)
    assert not started(tmp_path)
    assert sorted(os.listdir(d)) == [out.name, fifo.name]


@pytest.mark.parametrize("kind", KINDS)
def test_devices_written_through_never_replaced(tmp_path, kind):
    """A link (ours) to /dev/null is written through and stays; /dev/null
    itself has no extension to say a format: refused before the program
    starts.  As root, a char device made with mknod is written through.
    A capture converted to a device is made in $TMPDIR: nothing is left."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    d = tmp_path / "dev"
    d.mkdir()
    link = d / ("null." + kind)
    os.symlink("/dev/null", link)
    r = runner(d, "-o", link.name, env={"TMPDIR": tmpdir}, script_dir=tmp_path)
    assert r.returncode == 0 and started(tmp_path), r.stderr
    assert os.readlink(link) == "/dev/null" and stat.S_ISCHR(os.stat("/dev/null").st_mode)
    r = runner(d, "-o", "/dev/null", env={"TMPDIR": tmpdir}, script_dir=tmp_path)
    assert r.returncode == 2 and "extension" in r.stderr, r.stderr
    assert not started(tmp_path) and stat.S_ISCHR(os.lstat("/dev/null").st_mode)
    if IS_ROOT:
        dev = d / ("mknod." + kind)
        os.mknod(dev, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
        r = runner(d, "-o", dev.name, env={"TMPDIR": tmpdir}, script_dir=tmp_path)
        assert r.returncode == 0, r.stderr
        st = os.lstat(dev)
        assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)
    assert os.listdir(tmpdir) == [], os.listdir(tmpdir)
    assert sorted(os.listdir(d)) == sorted([link.name] + (["mknod." + kind] if IS_ROOT else []))


@pytest.mark.parametrize("kind", KINDS)
def test_fifo_with_a_reader_gets_the_trace(tmp_path, kind):
    d = tmp_path / "fifo"
    d.mkdir()
    fifo = d / ("pipe." + kind)
    os.mkfifo(fifo)
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    (tmp_path / "prog.py").write_text(prog(tmp_path / "started"))
    p = subprocess.Popen([PY, "-m", "recorder", "-o", fifo.name, str(tmp_path / "prog.py")], cwd=d, env=child_env(),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    data = b""
    waits = 0
    while True:   # until the runner has exited and the pipe is drained
        ready, _, _ = select.select([fd], [], [], 0.1)
        chunk = os.read(fd, 1 << 20) if ready else b""
        data += chunk
        if not chunk and p.poll() is not None:
            break
        waits += not chunk
        if waits > 1800:   # a hang guard (3 minutes of nothing), not a timing check
            p.kill()
            p.wait()
            raise AssertionError("the runner never ended (did it open the FIFO again?)")
    os.close(fd)
    err = p.stderr.read().decode()
    assert p.returncode == 0, err
    out = tmp_path / ("got." + kind)
    out.write_bytes(data)
    os.chmod(out, 0o600)
    assert_output(out, kind)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.listdir(d) == [fifo.name]


def test_fifo_without_a_reader_does_not_block(tmp_path):
    """Nobody reads: the CLI gives up after its bounded wait and says so;
    the runner's status says it failed; the FIFO stays a FIFO."""
    d = tmp_path / "fifo"
    d.mkdir()
    fifo = d / "pipe.json"
    os.mkfifo(fifo)
    r = runner(d, "-o", fifo.name, script_dir=tmp_path, timeout=90)
    assert r.returncode != 0 and "reading" in r.stderr, r.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.listdir(d) == [fifo.name]


# --- formats the CLI's table knows -------------------------------------------------------
@pytest.mark.parametrize("ext", ["pftrace", "perfetto-trace"])
@pytest.mark.parametrize("capture", [False, True])
def test_perfetto_protobuf_decodes(tmp_path, ext, capture):
    """-o x.pftrace: Perfetto's protobuf, through recorder run (or, with
    --capture, a capture), read by the independent decoder."""
    sys.path.insert(0, os.path.join(os.environ["RECORDER_SOURCE_ROOT"], "tests", "perfetto"))
    try:
        import pftrace
    except ImportError as e:
        pytest.skip(f"no protobuf decoder: {e}")
    finally:
        sys.path.pop(0)
    out = tmp_path / ("t." + ext)
    r = runner(tmp_path, *(["--capture"] if capture else []), "-o", out.name)
    assert r.returncode == 0, r.stderr
    assert "Perfetto protobuf" in r.stderr, r.stderr
    st = os.lstat(out)
    assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600
    doc = pftrace.decode(str(out))
    _, _, errors = pftrace.per_thread(doc)
    assert not errors, errors
    names = pftrace.names(doc)
    # The name as the JSON shows it, file and line as args (pyname.c).
    assert names["fib"] == 25 and names["<module>"] == 1, names
    begins = [(e["name"], e["args"]) for e in doc["events"] if e["ph"] == "B"]
    assert begins.count(("fib", {"file": "prog.py", "line": 3})) == 25, begins
    assert ("<module>", {"file": "prog.py", "line": 1}) in begins, begins


def test_refused_name_says_why_before_the_program_runs(tmp_path):
    for name, status, says in [("x.txt", 2, "extension"), ("noext", 2, "extension"), ("-", 2, "extension"),
                               ("missing/x.json", 8, "does not exist"), (".", 2, "extension")]:
        r = runner(tmp_path, "-o", name)
        assert r.returncode == status and says in r.stderr, (name, r.returncode, r.stderr)
        assert r.stderr.startswith("recorder: "), r.stderr   # the CLI's own message
        assert not started(tmp_path), name
    assert sorted(os.listdir(tmp_path)) == ["prog.py"]
    r = run([CLI, "check-output", "a.pftrace"])
    assert r.returncode == 0 and r.stdout == "perfetto\n", r


@pytest.mark.parametrize("kind", ["json", "pftrace", "csv"])
def test_refused_exactly_as_the_cli_refuses(tmp_path, kind):
    """-o through a planted symlink, or a directory: the runner's status
    and message are the CLI's own for the same FILE (`recorder
    check-output` and `recorder run -o FILE -- true`: one rule,
    librecorder/outfile.c), and the program never starts (issue 21, item
    2; FIFOs and devices: the tests above)."""
    target = secret_file(tmp_path)
    d = tmp_path / "out"
    d.mkdir()
    os.symlink(target, d / ("link." + kind))
    os.mkdir(d / ("dir." + kind))
    for name in ("link." + kind, "dir." + kind):
        clis = [run([CLI, "check-output", "--", name], cwd=d, env=child_env(), timeout=90)]
        clis.append(run([CLI, "run", "-o", name, "--", "/bin/true"], cwd=d, env=child_env(), timeout=90))
        r = runner(d, "-o", name, script_dir=tmp_path, timeout=90)
        for cli in clis:
            assert cli.returncode != 0, (name, cli.args, cli.stderr)
            assert (r.returncode, r.stderr.splitlines()[:1]) == (cli.returncode, cli.stderr.splitlines()[:1]), \
                (name, cli.args, r.stderr, cli.stderr)
        assert not started(tmp_path), name
    assert open(target, "rb").read() == SECRET
    assert sorted(os.listdir(d)) == sorted(["link." + kind, "dir." + kind])
