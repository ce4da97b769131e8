"""python3 -m recorder --cuda and --torch-ops (docs/python.md, docs/gpu.md):
the GPU library's variables reach the program, with and without -o; a
missing library stops the run before the program starts; --torch-ops
runs the program inside torch.autograd.profiler.emit_nvtx() (a stand-in
torch here: the machines that run these tests have none, and no GPU), or
says clearly why it cannot.  Registered only when the GPU library is
built (tests/python/meson.build)."""
import os
import subprocess

from conftest import CLI, PY, SANITIZER_MARKS, check_trace, child_env, remove_segment_of

SHOW_VARS = """
import os, sys
with open(sys.argv[1], "w") as f:
    f.write(os.environ.get("CUDA_INJECTION64_PATH", "-") + "\\n" + os.environ.get("NVTX_INJECTION64_PATH", "-"))
"""

# A stand-in for torch.autograd.profiler: emit_nvtx() notes when it is
# entered and left, and fails on entering when asked to (as a torch built
# without NVTX does).
STUB_PROFILER = """
import os
STATE = {"on": False}
class emit_nvtx:
    def __init__(self, record_shapes=False):
        pass
    def __enter__(self):
        if os.environ.get("STUB_FAIL"):
            raise RuntimeError("Can't use NVTX profiler - PyTorch was compiled without CUDA")
        STATE["on"] = True
        return self
    def __exit__(self, *exc):
        STATE["on"] = False
        with open(os.environ["STUB_LOG"], "a") as f:
            f.write("left\\n")
"""

IN_EMIT = """
import os
from torch.autograd import profiler
with open(os.environ["STUB_LOG"], "a") as f:
    f.write("program inside=%s\\n" % profiler.STATE["on"])
"""


def runner(tmp_path, *opts, code=SHOW_VARS, env=None, timeout=120):
    (tmp_path / "prog.py").write_text(code)
    p = subprocess.Popen([PY, "-m", "recorder", *opts], cwd=tmp_path, env=env or child_env(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=timeout)
    if p.returncode < 0:
        remove_segment_of(p.pid)
    for mark in SANITIZER_MARKS:
        assert mark not in err, err
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def cuda_lib():
    r = subprocess.run([CLI, "cuda-lib"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_cuda_sets_the_variables_in_process(tmp_path):
    r = runner(tmp_path, "--cuda", "prog.py", "vars.txt")
    assert r.returncode == 0, r.stderr
    lib = cuda_lib()
    assert os.path.isabs(lib)
    assert (tmp_path / "vars.txt").read_text().split("\n") == [lib, lib]


def test_cuda_with_output_goes_through_recorder(tmp_path):
    r = runner(tmp_path, "--cuda", "-o", "t.json", "prog.py", "vars.txt")
    assert r.returncode == 0, r.stderr
    lib = cuda_lib()
    assert (tmp_path / "vars.txt").read_text().split("\n") == [lib, lib]
    # `recorder run --cuda` said why there is no GPU lane: no CUDA here.
    assert "never initialised CUDA" in r.stderr, r.stderr
    check_trace(tmp_path / "t.json")


def test_without_cuda_no_variables(tmp_path):
    r = runner(tmp_path, "prog.py", "vars.txt")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "vars.txt").read_text().split("\n") == ["-", "-"]


def test_cuda_missing_library_stops_before_the_program(tmp_path):
    env = child_env(RECORDER_CUDA_LIB=str(tmp_path / "none.so"))
    for opts in (["--cuda"], ["--cuda", "-o", "t.json"]):
        r = runner(tmp_path, *opts, "prog.py", "vars.txt", env=env)
        assert r.returncode == 2 and "is not there" in r.stderr, (opts, r.returncode, r.stderr)
        assert not (tmp_path / "vars.txt").exists(), opts


def stub_torch(tmp_path):
    prof = tmp_path / "stub" / "torch" / "autograd"
    prof.mkdir(parents=True)
    (tmp_path / "stub" / "torch" / "__init__.py").write_text("")
    (prof / "__init__.py").write_text("")
    (prof / "profiler.py").write_text(STUB_PROFILER)
    env = child_env(STUB_LOG=str(tmp_path / "log.txt"))
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "stub"), env.get("PYTHONPATH", "")])
    return env


def test_torch_ops_wraps_the_program(tmp_path):
    env = stub_torch(tmp_path)
    for opts in ([], ["-o", "t.json"]):
        (tmp_path / "log.txt").write_text("")
        r = runner(tmp_path, "--torch-ops", *opts, "prog.py", code=IN_EMIT, env=env)
        assert r.returncode == 0, (opts, r.stderr)
        assert (tmp_path / "log.txt").read_text() == "program inside=True\nleft\n", opts


def test_torch_ops_emit_nvtx_fails_clearly(tmp_path):
    env = stub_torch(tmp_path)
    env["STUB_FAIL"] = "1"
    r = runner(tmp_path, "--torch-ops", "prog.py", code=IN_EMIT, env=env)
    assert r.returncode == 2, r.stderr
    assert "--torch-ops: torch.autograd.profiler.emit_nvtx() is not available" in r.stderr, r.stderr
    assert "compiled without CUDA" in r.stderr
    assert not (tmp_path / "log.txt").exists() or "program" not in (tmp_path / "log.txt").read_text()


def test_torch_ops_without_torch(tmp_path):
    env = child_env()
    r = runner(tmp_path, "--torch-ops", "prog.py", code=IN_EMIT, env=env)
    assert r.returncode == 2 and "--torch-ops needs PyTorch" in r.stderr, r.stderr


def test_help_describes_them(tmp_path):
    r = runner(tmp_path, "--help")
    assert "--cuda" in r.stdout and "--torch-ops" in r.stdout
