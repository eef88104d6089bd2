"""A real Dask cluster for tests: a ``dask scheduler`` and ``dask worker``
processes, each worker in an empty folder of its own and in a mount
namespace of its own where the client's folder is an empty tmpfs (a worker
on another machine sees none of the client's files).

Every process is stopped when the context ends (process groups are killed,
so a worker's nanny, its worker, its sandbox and its bots go together).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

BIN = Path(sys.executable).parent


def can_hide_folders() -> Optional[str]:
    """None if this machine can start workers that do not see a folder, else why not."""
    if os.geteuid() != 0:
        return "hiding the client's folder from workers needs root (a private mount namespace)"
    if shutil.which("unshare") is None:
        return "unshare(1) is not installed"
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                            "mount -t tmpfs none /mnt && umount /mnt"], capture_output=True)
    if probe.returncode != 0:
        return f"this system refuses a private mount namespace ({probe.stderr.decode().strip()[:100]})"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """``with Cluster(tmp, hide=[client_folder]) as c: c.address``"""

    def __init__(self, top: Path, hide: list[Path], workers: int = 2,
                 stale: Optional[dict[str, tuple[Path, Path]]] = None) -> None:
        self.top = top
        #: worker name -> (a hidden folder, a folder whose files are copied into it for that worker)
        self.stale = stale or {}
        self.hide = [str(h) for h in hide]
        self.n = workers
        self.port = _free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.procs: list[subprocess.Popen] = []
        self.workers: list[subprocess.Popen] = []

    def _env(self, extra: Optional[dict] = None) -> dict:
        env = dict(os.environ)
        env.update({"DASK_DISTRIBUTED__WORKER__DAEMON": "False", "PYTHONDONTWRITEBYTECODE": "1"})
        env.update(extra or {})
        return env

    def __enter__(self) -> Cluster:
        try:
            return self._start()
        except BaseException:
            self.__exit__()
            raise

    def _start(self) -> Cluster:
        folder = self.top / "scheduler"
        folder.mkdir(parents=True, exist_ok=True)
        log = open(folder / "log", "wb")
        self.procs.append(subprocess.Popen(
            [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(self.port), "--no-dashboard"],
            cwd=folder, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=self._env()))
        log.close()
        for i in range(self.n):
            self.add_worker(f"w{i}")
        self.wait_for(self.n)
        return self

    def add_worker(self, name: str, env: Optional[dict] = None, prefix: tuple[str, ...] = (),
                   wait: bool = False) -> subprocess.Popen:
        """Start one more worker in an empty folder ``top/name`` (``prefix``:
        words run before ``dask``, such as another user namespace)."""
        home = self.top / name
        home.mkdir(parents=True, exist_ok=True)
        mounts = " && ".join(f"mount -t tmpfs -o size=1m,mode=0755 none '{h}'" for h in self.hide) or "true"
        if name in self.stale:
            into, src = self.stale[name]
            mounts += f" && cp -r '{src}/.' '{into}/'"
        script = (f"{mounts} && cd '{home}' && exec {' '.join(prefix)} '{BIN / 'dask'}' worker {self.address} "
                  f"--nthreads 1 --nworkers 1 --no-dashboard --name {name} --local-directory '{home / 'dask'}'")
        log = open(home / "log", "wb")
        extra = {"PENGYOU_BOT_CACHE": str(home / "cache"), "HOME": str(home)}
        extra.update(env or {})
        proc = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                                cwd=self.top, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                env=self._env(extra))
        log.close()
        self.procs.append(proc)
        self.workers.append(proc)
        if wait:
            self.wait_for(len(self.workers))
        return proc

    def worker_count(self) -> int:
        from distributed import Client

        with Client(self.address, timeout=10) as client:
            return len(client.scheduler_info()["workers"])

    def wait_for(self, n: int, timeout: float = 90.0) -> None:
        from distributed import Client

        with Client(self.address, timeout=30) as client:       # the scheduler is up once this connects
            if n:
                client.wait_for_workers(n, timeout=timeout)

    def log(self, name: str) -> str:
        path = self.top / name / "log"
        return path.read_text(errors="replace") if path.exists() else ""

    def signal(self, proc: subprocess.Popen, sig: int) -> None:
        """Send ``sig`` to a worker's whole process group (a machine's worth)."""
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass

    def __exit__(self, *exc: object) -> None:
        for proc in reversed(self.procs):
            self.signal(proc, signal.SIGCONT)
            self.signal(proc, signal.SIGKILL)
        for proc in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        time.sleep(0.2)
