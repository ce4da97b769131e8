"""recorder-top on GPU lanes (docs/tui.md, "GPU lanes"): tests/gpu/fake_gpu
--live records what the GPU library records, without CUDA (launch scopes
on its thread "host"; kernels, a copy and a sync on "GPU0 stream 7" and
"GPU1 stream 13", written late; the device lanes "GPU0" and "GPU1").

  tui_gpu.py --top recorder-top --fake-gpu fake_gpu --recorder recorder

Checks, each waited for (never timed): Threads lists the CPU thread
first, then each device's lane and its stream lane, with KIND "gpu dev" /
"gpu", a device's busy share, and the "delivered up to" lag of a stream
lane; Top names the lane each kernel ran on; Enter on a stream lane gives
that lane's own rows with P50/P99; Messages hides the "args" instants.
Then a capture of `fake_gpu --iters 50` (recorder capture): its rows have
the same kinds and order, and Top the same lanes.
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile

from tui_harness import DEADLINE, Fail, Tmux, line_with


def names(s):
    """Threads' NAME column, top to bottom."""
    head = next(l for l in s.split("\n") if "KIND" in l and "INSIDE NOW" in l)
    a, b = head.index("NAME"), head.index("STATE")
    return [r[a:b].strip() for r in threads_rows(s)]


def threads_rows(s):
    lines = s.split("\n")
    h = next(i for i, l in enumerate(lines) if "KIND" in l and "INSIDE NOW" in l)
    out = []
    for l in lines[h + 1:]:
        if not l.strip():
            break
        out.append(l)
    return out


def run(a, t, pid):
    t.start([a.top, str(pid)], width=160, height=30)
    t.keys("3")
    want = ["host", "GPU0", "GPU0 stream 7", "GPU1", "GPU1 stream 13"]
    s = t.wait(lambda s: names(s) == want
               and "delivered up to" in line_with(s, "GPU0 stream 7"),
               "the CPU thread, then each device and its stream, in order")
    head = next(l for l in s.split("\n") if "KIND" in l and "INSIDE NOW" in l)
    kinds = [r[head.index("KIND"):head.index("NAME")].strip() for r in threads_rows(s)]
    if kinds != ["cpu", "gpu dev", "gpu", "gpu dev", "gpu"]:
        raise Fail(f"KIND column {kinds}:\n" + "\n".join(threads_rows(s)))
    dev = [r for r in threads_rows(s) if re.search(r"\bgpu dev\s+GPU0\b", r)]
    if not dev or not re.search(r"device 0: busy [\d.]+%, 1 stream", dev[0]):
        raise Fail("GPU0's device row:\n" + "\n".join(threads_rows(s)))
    if not re.search(r"delivered up to [\d.]+\S* ago", line_with(s, "GPU1 stream 13")):
        raise Fail("GPU1 stream 13's lag:\n" + line_with(s, "GPU1 stream 13"))
    # Top: each kernel says its lane; the CPU's scopes say nothing.
    t.keys("1")
    s = t.wait(lambda s: "gemm_f16(int, float) [GPU0 stream 7]" in s and "softmax_kernel [GPU1 stream 13]" in s
               and "memcpy HtoD [GPU0 stream 7]" in s and re.search(r"\bstep\s+\d", s),
               "the kernels in Top with their lanes")
    if "[GPU" in line_with(s, "cudaLaunchKernel"):
        raise Fail("a CPU scope named as a GPU lane's:\n" + line_with(s, "cudaLaunchKernel"))
    # One lane's own rows, with their P50 (20 us, the fake kernel's).
    t.keys("3")
    s = t.wait(lambda s: names(s)[2] == "GPU0 stream 7", "Threads again")
    t.keys("Home", "Down", "Down", "Enter")
    s = t.wait(lambda s: "window" in s.split("\n")[1] and "GPU0 stream 7" in s.split("\n")[1]
               and "gemm_f16" in s and "softmax_kernel" not in s and "cudaLaunchKernel" not in s,
               "Top of GPU0 stream 7 alone")
    row = line_with(s, "gemm_f16")
    if not re.search(r"20\.0\S*s\s+20\.0\S*s\s+20\.0\S*s\s+20\.0\S*s$", row.rstrip()):
        raise Fail("gemm_f16's P50..MAX on its lane:\n" + row)
    # Messages: GPU0 stream 7 records only "args" instants: none shown.
    t.keys("5")
    s = t.wait(lambda s: "MESSAGE" in s, "Messages")
    t.wait(lambda s: "grid=" not in s and "bytes" not in s.split("MESSAGE", 1)[1], "no args instants")
    t.keys("t")
    t.wait(lambda s: "GPU1" in s.split("\n")[1], "the next lane")
    t.keys("t", "t")   # GPU1 stream 13, then all
    s = t.wait(lambda s: "all threads" in s.split("\n")[1], "all threads")
    if "grid=(" in s:
        raise Fail("an args instant in Messages:\n" + s)


def run_file(a):
    """A capture keeps each slot's kind and device: the same rows."""
    with tempfile.TemporaryDirectory() as d:
        rec = os.path.join(d, "gpu.rec")
        r = subprocess.run([a.recorder, "capture", "-q", "-o", rec, "--", a.fake_gpu, "--iters", "50"],
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise Fail(f"recorder capture: {r.returncode} {r.stderr}")
        t = Tmux("gpufile")
        try:
            t.start([a.top, rec], width=160, height=30)
            t.wait_text("file gpu.rec")
            t.keys("3")
            s = t.wait(lambda s: names(s) == ["host", "GPU0", "GPU0 stream 7", "GPU1", "GPU1 stream 13"],
                       "the capture's rows in order", stable=True)
            head = next(l for l in s.split("\n") if "KIND" in l and "INSIDE NOW" in l)
            kinds = [r[head.index("KIND"):head.index("NAME")].strip() for r in threads_rows(s)]
            if kinds != ["cpu", "gpu dev", "gpu", "gpu dev", "gpu"]:
                raise Fail(f"the capture's KIND column {kinds}:\n" + "\n".join(threads_rows(s)))
            t.keys("1")
            t.wait_text("gemm_f16(int, float) [GPU0 stream 7]", "softmax_kernel [GPU1 stream 13]")
        finally:
            t.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", required=True)
    ap.add_argument("--fake-gpu", required=True)
    ap.add_argument("--recorder", required=True)
    a = ap.parse_args()
    p = subprocess.Popen([a.fake_gpu, "--live"], stdout=subprocess.PIPE, text=True)
    t = Tmux("gpu")
    try:
        line = p.stdout.readline()
        if line.strip() != "ready":
            raise Fail(f"fake_gpu did not start: {line!r}")
        run(a, t, p.pid)
        run_file(a)
    except Fail as e:
        print(f"FAIL gpu: {e}", file=sys.stderr)
        return 1
    finally:
        t.close()
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(DEADLINE)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    print("ok gpu")
    return 0


if __name__ == "__main__":
    sys.exit(main())
