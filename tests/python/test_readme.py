"""The README's Python demo as written (issue 20, item 10): recorder-top
waits for the program's first event (--wait: numpy's import comes
first), and the command names the interpreter the package was built for
(a plain `python3` first on PATH may be another, without the extension).
The demo's own run is tests/examples' and tests/tui's; this checks the
words a user copies."""
import os
import re
import sys

ROOT = os.environ["RECORDER_SOURCE_ROOT"]


def demo_block():
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        if "examples/python/inference.py" in block:
            return [ln.strip() for ln in block.splitlines() if ln.strip()]
    raise AssertionError("README.md has no Python demo block")


def test_demo_waits_and_names_the_interpreter():
    py_built_for = sys.executable   # meson runs this suite with it
    lines = demo_block()
    run = next(ln for ln in lines if "-m recorder" in ln)
    top = next(ln for ln in lines if "recorder-top" in ln)
    assert re.search(r"recorder-top --wait(=\S+)? \$!$", top), top
    interp = run.split()[1] if run.startswith("PYTHONPATH=") else run.split()[0]
    assert os.path.isabs(interp), f"{interp}: not the interpreter the package was built for, whichever is on PATH"
    assert os.path.realpath(interp) == os.path.realpath(py_built_for), (interp, py_built_for)
