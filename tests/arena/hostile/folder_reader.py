"""Attack 16 (and a promise kept): a bot in a bot folder reads every file of
its folder, and nothing of another entrant's. A program (no bot class), run
as ``cmd:PYTHON path/to/folder_reader.py [ROOT]``; ``folder_reader_bot.py``
is the same as a module, and holds the check (the tests put it beside this
file).

The bot folder is the nearest folder above this file holding
``.pengyou-bot`` (a ladder marks a submission's root so, wherever its
entry is). At its first request the bot reads every file in it: a file it
cannot read is a crash ``CANNOT READ ITS OWN DATA``. With ``ROOT`` (the
folder of the bot folders), it then tries ``ROOT/2/secret.txt`` (another
entrant's folder) and ``ROOT/outside.txt``: reading either is ``ATTACK
WORKED``. Otherwise it plays a random legal action.
"""

import json
import os
import random
import sys


def _check():
    """``problem`` of ``folder_reader_bot.py``, which the tests put beside
    this file (loaded by its path: the sandbox runs Python isolated)."""
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "folder_reader_bot.py")
    spec = importlib.util.spec_from_file_location("folder_reader_bot", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.problem


def say(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main() -> None:
    root = sys.argv[1] if len(sys.argv) > 1 else ""
    sys.stdin.readline()                                # hello
    say({"type": "ready", "name": "folder-reader", "want": ["legal"]})
    checked, rng = False, random.Random(1)
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("type") in ("quit", "stop", "error"):
            return
        if msg.get("type") != "request":
            continue
        if not checked:
            checked = True
            bad = _check()(__file__, root)
            if bad:
                say({"type": "error", "kind": "crash", "message": bad})
                return
        say({"type": "action", "id": msg["id"], "action": rng.choice(msg["legal"])})


if __name__ == "__main__":
    main()
