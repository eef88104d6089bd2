"""Attack 16 (and a promise kept): a bot in a bot folder reads every file of
its folder, and nothing of another entrant's. A program (no bot class), run
as ``cmd:PYTHON path/to/folder_reader.py [ROOT]``; ``folder_reader_bot.py``
is the same as a module.

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

MARK = ".pengyou-bot"


def problem(me: str, root: str = "") -> str:
    folder = os.path.dirname(os.path.abspath(me))
    while not os.path.isfile(os.path.join(folder, MARK)):
        if os.path.dirname(folder) == folder:
            return f"CANNOT READ ITS OWN DATA: no bot folder above {me}"
        folder = os.path.dirname(folder)
    read = 0

    def fail(exc: OSError) -> None:
        raise exc

    try:
        for where, _, files in os.walk(folder, onerror=fail):
            for f in files:
                with open(os.path.join(where, f), "rb") as fh:
                    fh.read()
                read += 1
    except OSError as exc:
        return f"CANNOT READ ITS OWN DATA: {exc}"
    if read < 3:
        return f"CANNOT READ ITS OWN DATA: read {read} files in {folder}"
    for other in (os.path.join(root, "2", "secret.txt"), os.path.join(root, "outside.txt")) if root else ():
        try:
            with open(other, "rb") as fh:
                fh.read()
        except OSError:
            continue
        return f"ATTACK WORKED: read {other}"
    return ""


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
            bad = problem(__file__, root)
            if bad:
                say({"type": "error", "kind": "crash", "message": bad})
                return
        say({"type": "action", "id": msg["id"], "action": rng.choice(msg["legal"])})


if __name__ == "__main__":
    main()
