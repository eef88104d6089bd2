"""``python -m arena.sandbox SOCKET_FD PARENT_PID``: the fork server a referee starts."""

import sys

from .server import run_server

run_server(int(sys.argv[1]), int(sys.argv[2]))
