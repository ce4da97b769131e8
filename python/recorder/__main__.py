"""python3 -m recorder: run a Python program with recording on (see _cli.py,
or python3 -m recorder --help)."""
import sys

from recorder._cli import main

sys.exit(main())
