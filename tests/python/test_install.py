"""The install ways of docs/python.md, "Install", other than the build
tree (which every other test uses): `meson install` (into a DESTDIR here)
and `pip install --no-build-isolation .` (into a --target directory, from
a copy of the sources: meson-python builds inside the source tree).  Each
installed package must import from where it was installed, register the
pytest plugin, and record a script with -o."""
import os
import shutil
import subprocess

import pytest

from conftest import CLI, PY, check_trace, child_env, run, trace_slices

BUILD_ROOT = os.environ.get("RECORDER_BUILD_ROOT", "")
SOURCE_ROOT = os.environ.get("RECORDER_SOURCE_ROOT", "")
SANITIZED = os.environ.get("RECORDER_TEST_SANITIZED", "") == "1"

PROG = "def work(n):\n    return sum(range(n))\nwork(10)\n"
PROBE = """
import importlib.metadata as md, os, sys, recorder, recorder._native as n
eps = [e.value for e in md.entry_points(group="pytest11") if e.name == "recorder"]
print(os.path.dirname(recorder.__file__), os.path.dirname(n.__file__), eps, sep="\\n")
"""


def site_of(root):
    """The directory holding the installed package `recorder`."""
    for d, dirs, files in os.walk(root):
        if os.path.basename(d) == "recorder" and "__init__.py" in files and "_cli.py" in files:
            return os.path.dirname(d)
    raise AssertionError(f"no package recorder under {root}")


def use_installed(tmp_path, site):
    """The package imports from site (not the build tree), has the pytest
    plugin, and records a script into a trace that passes the checker."""
    env = child_env(PYTHONPATH=site, RECORDER_CLI=CLI)
    r = run([PY, "-c", PROBE], env=env, cwd=tmp_path, timeout=60)
    assert r.returncode == 0, r.stderr
    pkg, ext, eps = r.stdout.splitlines()
    assert pkg == os.path.join(site, "recorder") and ext == pkg, r.stdout
    assert eps == "['recorder.pytest_plugin']", r.stdout
    (tmp_path / "prog.py").write_text(PROG)
    r = run([PY, "-m", "recorder", "-o", "t.json", "prog.py"], env=env, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    doc = check_trace(tmp_path / "t.json")
    assert [s for s in trace_slices(doc) if s[1] == "work" and s[2].get("file") == "prog.py"], doc


def test_meson_install(tmp_path):
    if not BUILD_ROOT:
        pytest.skip("RECORDER_BUILD_ROOT is not set (run through meson test)")
    dest = tmp_path / "dest"
    r = run(["meson", "install", "-C", BUILD_ROOT, "--no-rebuild", "--quiet", "--destdir", str(dest)],
            timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    site = site_of(dest)
    # The interpreter's own site directory under the prefix, not Meson's
    # default lib/python3/dist-packages that Debian's python3 ignores.
    assert "python3/dist-packages" not in site, site
    assert os.path.isfile(os.path.join(site, "recorder", "_autostart", "sitecustomize.py"))
    use_installed(tmp_path, site)


def test_pip_install(tmp_path):
    if not SOURCE_ROOT:
        pytest.skip("RECORDER_SOURCE_ROOT is not set (run through meson test)")
    if SANITIZED:
        pytest.skip("pip builds its own, unsanitized, extension: checked in the plain build")
    r = subprocess.run([PY, "-c", "import mesonpy, pip"], capture_output=True)
    if r.returncode != 0:
        pytest.skip("no pip or meson-python for this Python (Debian: python3-pip, python3-mesonpy)")
    src = tmp_path / "src"
    src.mkdir()
    for f in ("meson.build", "meson_options.txt", "pyproject.toml"):
        shutil.copy(os.path.join(SOURCE_ROOT, f), src / f)
    for d in ("include", "python"):
        shutil.copytree(os.path.join(SOURCE_ROOT, d), src / d, ignore=shutil.ignore_patterns("__pycache__"))
    (src / "docs").mkdir()
    shutil.copy(os.path.join(SOURCE_ROOT, "docs", "python.md"), src / "docs" / "python.md")
    target = tmp_path / "site"
    env = child_env(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1")
    env.pop("PYTHONPATH", None)
    env.pop("LD_PRELOAD", None)
    r = run([PY, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index", "--quiet",
             "--target", str(target), str(src)], env=env, cwd=tmp_path, timeout=580)
    assert r.returncode == 0, r.stdout + r.stderr
    site = site_of(target)
    assert site == str(target), site
    use_installed(tmp_path, site)
