#!/usr/bin/python3
"""test_cupti_replay_inputs.py -- cupti_replay refuses bad inputs clearly.

    test_cupti_replay_inputs.py CUPTI_REPLAY FIXTURES_DIR WORK_DIR

Missing, truncated, garbage, oversized-frame, FIFO and directory inputs,
and records.jsonl lines that do not parse, each give exit 1 and one line
on stderr naming the problem (never a signal, never a hang: a FIFO with no
writer must not block).  A malformed record inside a well-formed frame is
counted and gives exit 3.  Usage errors give 2, --help 0.
"""
import os
import shutil
import struct
import subprocess
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def run(replay, args, work):
    out = os.path.join(work, "out.json")
    p = subprocess.run([replay] + args + ["-o", out], capture_output=True, text=True, timeout=60)
    return p


def expect(replay, work, name, args, rc, words):
    p = run(replay, args, work)
    ok = check(p.returncode == rc, "%s: exit %d, wanted %d (stderr %r)" % (name, p.returncode, rc, p.stderr))
    if ok and rc != 0 and words:
        low = p.stderr.lower()
        check(any(w in low for w in words), "%s: stderr %r names none of %r" % (name, p.stderr, words))
    return p


def main():
    replay, fixtures, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    bins = os.path.join(fixtures, "cu_buffers.bin")
    recs = os.path.join(fixtures, "cu_records.jsonl")
    data = open(bins, "rb").read()
    lines = open(recs).read().splitlines(True)

    def put(name, b):
        p = os.path.join(work, name)
        with open(p, "wb" if isinstance(b, bytes) else "w") as f:
            f.write(b)
        return p

    # Usage and help.
    p = subprocess.run([replay, "--help"], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0 and "usage" in p.stdout, "--help: %d %r" % (p.returncode, p.stdout[:80]))
    p = subprocess.run([replay], capture_output=True, text=True, timeout=60)
    check(p.returncode == 2 and "usage" in p.stderr, "no arguments: %d" % p.returncode)
    p = subprocess.run([replay, "--bogus", bins, recs], capture_output=True, text=True, timeout=60)
    check(p.returncode == 2, "unknown option: %d" % p.returncode)

    # The well-formed inputs work (the tests below fail for their reason).
    expect(replay, work, "fixture", [bins, recs], 0, [])

    expect(replay, work, "missing bin", [os.path.join(work, "nope.bin"), recs], 1, ["no such file"])
    expect(replay, work, "missing jsonl", [bins, os.path.join(work, "nope.jsonl")], 1, ["no such file"])
    expect(replay, work, "empty bin", [put("empty.bin", b""), recs], 1, ["not a cupti buffers file"])
    expect(replay, work, "garbage bin", [put("garbage.bin", bytes(range(256)) * 40), recs], 1,
           ["not a cupti buffers file"])
    # Cut inside the first frame's payload, and inside a frame header.
    expect(replay, work, "truncated frame", [put("cut.bin", data[:64 + 48 + 100]), recs], 1, ["the file holds"])
    expect(replay, work, "truncated header", [put("cut2.bin", data[:64 + 20]), recs], 1, ["cut by the file"])
    # A frame claiming more bytes than the file holds (2^63).
    big = bytearray(data)
    struct.pack_into("<Q", big, 64 + 8, 1 << 63)
    expect(replay, work, "huge frame", [put("huge.bin", bytes(big)), recs], 1, ["the file holds"])
    # A header size past the file's end.
    hs = bytearray(data)
    struct.pack_into("<I", hs, 12, 0xFFFFFFF0)
    expect(replay, work, "header size", [put("hs.bin", bytes(hs)), recs], 1, ["header size"])
    # Bad frame magic.
    fm = bytearray(data)
    fm[64:68] = b"XXXX"
    expect(replay, work, "frame magic", [put("fm.bin", bytes(fm)), recs], 1, ["frame magic"])

    # FIFO and directory: refused without blocking.
    fifo = os.path.join(work, "fifo")
    os.mkfifo(fifo)
    expect(replay, work, "fifo bin", [fifo, recs], 1, ["not a regular file"])
    expect(replay, work, "fifo jsonl", [bins, fifo], 1, ["not a regular file"])
    expect(replay, work, "directory", [work, recs], 1, ["not a regular file"])

    # records.jsonl: a line that does not parse is named by its number.
    bad = list(lines)
    bad[7] = '{"type":"record","buf":0,"off":12,"name":"unterminated}\n'
    expect(replay, work, "bad json line", [bins, put("bad.jsonl", "".join(bad))], 1, [":8:"])
    bad = list(lines)
    bad[3] = '{"type":"clock"} trailing\n'
    expect(replay, work, "trailing garbage", [bins, put("bad2.jsonl", "".join(bad))], 1, [":4:"])
    deep = "[" * 100 + "]" * 100
    bad = list(lines)
    bad[2] = '{"type":"x","deep":%s}\n' % deep
    expect(replay, work, "deep nesting", [bins, put("deep.jsonl", "".join(bad))], 1, [":3:"])
    long_line = '{"type":"x","pad":"%s"}\n' % ("a" * (1 << 21))
    expect(replay, work, "long line", [bins, put("long.jsonl", long_line + "".join(lines))], 1, ["longer than"])
    noclock = [l for l in lines if '"type":"clock"' not in l]
    expect(replay, work, "no clock pairs", [bins, put("noclock.jsonl", "".join(noclock))], 1, ["no clock pairs"])
    expect(replay, work, "binary jsonl", [bins, put("bin.jsonl", bytes(range(256)))], 1, [":1:"])

    # Another CUPTI API version: converted, with a warning naming both.
    av = bytearray(data)
    struct.pack_into("<I", av, 20, 120000)
    p = expect(replay, work, "api version", [put("av.bin", bytes(av)), recs], 0, [])
    check("120000" in p.stderr and "warning" in p.stderr, "api version: stderr %r" % p.stderr)

    # A malformed record inside a well-formed frame: counted, exit 3.
    mal = bytearray(data)
    struct.pack_into("<I", mal, 64 + 48 + 184, 999)   # the second record's kind
    p = expect(replay, work, "unknown kind", [put("mal.bin", bytes(mal)), recs], 3, [])
    check("malformed 1," in p.stdout, "unknown kind: summary %r" % p.stdout)

    for f in failures:
        print("FAIL:", f)
    if failures:
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
