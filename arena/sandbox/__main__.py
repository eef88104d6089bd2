"""``python -m arena.sandbox SOCKET_FD PARENT_PID``: the fork server a referee starts."""

import os
import sys

from .server import run_server

run_server(int(sys.argv[1]), int(sys.argv[2]))
# run_server has killed its bots and tidied up; tearing down the interpreter's modules
# would only make the referee, which waits for this process, wait longer
sys.stderr.flush()
os._exit(0)
