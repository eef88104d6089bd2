"""Attack 13: a program bot that breaks the protocol (run as ``cmd:PYTHON bad_program.py HOW``).

``HOW``: ``junk-hello`` answers hello with junk; ``flood-hello`` answers it
with a 10 MB line; ``junk`` is ready, then answers requests with junk;
``flood`` is ready, then answers a request with a 10 MB line; ``mute`` is
ready, then never answers; ``close`` is ready, then closes its output.
"""

import json
import os
import sys
import time

how = sys.argv[1] if len(sys.argv) > 1 else "junk"
out = sys.stdout.buffer


def say(data: bytes) -> None:
    out.write(data)
    out.flush()


sys.stdin.readline()                                # hello
if how == "junk-hello":
    say(b"\x00\xffthis is not json\n")
elif how == "flood-hello":
    say(b"x" * (10 << 20) + b"\n")
else:
    say(b'{"type":"ready","name":"bad"}\n')
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") != "request":
        continue
    if how == "junk":
        say(b'{"type":"action","id":"nope","action":[1,2]}\n{{{{\n')
    elif how == "flood":
        try:
            say(b"{" + b"x" * (10 << 20) + b"}\n")
        except BrokenPipeError:
            os._exit(0)
    elif how == "mute":
        time.sleep(1000)
    elif how == "close":
        os.close(1)
        time.sleep(1000)
time.sleep(1000)
