"""``python -m derive``: the command-line tool (see :mod:`derive.cli`)."""

import sys

from .cli import main

sys.exit(main())
