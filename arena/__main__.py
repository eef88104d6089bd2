"""``python -m arena``: the same command line as ``pengyou``."""

import sys

from .commands import main

sys.exit(main())
