#!/usr/bin/env python3
"""Traces from many machines (docs/scale.md): the machine identity every
protobuf trace carries (TracePacket.machine_id, recorder/machine.h), and
`recorder gather`'s archive, read with Python's tarfile and the project's
own decoder (tests/perfetto/pftrace.py).

usage: test_gather.py RECORDER CLI_PROG WORKDIR TEST
  machines   two runs posing as two machines (RECORDER_MACHINE_ID), one
             of them a capture converted under a third identity: the
             archive names two machines, each trace the one it was
             recorded on; every process of a tree's capture too; without
             the variable, the id is the hash of /etc/machine-id and the
             boot id, computed here independently
  same_pid   one program's segment dumped under two identities, and two
             crafted captures of one pid on two machines: gathered, the
             same pid is two processes with disjoint track uuids
  recorded   a capture's SOURCE carries its machine (or, 400 bytes long,
             none: no machine_id written, gather warns)
  errors     what gather refuses, with one line and nothing written:
             names, extensions, FIFOs, files that are no trace, a packet
             length past the file, --offset mistakes; --offset written
  manifest   crafted traces: an explicit machine_id 0 (the host) is no
             machine of its own, the last of two counts, and the summary
             counts every distinct machine of a big job (not 64 at most)
  fallback   (root: a mount namespace) /etc/machine-id a FIFO and
             /var/lib/dbus/machine-id missing: the host name is used,
             nothing blocks
"""
import json
import os
import socket
import stat
import subprocess
import sys
import tarfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "perfetto"))
import pftrace  # noqa: E402
from capfile import Capture, entry  # noqa: E402
from clitest import (ACCESS, FORMAT, IO, NOTFOUND, OK, PROG, RECORDER, SKIP, USAGE, WORK, check, env_without_keep,  # noqa: E402
                     main, one_line_error, rec, remove_segment, require, run_prog)

M64 = (1 << 64) - 1
PRIME = 0x100000001B3


# --- the identity, as recorder/machine.h documents it -------------------------
def _mix(h, data):
    for b in data:
        h = ((h ^ b) * PRIME) & M64
    for i in range(8):
        h = ((h ^ ((len(data) >> (8 * i)) & 0xFF)) * PRIME) & M64
    return h


def _fold(h):
    h ^= h >> 33
    h = (h * 0xFF51AFD7ED558CCD) & M64
    h ^= h >> 33
    return ((h ^ (h >> 32)) & 0xFFFFFFFF) or 1


def test_id(text):
    return _fold(_mix(_mix(0xCBF29CE484222325, b"test"), text.encode()))


def _first_line(path):
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return b""
        with open(path, "rb") as f:
            data = f.read(256)
    except OSError:
        return b""
    return data.split(b"\n")[0].split(b"\0")[0].rstrip(b" \t\r")


def this_id(machine_id_files=("/etc/machine-id", "/var/lib/dbus/machine-id")):
    a = b""
    for p in machine_id_files:
        a = _first_line(p)
        if a:
            break
    if not a:
        a = socket.gethostname().encode()[:256]
    return _fold(_mix(_mix(0xCBF29CE484222325, a), _first_line("/proc/sys/kernel/random/boot_id")))


def env(machine=None):
    e = env_without_keep()
    e.pop("RECORDER_MACHINE_ID", None)
    if machine is not None:
        e["RECORDER_MACHINE_ID"] = machine
    return e


def w(name):
    return os.path.join(WORK, name)


def ok(args, what, machine=None):
    code, out, err = rec(*args, env=env(machine))
    require(code == OK, f"{what}: exit 0 ({err.strip()[-300:]!r})")
    return err


def members(path):
    with tarfile.open(path) as t:
        return {m.name: m for m in t.getmembers()}


def manifest_of(path):
    with tarfile.open(path) as t:
        return json.loads(t.extractfile("perfetto_manifest.json").read())["perfetto_manifest"]


def machines_of(man, path):
    for f in man["files"]:
        if f["path"] == path:
            return f.get("machines")
    return None


# --- scenarios -------------------------------------------------------------------
def test_machines():
    a, b = test_id("node-a"), test_id("node-b")
    ok(["run", "-o", w("a.pftrace"), "--", PROG, "scopes", "5"], "run as node-a", "node-a")
    ok(["capture", "-o", w("b.rec"), "--", PROG, "scopes", "5"], "capture as node-b", "node-b")
    # gathered (b.rec converted) under a third identity: b.rec keeps node-b's
    err = ok(["gather", "-o", w("job.tar"), w("a.pftrace"), w("b.rec")], "gather as node-c", "node-c")
    check(b"b.rec as b.pftrace" in err and b"2 machines" in err, f"progress and summary said ({err.strip()!r})")
    m = members(w("job.tar"))
    check(sorted(m) == ["a.pftrace", "b.pftrace", "perfetto_manifest.json"], f"members: {sorted(m)}")
    check(all(x.isfile() and x.mode == 0o600 and x.uid == 0 for x in m.values()), "plain files, mode 0600, owner 0")
    arch = pftrace.decode_archive(w("job.tar"))
    got = {n: d["machine"] for n, d in arch["traces"].items()}
    check(got == {"a.pftrace": a, "b.pftrace": b},
          f"every packet of each trace names the machine it was recorded on ({got}, want {a:#x} and {b:#x})")
    man = arch["manifest"]
    check(man["version"] == 1 and machines_of(man, "a.pftrace") == [{"id": a, "name": f"machine-{a:08x}"}]
          and machines_of(man, "b.pftrace") == [{"id": b, "name": f"machine-{b:08x}"}],
          f"the manifest names two machines, by the ids in the packets ({man})")
    procs = arch["processes"]
    check(len({k[0] for k in procs}) == 2 and all(p["events"] > 0 for p in procs.values()),
          f"read back: two machines, each with its process's events ({[(k, v['events']) for k, v in procs.items()]})")
    # a capture of a process tree: every process on the SOURCE's machine
    ok(["capture", "-o", w("t.rec"), "--", "sh", "-c", f'"{PROG}" scopes 3; "{PROG}" scopes 3'], "capture a tree",
       "node-t")
    ok(["convert", w("t.rec"), "--split", "-o", w("t.pftrace")], "convert --split", "node-c")
    split = sorted(f for f in os.listdir(WORK) if f.startswith("t.") and f.endswith(".pftrace"))
    got = [pftrace.decode(w(f))["machine"] for f in split]
    check(len(split) == 2 and got == [test_id("node-t")] * 2,
          f"each process of a tree's capture names its machine ({split}, {got})")
    # no variable: the hash of this machine's files
    ok(["run", "-o", w("c.pftrace"), "--", PROG, "scopes", "5"], "run without RECORDER_MACHINE_ID")
    c = pftrace.decode(w("c.pftrace"))["machine"]
    check(c == this_id(), f"without the variable: hash of machine-id and boot id ({c}, want {this_id()})")


def test_same_pid():
    pid = run_prog("scopes", 5)
    try:
        ok(["dump", pid, "-o", w("a.pftrace")], "dump as node-a", "node-a")
        ok(["dump", pid, "-o", w("b.pftrace")], "dump as node-b", "node-b")
    finally:
        remove_segment(pid)
    # and two captures of one pid, recorded on two machines (crafted SOURCEs)
    for name, mid in (("x.rec", 0x1234ABCD), ("y.rec", 0xBEEF0001)):
        c = Capture().source(pid=777, machine=(mid, 1, mid * 3))
        c.strings([(3, b"work")]).thread(0, 777, b"main")
        c.chunk(0, [entry(1, 1000, 3), entry(2, 2000, 3)])
        c.end().write(w(name))
    ok(["gather", "-o", w("job.tar"), w("a.pftrace"), w("b.pftrace"), w("x.rec"), w("y.rec")], "gather")
    arch = pftrace.decode_archive(w("job.tar"))
    procs = arch["processes"]
    for p, names in ((pid, ("a.pftrace", "b.pftrace")), (777, ("x.pftrace", "y.pftrace"))):
        same = {k: v for k, v in procs.items() if k[1] == p}
        check(len(same) == 2 and {n for v in same.values() for n in v["files"]} == set(names),
              f"pid {p} is two processes, one per machine ({sorted(same)})")
        u = [v["uuids"] for v in same.values()]
        check(len(u) == 2 and not (u[0] & u[1]), "their track uuids are disjoint")
        ev = [v["events"] for v in same.values()]
        check(len(ev) == 2 and ev[0] == ev[1] > 0, f"each has its own events, as many ({ev})")
    got = {n: d["machine"] for n, d in arch["traces"].items()}
    check(got["x.pftrace"] == 0x1234ABCD and got["y.pftrace"] == 0xBEEF0001,
          f"the captures' recorded machines, not the converter's ({got})")


def test_recorded():
    old = Capture().source(pid=900)   # a SOURCE of 400 bytes: no machine
    old.strings([(3, b"work")]).thread(0, 900, b"main").chunk(0, [entry(1, 1000, 3), entry(2, 2000, 3)])
    old.end().write(w("old.rec"))
    zero = Capture().source(pid=901, machine=(0, 1, 55))   # an id of 0: unknown
    zero.strings([(3, b"work")]).thread(0, 901, b"main").end().write(w("zero.rec"))
    for name in ("old", "zero"):
        ok(["convert", w(name + ".rec"), "-o", w(name + ".pftrace")], f"convert {name}.rec", "node-z")
        check(pftrace.decode(w(name + ".pftrace"))["machine"] is None,
              f"{name}.rec: no machine_id on any packet (not the converter's)")
    err = ok(["gather", "-o", w("old.tar"), w("old.rec")], "gather old.rec")
    check(b"names no machine" in err, f"gather warns ({err.strip()!r})")
    check(machines_of(manifest_of(w("old.tar")), "old.pftrace") is None, "the manifest leaves it unnamed")


def refused(args, want, what, words=b""):
    before = sorted(os.listdir(WORK))
    code, _, err = rec(*args, env=env())
    one_line_error(code, err, want, what)
    check(words in err, f"{what}: says {words!r} ({err.strip()!r})")
    check(sorted(os.listdir(WORK)) == before, f"{what}: nothing written")


def test_errors():
    ok(["run", "-o", w("a.pftrace"), "--", PROG, "scopes", "5"], "a trace", "node-a")
    a = w("a.pftrace")
    refused(["gather", a], USAGE, "no -o", b"-o")
    refused(["gather", "-o", w("j.tar")], USAGE, "no traces", b"which traces")
    refused(["gather", "-o", w("j.zip"), a], USAGE, "not .tar", b".tar")
    refused(["gather", "-o", w("j.tar"), w("a.json")], USAGE, "a .json input", b".pftrace")
    refused(["gather", "-o", w("j.tar"), w("missing.pftrace")], NOTFOUND, "a missing input", b"missing.pftrace")
    os.makedirs(w("d"))
    os.link(a, w("d/a.pftrace"))
    refused(["gather", "-o", w("j.tar"), a, w("d/a.pftrace")], USAGE, "two inputs of one name", b"rename one")
    for bad in (".hidden.pftrace", "sp ace.pftrace", "x" * 96 + ".pftrace", "q\"uote.pftrace"):
        os.link(a, w("d/" + bad))
        refused(["gather", "-o", w("j.tar"), w("d/" + bad)], USAGE, f"a name trace processor would not keep: {bad!r}")
    os.mkfifo(w("fifo.pftrace"))
    refused(["gather", "-o", w("j.tar"), w("fifo.pftrace")], IO, "a FIFO input (no hang)", b"not a regular file")
    with open(w("junk.pftrace"), "wb") as f:
        f.write(b"\x0a\xff\xff\xff\xff\x0f" + b"x" * 100)   # a packet of 4 GiB in 106 bytes
    refused(["gather", "-o", w("j.tar"), w("junk.pftrace")], FORMAT, "a packet longer than the file", b"not a Perfetto")
    with open(w("text.pftrace"), "wb") as f:
        f.write(b"hello, not a trace\n")
    refused(["gather", "-o", w("j.tar"), w("text.pftrace")], FORMAT, "text", b"not a Perfetto")
    with open(w("cut.pftrace"), "wb") as f:
        f.write(open(a, "rb").read()[:-3])
    refused(["gather", "-o", w("j.tar"), w("cut.pftrace")], FORMAT, "a trace cut short", b"not a Perfetto")
    # bytes changed at random (seeded): a trace or a refusal, never a crash
    import random
    rnd, data, bad = random.Random(22), open(a, "rb").read(), []
    for i in range(40):
        m = bytearray(data)
        for _ in range(rnd.randint(1, 8)):
            m[rnd.randrange(len(m))] = rnd.randrange(256)
        if i % 4 == 0:
            m = m[:rnd.randrange(len(m))]
        with open(w("m.pftrace"), "wb") as f:
            f.write(bytes(m))
        code, _, err = rec("gather", "-o", w("m.tar"), w("m.pftrace"), env=env())
        if code not in (OK, FORMAT):
            bad.append((i, code, err.strip()[-200:]))
    check(not bad, f"40 mangled traces: each gathered or refused as no trace, none crashed ({bad[:3]})")
    for x in ("m.pftrace", "m.tar"):
        if os.path.exists(w(x)):
            os.unlink(w(x))
    # -o is judged by the output rule before any capture is converted
    ok(["capture", "-o", w("c.rec"), "--", PROG, "scopes", "5"], "a capture", "node-a")
    os.symlink(w("elsewhere.tar"), w("planted.tar"))
    code, _, err = rec("gather", "-o", w("planted.tar"), a, w("c.rec"), env=env())
    one_line_error(code, err, ACCESS, "a planted link as -o")
    check(b"recorder-gather." not in err and not os.path.exists(w("elsewhere.tar")),
          f"a planted link as -o: refused before c.rec was converted, nothing written ({err.strip()!r})")
    os.unlink(w("planted.tar"))
    refused(["gather", "-o", w("j.tar"), "--offset", "a.pftrace=5", a], USAGE, "--offset of the reference",
            b"reference")
    ok(["run", "-o", w("b.pftrace"), "--", PROG, "scopes", "5"], "a second trace", "node-b")
    refused(["gather", "-o", w("j.tar"), "--offset", "zz.pftrace=5", a, w("b.pftrace")], USAGE,
            "--offset of no trace", b"none of")
    refused(["gather", "-o", w("j.tar"), "--offset", "b.pftrace=1e3", a, w("b.pftrace")], USAGE,
            "--offset not an integer", b"nanoseconds")
    ok(["gather", "-o", w("j.tar"), "--offset", "b.pftrace=-2500000", a, w("b.pftrace")], "gather --offset")
    a_id, b_id = test_id("node-a"), test_id("node-b")
    f = [x for x in manifest_of(w("j.tar"))["files"] if x["path"] == "b.pftrace"][0]
    check(f.get("clocks") == {"clock": "REALTIME", "machine": f"machine-{b_id:08x}",
                              "sync_to": {"file": "a.pftrace", "clock": "REALTIME", "machine": f"machine-{a_id:08x}"},
                              "offset_ns": -2500000},
          f"--offset relates b's wall clock to a's, by machine ({f})")


def _varint(x):
    out = b""
    while True:
        b, x = x & 0x7F, x >> 7
        if not x:
            return out + bytes([b])
        out += bytes([b | 0x80])


def crafted_trace(path, *ids):
    """One packet per entry: None, no machine_id; a list, each written."""
    data = b""
    for k, mid in enumerate(ids):
        body = b"\x40" + _varint(k + 1)   # timestamp
        for v in (mid or []):
            body += _varint(98 << 3) + _varint(v)
        data += b"\x0a" + _varint(len(body)) + body
    with open(path, "wb") as f:
        f.write(data)


def test_manifest():
    crafted_trace(w("z.pftrace"), [0], None, [5], [7, 0])
    err = ok(["gather", "-o", w("z.tar"), w("z.pftrace")], "gather explicit ids of 0")
    ids = [m["id"] for m in machines_of(manifest_of(w("z.tar")), "z.pftrace")]
    check(ids == [5, 0], f"machine 5 and the host once: an explicit 0 and a 0 given last are untagged ({ids})")
    check(b"from 1 machines" in err, f"one machine counted ({err.strip()[-200:]!r})")
    files = []
    for k in range(70):
        files.append(w(f"n{k}.pftrace"))
        crafted_trace(files[-1], [0x1000 + k])
    err = ok(["gather", "-o", w("big.tar")] + files, "gather 70 machines")
    check(b"70 traces from 70 machines" in err, f"every machine counted ({err.strip()[-200:]!r})")
    man = manifest_of(w("big.tar"))
    names = {m["name"] for f in man["files"] for m in f["machines"]}
    check(len(names) == 70 and len(members(w("big.tar"))) == 71, f"70 machines named, 71 members ({len(names)})")


def test_messages():
    """What gather says names what the user gave and what the archive
    holds, never its temporary files (removed once the archive is
    written), and a path of control characters reaches the terminal
    escaped (util.c's rule for every message)."""
    d = w("d\x1b[31m\x07")
    os.mkdir(d)
    ok(["capture", "-o", os.path.join(d, "a.rec"), "--", PROG, "scopes", "5"], "capture")
    err = ok(["gather", "-o", w("job.tar"), os.path.join(d, "a.rec")], "gather")
    check(b"\x1b" not in err and b"\x07" not in err, f"no control character reaches stderr ({err!r})")
    check(b"converted " in err and b"\\x1b[31m\\x07/a.rec to a.pftrace (Perfetto protobuf)" in err,
          f"the conversion's summary names the input, escaped, and its member ({err!r})")
    check(b"recorder-gather." not in err and err.count(b"wrote ") == 1 and b"wrote " + w("job.tar").encode() in err,
          f"no temporary file is named: what was written is the archive ({err!r})")
    check(set(members(w("job.tar"))) == {"a.pftrace", "perfetto_manifest.json"}, "the archive holds the trace")


def test_fallback():
    if os.geteuid() != 0:
        print("SKIP: needs root (a mount namespace to hide /etc/machine-id)")
        return SKIP
    fifo = w("machine-id.fifo")
    os.mkfifo(fifo)
    empty = w("empty")
    open(empty, "w").close()
    script = ('mount --make-rprivate / && mount --bind "$1" /etc/machine-id && '
              '{ [ ! -e /var/lib/dbus/machine-id ] || mount --bind "$2" /var/lib/dbus/machine-id; } && '
              'exec "$3" run -o "$4" -- "$5" scopes 5')
    try:
        p = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", fifo, empty, RECORDER, w("f.pftrace"), PROG],
                           env=env(), capture_output=True, timeout=60, cwd=WORK)
    except subprocess.TimeoutExpired:
        check(False, "a FIFO as /etc/machine-id blocked recorder")
        return None
    if p.returncode != OK and (b"unshare" in p.stderr or b"mount" in p.stderr):
        print(f"SKIP: no mount namespace here ({p.stderr.strip()[-200:]!r})")
        return SKIP
    require(p.returncode == OK, f"run with /etc/machine-id a FIFO: exit 0 ({p.stderr.strip()[-300:]!r})")
    got = pftrace.decode(w("f.pftrace"))["machine"]
    want = this_id(machine_id_files=())
    check(got == want, f"the host name and the boot id stand in ({got}, want {want})")


if __name__ == "__main__":
    main({"machines": test_machines, "same_pid": test_same_pid, "recorded": test_recorded, "errors": test_errors,
          "manifest": test_manifest, "fallback": test_fallback, "messages": test_messages})
