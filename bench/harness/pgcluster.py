"""A private PostgreSQL cluster for one bench run or test: initdb into a temporary folder, a free port on
127.0.0.1, started and stopped with pg_ctl, so it can be restarted or crashed under load without
touching any server someone else uses. Needs the PostgreSQL server programs (initdb, pg_ctl; Debian's
`postgresql` package, which scripts/system-deps.sh installs for the tests).

The server refuses to run as root: when this process is root, the cluster's folder belongs to the
`postgres` user (else `nobody`) and initdb / pg_ctl run as that user."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any

MISSING = "initdb / pg_ctl not found: install the PostgreSQL server (scripts/system-deps.sh --with-browser)"


def server_bindir() -> Path | None:
    """Where initdb and pg_ctl are: pg_config's bindir, Debian's /usr/lib/postgresql/<version>/bin
    (newest first; not on PATH there), or PATH."""
    candidates: list[Path] = []
    if shutil.which("pg_config"):
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=False)
        if out.returncode == 0 and out.stdout.strip():
            candidates.append(Path(out.stdout.strip()))
    versions = glob.glob("/usr/lib/postgresql/*/bin")
    candidates += sorted(
        (Path(p) for p in versions), key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0, reverse=True
    )
    if shutil.which("initdb"):
        candidates.append(Path(str(shutil.which("initdb"))).resolve().parent)
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PrivateCluster:
    """`with PrivateCluster() as pg:` a running server; `pg.url` for DATABASE_URL, `pg.restart()`,
    `pg.crash_and_start()`. The folder and the server go when the block ends."""

    def __init__(self, database: str = "skymark") -> None:
        bindir = server_bindir()
        if bindir is None:
            raise RuntimeError(MISSING)
        self.bindir, self.database, self.port = bindir, database, _free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="skymark-pg-"))
        self.data, self.log = self.folder / "data", self.folder / "server.log"
        self._as: list[str] = []
        if os.geteuid() == 0:
            user = _unprivileged_user()
            os.chown(self.folder, user.pw_uid, user.pw_gid)
            self._as = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", "--"]

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{self.database}"

    def _ctl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = [*self._as, str(self.bindir / "pg_ctl"), "-D", str(self.data), "-w", "-t", "60", *args]
        return subprocess.run(cmd, capture_output=True, text=True, check=check, cwd=self.folder)

    def __enter__(self) -> PrivateCluster:
        try:
            init = [str(self.bindir / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8"]
            subprocess.run(
                [*self._as, *init, "--no-instructions"], capture_output=True, text=True, check=True, cwd=self.folder
            )
            self.start()
            subprocess.run(
                [
                    str(self.bindir / "createdb"),
                    "-h",
                    "127.0.0.1",
                    "-p",
                    str(self.port),
                    "-U",
                    "postgres",
                    self.database,
                ],
                capture_output=True,
                text=True,
                check=True,
            )
        except BaseException:
            self.__exit__()
            raise
        return self

    def start(self) -> None:
        # Only TCP on 127.0.0.1 (the socket folder is the cluster's own); fsync and synchronous
        # commit stay on, as in production: an acknowledged commit must survive a crash.
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder} -c max_connections=200"
        self._ctl("-l", str(self.log), "-o", options, "start")

    def restart(self) -> None:
        """A clean restart: open connections are closed, the server is back when this returns."""
        # -l: the server's output goes to the log, not to the pipe this process waits on.
        self._ctl("-l", str(self.log), "-m", "fast", "restart")

    def crash_and_start(self) -> None:
        """Stop without a shutdown checkpoint (as a crash or a killed server), then start: recovery
        replays the WAL."""
        self._ctl("-m", "immediate", "stop")
        self.start()

    def __exit__(self, *exc: Any) -> None:
        if (self.data / "postmaster.pid").exists():
            self._ctl("-m", "immediate", "stop", check=False)
        shutil.rmtree(self.folder, ignore_errors=True)


def _unprivileged_user() -> pwd.struct_passwd:
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError("running as root and no `postgres` or `nobody` user to run the server as")
