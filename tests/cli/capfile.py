"""capfile.py -- writes capture files record by record (librecorder/capture/
cap_format.h, docs/capture-format.md), check words included, so that the
hostile-file tests (test_capture_bounds.py) can craft what no writer makes:
thousands of declared processes of 65,536 threads in a few bytes, files
that are mostly strings, LOSS records whose counts are near 2^64.
"""
import struct

M64 = (1 << 64) - 1
MAGIC = 0x3150414344524352
SOURCE, STRINGS, THREAD, CHUNK, END, PACKED, PROCESS, LOSS = 1, 2, 3, 4, 5, 6, 7, 8
OF_PROCESS = 0x100
GOLD = 0x9E3779B97F4A7C15


def _sum(padded):
    s1 = s2 = 0
    for (w,) in struct.iter_unpack("<Q", padded):
        s1 = (s1 + w) & M64
        s2 = (s2 + s1) & M64
    return s1 ^ ((s2 * GOLD) & M64)


def _check(rtype, size, seq, total):
    h = (((rtype << 32) | size) * GOLD) & M64
    h ^= (seq * 0xC2B2AE3D27D4EB4F) & M64
    h ^= total
    h = (h * 0xFF51AFD7ED558CCD) & M64
    h ^= h >> 29
    return ((h ^ (h >> 32)) & 0xFFFFFFFF) ^ 0x52435044


class Capture:
    """Records appended in order; bytes() is the whole file."""

    def __init__(self):
        self.parts = [struct.pack("<QII Q 40s", MAGIC, 1, 64, 0, b"capfile.py")]
        self.seq = 0

    def record(self, rtype, payload):
        padded = payload + b"\0" * (-len(payload) % 8)
        check = _check(rtype, len(payload), self.seq, _sum(padded))
        self.parts.append(struct.pack("<IIII", rtype, len(payload), self.seq, check) + padded)
        self.seq += 1
        return self

    @staticmethod
    def source_payload(pid=4242, max_threads=8, name=b"crafted", machine=None):
        """machine: None for a SOURCE of 400 bytes (before machines were
        recorded), or (id, from, hash): the 16-byte machine appended."""
        p = struct.pack("<iIQ64sdQQQIIQQQ256s", pid, 0, 1000 + pid, name, 1e9, 0, 0, 0, max_threads, 1, 1024, 0,
                        0, b"/dev/shm/crafted")
        return p if machine is None else p + struct.pack("<IIQ", *machine)

    def source(self, **kw):
        return self.record(SOURCE, self.source_payload(**kw))

    def process(self, index, pid, max_threads=8):
        return self.record(PROCESS, struct.pack("<II", index, 0) + self.source_payload(pid, max_threads))

    def strings(self, items, tag=0):
        """items: (id, bytes) pairs; names have ids above 2 (REC_ID_OVERFLOW)."""
        return self.record(STRINGS | tag, b"".join(struct.pack("<II", i, len(t)) + t for i, t in items))

    def thread(self, slot, tid, name=b"t", tag=0):
        return self.record(THREAD | tag, struct.pack("<IIIiII QQQQQ 64s", slot, 1, 1, tid, 0, 0, 0, 0, 0, 0, 0, name))

    def chunk(self, slot, entries, first=0, overwritten=0, dropped=0, tag=0):
        """entries: (w0, w1) pairs."""
        body = b"".join(struct.pack("<QQ", w0, w1) for w0, w1 in entries)
        return self.record(CHUNK | tag, struct.pack("<IIQQQ", slot, 1, first, overwritten, dropped) + body)

    def loss(self, slot, bad, tag=0):
        return self.record(LOSS | tag, struct.pack("<IIQ", slot, 1, bad & M64))

    def end(self, entries=0, events=0, tag=0):
        return self.record(END | tag, struct.pack("<IIQQQQQQQd", 1, 0, entries, events, 0, 0, 0, 0, 0, 0.0))

    def bytes(self):
        return b"".join(self.parts)

    def write(self, path):
        with open(path, "wb") as f:
            f.write(self.bytes())
        return path


def entry(etype, ticks, name_id=0):
    """A ring entry as include/recorder.h lays it out: w0 the ticks, w1 the
    type in the top byte and the name id in the low 32 bits."""
    return ticks, (etype << 56) | name_id
