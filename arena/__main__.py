"""``python -m arena``: the same command line as ``pengyou``."""

import sys

from .cli import main

sys.exit(main())
