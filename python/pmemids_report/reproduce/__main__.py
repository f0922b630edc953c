"""python -m pmemids_report.reproduce ARGS: see cli.py."""

import sys

from .cli import main

sys.exit(main())
