"""Attack 8: talk to the outside over the network."""

from __future__ import annotations

import os
import socket


class NetworkBot:
    """Tries to connect to 127.0.0.1:``port`` (TCP and UDP, by ``socket`` and
    by a shell's /dev/tcp); a connection that works is betrayed by a crash."""

    def __init__(self, port: int = 0) -> None:
        self.port = int(port)
        self.worked: list[str] = []
        self.rng = None

    def restart(self, rules, seat, rng) -> None:
        self.rng = rng
        try:
            s = socket.create_connection(("127.0.0.1", self.port), timeout=0.5)
            s.sendall(b"hostile tcp\n")
            s.close()
            self.worked.append("tcp connect")
        except BaseException:
            pass
        try:
            u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            u.sendto(b"hostile udp\n", ("127.0.0.1", self.port))
            self.worked.append("udp socket")
        except BaseException:
            pass
        try:
            a, b = socket.socketpair()
            self.worked.append("socketpair")
        except BaseException:
            pass
        try:
            rc = os.system(f"exec 2>/dev/null; echo hostile-sh > /dev/tcp/127.0.0.1/{self.port}")
            if rc == 0 and os.path.exists("/bin/bash"):
                rc = os.system(f"/bin/bash -c 'echo hostile-bash > /dev/tcp/127.0.0.1/{self.port}' 2>/dev/null")
                if rc == 0:
                    self.worked.append("bash /dev/tcp")
        except BaseException:
            pass

    def step(self, view):
        if [w for w in self.worked if w != "socketpair"]:
            raise RuntimeError("ATTACK WORKED: " + "; ".join(self.worked))
        return view.random_action(self.rng)
