#!/usr/bin/env python3
"""test_exports.py RECORDER FMT_PROG WORKDIR TEST [TREE_PROG] -- what the
export commands write is what its name says, whole and the same each time:

  csv_formula      scope names a spreadsheet would run (= + - @, tab, CR)
                   come out of the CSV as text: a leading ' (Python's csv
                   module reads every cell back)
  formats_dump, formats_convert, formats_run, formats_capture
                   every command x every extension (.json, .pftrace,
                   .perfetto-trace, .csv, .folded, .rec, .tar, an unknown one):
                   the file is that format (parsed: JSON, the protobuf
                   decoder, csv, folded lines, a capture's magic), or the
                   command refuses (status 2, nothing written, no program
                   started); --format that contradicts the name is refused
  deep             a recursion 1000 deep: every level in JSON and
                   .pftrace, nothing "left out"; 65536 + 5 levels: 65536
                   written, the 5 past them counted in the summary
  report_tree      report on a capture of a process tree: every process
  dump_stable      two dumps of a finished program, far from its clock's
                   calibration point: the same bytes, in every format; and
                   of a stopped one (SIGSTOP) with a scope open
"""
import csv
import io
import json
import os
import re
import signal
import subprocess
import time
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "perfetto"))
sys.path.insert(0, os.path.join(HERE, "..", "analysis"))
from clitest import OK, USAGE, WORK, PROG, TIMEOUT, check, require, rec, env_without_keep, remove_segment, main  # noqa
import check_trace  # noqa: E402
import pftrace  # noqa: E402

CAP_MAGIC = b"RCRDCAP1"
TREE_PROG = os.path.abspath(sys.argv[5]) if len(sys.argv) > 5 else None


def prog(*args, env=None):
    """fmt_prog to its end, its segment kept: its pid."""
    p = subprocess.run([PROG, *map(str, args)], env=env_without_keep({"RECORDER_KEEP": "1", **(env or {})}),
                       cwd=WORK, timeout=TIMEOUT, capture_output=True)
    m = re.search(rb"pid (\d+)", p.stdout)
    require(p.returncode == 0 and m is not None, f"fmt_prog {args} ran ({p.stderr[-300:]!r})")
    return int(m.group(1))


def wait_for(cond, limit=TIMEOUT):
    """Until cond() holds (polled), or limit seconds: whether it did."""
    end = time.monotonic() + limit
    while not cond():
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def path(name):
    return os.path.join(WORK, name)


def read(name):
    with open(path(name), "rb") as f:
        return f.read()


# --- what a file is ------------------------------------------------------------
def is_json(data):
    try:
        doc = json.loads(data)
        return isinstance(doc.get("traceEvents"), list) and len(doc["traceEvents"]) > 0
    except (ValueError, AttributeError):
        return False


def is_pftrace(name):
    try:
        return len(pftrace.decode(path(name))["events"]) > 0
    except Exception as e:   # noqa: BLE001 -- any failure to decode says "not a protobuf trace"
        print(f"  ({name}: {e})")
        return False


def is_csv(data):
    try:
        rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
    except (UnicodeDecodeError, csv.Error):
        return False
    return len(rows) >= 2 and rows[0][:2] == ["name", "calls"] and all(len(r) == 13 for r in rows)   # ... file, line


def is_folded(data):
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return False
    return len(lines) > 0 and all(re.fullmatch(r"[^ ].* \d+", ln) for ln in lines)


def is_format(name, ext):
    data = read(name)
    if ext == "json":
        return is_json(data)
    if ext in ("pftrace", "perfetto-trace"):
        return not data.lstrip().startswith(b"{") and is_pftrace(name)
    if ext == "csv":
        return is_csv(data)
    if ext == "folded":
        return is_folded(data)
    if ext == "rec":
        return data.startswith(CAP_MAGIC)
    return False


# --- csv_formula ---------------------------------------------------------------
def test_csv_formula():
    pid = prog("formula")
    for how in (["dump", pid, "-o", "f.csv"], ["dump", pid, "--format", "csv", "-o", "f.csv"]):
        code, _, err = rec(*how)
        require(code == OK, f"{' '.join(map(str, how))} ({err.strip()[-200:]!r})")
        rows = list(csv.reader(io.StringIO(read("f.csv").decode("utf-8"))))
        names = [r[0] for r in rows[1:]]
        check(all(not n or n[0] not in "=+-@\t\r" for r in rows for n in r),
              f"no cell begins with = + - @ tab or CR: {names}")
        want = {"'=HYPERLINK(\"http://x\",\"click\")", "'+1+cmd|' /C calc'!A0", "'-2+3", "'@SUM(A1:A9)", "?x",
                "?cr", "plain"}
        check(set(names) == want, f"the formula names are text, quoted with ': {sorted(names)}")
        check(all(r[1] == "2" for r in rows[1:]), "each name's 2 calls are counted")
    # convert: the same writer
    code, _, err = rec("capture", "-o", "f.rec", "--", PROG, "formula")
    require(code == OK, f"captured fmt_prog formula ({err.strip()[-200:]!r})")
    code, _, _ = rec("convert", "f.rec", "-o", "g.csv")
    rows = list(csv.reader(io.StringIO(read("g.csv").decode("utf-8"))))
    check(code == OK and "'-2+3" in [r[0] for r in rows], "convert -o X.csv quotes formulas too")
    remove_segment(pid)


# --- formats --------------------------------------------------------------------
EXTS = ["json", "pftrace", "perfetto-trace", "csv", "folded", "rec", "tar", "txt"]
FMT_OF = {"json": "json", "pftrace": "perfetto", "perfetto-trace": "perfetto", "csv": "csv", "folded": "folded"}


def formats(cmd):
    marker = path("started")
    shell = ["sh", "-c", 'touch "$0"; exec "$1" formula', marker, PROG]
    src = None
    if cmd == "dump":
        src = str(prog("formula"))
    elif cmd == "convert":
        src = "src.rec"
        code, _, err = rec("capture", "-o", src, "--", PROG, "formula")
        require(code == OK, f"made a capture to convert ({err.strip()[-200:]!r})")

    def args(out, fmt=None):
        extra = ["--format", fmt] if fmt else []
        return {"dump": ["dump", src, "-o", out, *extra], "convert": ["convert", src, "-o", out, *extra],
                "run": ["run", "-o", out, *extra, "--", *shell], "capture": ["capture", "-o", out, "--", *shell]}[cmd]

    for ext in EXTS:
        out = f"out-{cmd}.{ext}"
        if os.path.exists(marker):
            os.unlink(marker)
        code, _, err = rec(*args(out))
        wants = ext in FMT_OF or (ext == "rec" and cmd == "capture")
        if wants:
            check(code == OK and os.path.exists(path(out)) and is_format(out, ext),
                  f"{cmd} -o {out}: exit {code}, the file is {ext} ({err.strip()[-300:]!r})")
        else:
            lines = [ln for ln in err.decode(errors="replace").splitlines() if ln.strip()]
            check(code == USAGE and len(lines) == 1 and not os.path.exists(path(out)),
                  f"{cmd} -o {out} is refused in one line, nothing written ({code}, {err.strip()[-300:]!r})")
            check(not os.path.exists(marker), f"{cmd} -o {out}: the program was not started")
            if ext == "txt":
                check(b"cannot tell the format from the name" in err, f"{cmd}: one wording for an unknown name")
            if ext == "tar":   # the one table knows gather's archive too
                check(b"which `recorder gather` writes" in err, f"{cmd}: .tar is gather's ({err.strip()!r})")
    if cmd != "capture":
        # --format that contradicts the name: refused; that agrees, or with no extension: written
        code, _, err = rec(*args("clash.csv", "json"))
        check(code == USAGE and not os.path.exists(path("clash.csv")), f"{cmd} -o X.csv --format json is refused")
        code, _, err = rec(*args("noext", "folded"))
        check(code == OK and is_format("noext", "folded"), f"{cmd} --format folded -o NAME-WITHOUT-EXTENSION")
    if cmd == "dump":
        remove_segment(int(src))


# --- deep -----------------------------------------------------------------------
def test_deep():
    pid = prog("deep", 1000)
    for ext in ("json", "pftrace"):
        code, _, err = rec("dump", pid, "-o", f"deep.{ext}")
        require(code == OK, f"dump -o deep.{ext} ({err.strip()[-200:]!r})")
        check(b"left out" not in err and b"nested past" not in err, f"nothing left out ({err.strip()[-300:]!r})")
        if ext == "json":
            p = check_trace.Problems()
            s = check_trace.check(path("deep.json"), p)
            check(p.count == 0 and s and s["slice_names"].get("r") == 3000 and s["max_depth"] == 1000,
                  f"JSON: 3 recursions of 1000 levels, all there ({p.items[:3]}, "
                  f"{s and s['slice_names']}, depth {s and s['max_depth']})")
        else:
            pf = pftrace.decode(path("deep.pftrace"))
            n = sum(1 for e in pf["events"] if e["ph"] == "B" and e["name"] == "r")
            check(n == 3000, f"pftrace: all 3000 levels ({n})")
    remove_segment(pid)
    # Past REC_MAX_NESTING (65536): left out, and said.
    pid = prog("begins", 65536 + 5, env={"RECORDER_RING_KB": "4096"})
    code, _, err = rec("dump", pid, "-o", "deeper.json")
    check(code == OK and b"left out:" in err and b"5 scopes nested past 65536 levels" in err,
          f"5 scopes past 65536 levels are counted in the summary ({err.strip()[-300:]!r})")
    doc = json.load(open(path("deeper.json")))
    n = sum(1 for e in doc["traceEvents"] if e["ph"] == "B" and e["name"] == "b")
    th = doc["otherData"]["recorder"]["threads"]
    check(n == 65536 and sum(t["too_deep"] for t in th) == 5, f"65536 levels written, 5 counted ({n}, {th})")
    remove_segment(pid)


# --- report_tree ----------------------------------------------------------------
def test_report_tree():
    require(TREE_PROG is not None, "tree_prog given")
    code, out, err = rec("capture", "-o", "tree.rec", "--", TREE_PROG, "workers", "20")
    require(code == OK, f"captured a process tree ({err.strip()[-300:]!r})")
    pids = {k.decode(): int(v) for k, v in re.findall(rb"(parent|worker\d|grandchild) (\d+)", out)}
    code, rep_out, err = rec("report", "tree.rec")
    text = rep_out.decode(errors="replace")
    check(code == OK, f"report of the tree ({err.strip()[-200:]!r})")
    check(re.search(r"holds 5 processes", text) is not None, "report says the capture holds 5 processes")
    for who, pid in pids.items():
        check(re.search(rf"recorder report: pid {pid} \(", text) is not None, f"{who} (pid {pid}) is reported")
    for scope in ("parent_after", "worker1", "worker2", "worker3", "grandchild"):
        check(re.search(rf"^\s+\S+%\s+\S+\s+20\s.*\b{scope}$", text, re.M) is not None,
              f"{scope}: its 20 calls are in the report")
    code, rep_out, _ = rec("report", "tree.rec", "--thread", pids.get("worker2", 0))
    text = rep_out.decode(errors="replace")
    check(code == OK and "worker2" in text and "worker1 " not in text, "--thread picks one of any process")


# --- dump_stable ----------------------------------------------------------------
def test_dump_stable():
    pid = prog("stable")
    for ext in ("json", "pftrace", "csv", "folded"):
        for k in (1, 2):
            code, _, err = rec("dump", pid, "-o", f"s{k}.{ext}")
            require(code == OK, f"dump {k} -o .{ext} ({err.strip()[-200:]!r})")
        a, b = read(f"s1.{ext}"), read(f"s2.{ext}")
        check(a == b, f"two dumps of a finished program are the same bytes ({ext}, {len(a)} and {len(b)})")
    remove_segment(pid)
    # Stopped, with "held" open: it records nothing until it goes on, so
    # its open scope ends at its newest event, in every dump.
    p = subprocess.Popen([PROG, "held"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=WORK,
                         env=env_without_keep())
    try:
        m = re.match(rb"pid (\d+)", p.stdout.readline())
        require(m is not None, "fmt_prog held says its pid")
        os.kill(p.pid, signal.SIGSTOP)
        stopped = lambda: open(f"/proc/{p.pid}/stat").read().rsplit(")", 1)[1].split()[0] in ("T", "t")
        require(wait_for(stopped), "fmt_prog held is stopped")
        for ext in ("json", "pftrace", "csv", "folded"):
            for k in (1, 2):
                code, _, err = rec("dump", p.pid, "-o", f"h{k}.{ext}")
                require(code == OK, f"dump {k} of the stopped program -o .{ext} ({err.strip()[-200:]!r})")
            a, b = read(f"h1.{ext}"), read(f"h2.{ext}")
            check(a == b, f"two dumps of a stopped program with a scope open are the same bytes ({ext})")
        doc = json.loads(read("h1.json"))
        check(any(e.get("name") == "held" and e.get("ph") in ("B", "X") for e in doc["traceEvents"]),
              "the open scope is in the dump")
    finally:
        os.kill(p.pid, signal.SIGCONT)
        p.stdin.close()
        p.wait(timeout=TIMEOUT)


main({"csv_formula": test_csv_formula, "formats_dump": lambda: formats("dump"),
      "formats_convert": lambda: formats("convert"), "formats_run": lambda: formats("run"),
      "formats_capture": lambda: formats("capture"), "deep": test_deep, "report_tree": test_report_tree,
      "dump_stable": test_dump_stable})
