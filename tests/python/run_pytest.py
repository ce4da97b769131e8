"""Runs one test file of tests/python with pytest, as meson test does:

    python3 run_pytest.py test_hooks.py [pytest options]

Exits 77 (meson's "skipped") when this interpreter has no pytest
(Debian: python3-pytest, which scripts/deps installs)."""
import os
import sys

try:
    import pytest
except ImportError:
    print("SKIP: pytest is not installed for", sys.executable)
    sys.exit(77)

here = os.path.dirname(os.path.abspath(__file__))
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir", here, *sys.argv[1:]]))
