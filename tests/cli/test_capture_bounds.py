#!/usr/bin/env python3
"""test_capture_bounds.py -- hostile capture files, crafted with capfile.py
(docs/capture-format.md, "Loss" and "Memory"; docs/security.md).

  loss    LOSS records of 2^63, 2^63 and 2^64-1 bad heads, chunks whose
          overwritten/dropped counts are near 2^64, in a file of one
          process and in one of two: report, dump, convert (--split), ls
          and both opens (cap_probe lazy|full) count each impossible
          record as one bad value and warn; no figure wraps, none is past
          100%, and sums that pass 2^64 stick at 2^64-1.
  memory  a 2.4 MB file that declares 4,095 processes of 65,536 threads,
          and a file that is mostly string records, read by convert
          --split, dump, report and the viewers' lazy open under an
          address-space limit of 32 MiB plus 2 bytes per byte of the file.
          Plain builds only (suite core): a sanitizer's shadow memory is
          not the program's, so the test skips there.

    test_capture_bounds.py RECORDER CAP_PROBE WORKDIR TEST SANITIZE
"""
import os
import re
import resource
import subprocess
import sys

from capfile import Capture, entry
from clitest import OK, SKIP, WORK, PROG, RECORDER, check, main, require

PROBE = PROG
SANITIZE = sys.argv[5] if len(sys.argv) > 5 else "none"
M64 = (1 << 64) - 1


def run(args, limit=None):
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    p = subprocess.run(args, capture_output=True, timeout=240, preexec_fn=cap if limit else None)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def scope_chunk(c, t, tag=0, **kw):
    c.chunk(0, [entry(1, t, 3), entry(2, t + 1000, 3)], tag=tag, **kw)


def hostile_loss(path, processes=1):
    c = Capture().source(max_threads=8)
    for k in range(processes):
        tag = 0x100 if k else 0
        if k:
            c.process(k, 5000 + k)
        c.strings([(3, b"work")], tag=tag)
        c.thread(0, 4242 + k, b"main", tag=tag)
        scope_chunk(c, 1000, tag=tag)
        c.loss(0, 1 << 63, tag=tag).loss(0, 1 << 63, tag=tag).loss(0, M64, tag=tag)
        scope_chunk(c, 5000, tag=tag, first=2, overwritten=M64, dropped=1 << 63)
        if k:
            c.end(tag=tag)
    return c.end().write(path)


def no_wrapped(text, what):
    big = [int(n) for n in re.findall(r"\d{11,}", text)]
    check(not big, f"{what}: no count near 2^64 ({big[:3]})")
    pct = [float(p) for p in re.findall(r"([\d.]+)%", text)]
    check(all(p <= 100.0 for p in pct), f"{what}: no share past 100% ({pct})")


def test_loss():
    one, two = hostile_loss(os.path.join(WORK, "loss.rec")), hostile_loss(os.path.join(WORK, "loss2.rec"), 2)
    for path in (one, two):
        name = os.path.basename(path)
        lines = {}
        for how in ("full", "lazy", "handles"):
            code, out, err = run([PROBE, path, how])
            require(code == 0, f"cap_probe {name} {how} ({code}, {err!r})")
            lines[how] = out
            for m in re.finditer(r"entries (\d+) overwritten (\d+) dropped (\d+) bad (\d+)", out):
                check(m.group(2, 3, 4) == ("0", "0", "4"),
                      f"{name} {how}: 3 LOSS records and a chunk of impossible counts are 4 bad values ({m.group(0)})")
            check("4 records with impossible loss counts" in out or "8 records with impossible loss counts" in out,
                  f"{name} {how}: the warning says so ({out.splitlines()[-1]!r})")
        check(lines["full"] == lines["lazy"], f"{name}: the lazy open counts as the full one")
        check(lines["full"] == lines["handles"], f"{name}: a handle of each process reads as selecting it")
        code, out, err = run([RECORDER, "report", path])
        require(code == OK, f"report {name} ({code}, {err!r})")
        no_wrapped(out + err, f"report {name}")
        check("lost 4 entries (0 overwritten, 0 dropped, 4 bad)" in out, f"report {name}: lost 4 entries, 4 bad")
        check("impossible loss counts" in err, f"report {name} warns")
        for args in (["dump", path, "-o", os.path.join(WORK, "d.json")],
                     ["convert", path, "-o", os.path.join(WORK, "c.csv")],
                     ["convert", "--split", path, "-o", os.path.join(WORK, "s.json")]):
            code, out, err = run([RECORDER] + args)
            require(code == OK, f"{' '.join(args[:2])} {name} ({code}, {err!r})")
            no_wrapped(out + err, f"{args[0]} {name}")
    code, out, err = run([RECORDER, "ls", "--dir", WORK])
    check(code == OK, f"ls --dir beside the files ({code}, {err!r})")
    no_wrapped(out + err, "ls")
    # Counts that may each be real but whose sum passes 2^64 stick at the top.
    c = Capture().source(max_threads=8).strings([(3, b"work")]).thread(0, 4242)
    for i in range(20):
        scope_chunk(c, 1000 + 2000 * i, first=2 * i, overwritten=1 << 60)
    path = c.end().write(os.path.join(WORK, "sum.rec"))
    for how in ("full", "lazy"):
        code, out, err = run([PROBE, path, how])
        check(code == 0 and f"overwritten {M64} " in out, f"{how}: 20 x 2^60 overwritten saturates ({out!r})")
    code, out, err = run([RECORDER, "report", path])
    m = re.search(r"([\d.]+)% of its events decoded", out)
    check(code == OK and m and float(m.group(1)) <= 100, f"report of saturated sums: at most 100% ({m and m.group(0)})")


def many_processes(path):
    """4,095 processes of 65,536 threads, each naming its last thread."""
    c = Capture().source(max_threads=65536)
    for k in range(1, 4095):
        c.process(k, 5000 + k, max_threads=65536)
        c.thread(65535, 5000 + k, b"t", tag=0x100)
        c.loss(65535, 1, tag=0x100)
    return c.end().write(path)


def mostly_strings(path, mb=16):
    """One-byte strings: an item is 9 bytes, the worst case for an index."""
    c = Capture().source(max_threads=8).thread(0, 4242)
    i = 3
    while i < (mb << 20) // 9:
        c.strings([(j, b"abcdefghijklmnop"[j & 15:][:1]) for j in range(i, i + 6000)])
        i += 6000
    scope_chunk(c, 1000)
    return c.end().write(path)


def test_memory():
    if SANITIZE != "none":
        print(f"skipped: built with -Db_sanitize={SANITIZE} (its shadow memory is not the program's); "
              "the plain build runs this test")
        return SKIP
    for path in (many_processes(os.path.join(WORK, "procs.rec")), mostly_strings(os.path.join(WORK, "strings.rec"))):
        size = os.path.getsize(path)
        limit = (32 << 20) + 2 * size
        name = os.path.basename(path)
        for args in (["convert", "--split", path, "-o", os.path.join(WORK, "s.json")],
                     ["dump", path, "-o", os.path.join(WORK, "d.json")],
                     ["report", path]):
            code, out, err = run([RECORDER] + args, limit)
            check(code == OK, f"{args[0]} {' '.join(args[1:2])} {name} ({size} bytes) within {limit >> 20} MiB "
                  f"of address space ({code}, {err[-200:]!r})")
        for how in ("lazy", "full"):
            code, out, err = run([PROBE, path, how], limit)
            check(code == 0, f"{how} open and read of {name} within {limit >> 20} MiB ({code}, {err[-200:]!r})")


if __name__ == "__main__":
    main({"loss": test_loss, "memory": test_memory})
