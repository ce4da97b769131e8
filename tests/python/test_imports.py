"""Each top-level import is one scope by default (python/src/imports.c).

`import email.mime.text` runs tens of thousands of calls in importlib and
the imported modules; by default the trace holds one slice "import
email.mime.text" with their whole time, no importlib frame, and an
instant "calls hidden" inside it counting the calls it stands for.  An
import inside an import belongs to the outer one; an import inside a
function is folded the same way, under that function.  `--imports`
records them in full.  Under each hook.
"""
import json
import subprocess
import sys

import pytest

from conftest import PY, SANITIZER_MARKS, child_env

PROG = r"""
import threading
def main():
    import email.mime.text
    return 1
def worker():
    import xml.dom.minidom
t = threading.Thread(target=worker)
t.start()
t.join()
main()
"""

HOOKS = ["eval", "profile"] + (["monitoring"] if sys.version_info >= (3, 12) else [])


def trace(tmp_path, hook, *opts):
    (tmp_path / "prog.py").write_text(PROG)
    args = ["--hook", hook] + (["--no-native"] if hook == "eval" else []) + list(opts)
    r = subprocess.run([PY, "-m", "recorder", *args, "-o", "t.json", "prog.py"], cwd=tmp_path, env=child_env(),
                       capture_output=True, text=True, timeout=300)
    for mark in SANITIZER_MARKS:
        assert mark not in r.stderr, r.stderr
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "t.json").read_text())
    return doc["traceEvents"]


def slices(ev):
    """(tid, name, ts, end) of every slice, B/E paired per thread."""
    out, open_ = [], {}
    for e in ev:
        if e.get("ph") == "X" and e.get("name") != "flow":
            out.append((e["tid"], e["name"], e["ts"], e["ts"] + e.get("dur", 0)))
        elif e.get("ph") == "B":
            open_.setdefault(e["tid"], []).append(e)
        elif e.get("ph") == "E":
            b = open_[e["tid"]].pop()
            out.append((e["tid"], b["name"], b["ts"], e["ts"]))
    return out


@pytest.mark.parametrize("hook", HOOKS)
def test_imports_folded(tmp_path, hook):
    ev = trace(tmp_path, hook)
    sl = slices(ev)
    names = [s[1] for s in sl]
    assert not any("_find_and_load" in n or "_call_with_frames_removed" in n for n in names), names
    # Every hook names the module (the eval hook reads it from the frame's
    # layout, on 3.12+ too: hook_eval.c).
    main_imp = [s for s in sl if s[1] == "import email.mime.text"]
    worker_imp = [s for s in sl if s[1] == "import xml.dom.minidom"]
    assert len(main_imp) == 1 and len(worker_imp) == 1, names
    assert main_imp[0][0] != worker_imp[0][0]          # each on its own thread
    # Under the function that imported it (main), not beside it.
    mains = [s for s in sl if s[1].startswith("main")]
    assert mains and mains[0][2] <= main_imp[0][2] and main_imp[0][3] <= mains[0][3]
    hidden = [e for e in ev if e.get("ph") == "i" and e["name"] == "calls hidden"]
    assert len(hidden) == 2, hidden
    for h in hidden:
        n = int(h["args"]["msg"].split()[0])
        assert n > 100, h                                # importlib alone runs that many
        imp = main_imp[0] if h["tid"] == main_imp[0][0] else worker_imp[0]
        assert imp[2] <= h["ts"] <= imp[3], (h, imp)      # inside its import's slice


@pytest.mark.parametrize("hook", HOOKS)
def test_imports_in_full(tmp_path, hook):
    ev = trace(tmp_path, hook, "--imports")
    names = {s[1] for s in slices(ev)}
    assert any(n.startswith("_find_and_load") for n in names), sorted(names)[:20]
    assert not any(n.startswith("import ") for n in names)
    assert not [e for e in ev if e.get("ph") == "i" and e["name"] == "calls hidden"]
