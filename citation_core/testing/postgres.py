"""A throw-away PostgreSQL server on 127.0.0.1, for tests and benchmarks of the postgresql:// store.

:func:`running_postgres` runs ``initdb`` into a fresh folder under /tmp, starts the server on a free
TCP port (durability off: ``fsync``, ``synchronous_commit`` and ``full_page_writes``), creates the
database ``citation`` and yields a :class:`PostgresServer`; on leaving the ``with`` block (also when
it raised) the server is stopped (``pg_ctl -m immediate``) and the folder removed. Every call has its
own folder and port, so several pytest-xdist workers can each run one at the same time.
:meth:`PostgresServer.new_database` creates another (empty) database for a test of its own, and
:meth:`PostgresServer.drop_database` drops it again.

It needs the PostgreSQL server programs (Debian: ``apt-get install postgresql``) and nothing else:
no Docker, no network, no Python driver (databases are created with the ``createdb`` program that
comes with the server). Without the programs it raises :class:`RuntimeError` whose message says so,
for a test to skip with. PostgreSQL refuses to run as root: as root the server programs run as the
user ``postgres`` (or ``nobody`` when there is none) through ``runuser`` (or ``setpriv``), and the
folder belongs to that user.

Example::

    with running_postgres() as pg:
        engine = sqlalchemy.create_engine(pg.url)                       # postgresql+psycopg://...
        other = sqlalchemy.create_engine(pg.new_database("t_isolated"))
"""

from __future__ import annotations

import os
import pwd
import re
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

__all__ = ["NOT_INSTALLED", "PostgresServer", "find_bindir", "running_postgres"]

HOST = "127.0.0.1"
USER = "citation"
DATABASE = "citation"
NOT_INSTALLED = "PostgreSQL server programs (initdb, pg_ctl) not found: apt-get install postgresql"
PROGRAMS = ("initdb", "pg_ctl", "postgres", "createdb", "dropdb")
SERVER_OPTIONS = ("-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
                  " -c listen_addresses=" + HOST)
DEBIAN_BINDIRS = Path("/usr/lib/postgresql")
"""Debian's and Ubuntu's PostgreSQL versions, each in ``<version>/bin``."""
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
_START_ATTEMPTS = 3  # a free port can be taken by someone else before the server binds it
_LOG_TAIL = 25


@dataclass(frozen=True)
class PostgresServer:
    """A running server: ``url`` is the SQLAlchemy URL of its database ``citation``."""

    url: str
    port: int
    data_dir: Path
    bindir: Path
    host: str = HOST
    user: str = USER

    def url_of(self, database: str) -> str:
        """The SQLAlchemy URL (``postgresql+psycopg://``) of one of this server's databases."""
        return f"postgresql+psycopg://{self.user}@{self.host}:{self.port}/{database}"

    def conninfo(self, database: str = DATABASE) -> str:
        """The libpq URL (``postgresql://``) of one of this server's databases, e.g. for ``psycopg.connect``."""
        return f"postgresql://{self.user}@{self.host}:{self.port}/{database}"

    def new_database(self, name: str) -> str:
        """Create the empty database ``name`` (letters, digits, ``_``; at most 63) and return its URL."""
        self._client("createdb", name)
        return self.url_of(name)

    def drop_database(self, name: str) -> None:
        """Drop the database ``name``, ending the sessions still connected to it."""
        self._client("dropdb", "--force", name)

    def _client(self, program: str, *args: str) -> None:
        name = args[-1]
        if not _NAME.fullmatch(name):
            raise ValueError(f"not a plain database name (letters, digits, _, at most 63): {name!r}")
        done = subprocess.run([str(self.bindir / program), "-h", self.host, "-p", str(self.port), "-U", self.user,
                               *args], env=_clean_env(), capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{program} {name} failed: {(done.stderr or done.stdout).strip()}")


def find_bindir() -> Path:
    """The folder of the server programs: ``pg_config --bindir``, else the newest ``/usr/lib/postgresql/*/bin``,
    else the folder of ``initdb`` on PATH. Raises :class:`RuntimeError` (:data:`NOT_INSTALLED`) without them."""
    candidates: list[Path] = []
    pg_config = shutil.which("pg_config")
    if pg_config:  # libpq-dev's pg_config may name a bindir without the server: checked below
        with suppress(OSError, subprocess.SubprocessError):
            out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, timeout=10)
            if out.returncode == 0 and out.stdout.strip():
                candidates.append(Path(out.stdout.strip()))
    versions = sorted(DEBIAN_BINDIRS.glob("*/bin"), key=_version_key, reverse=True)
    candidates += versions
    initdb = shutil.which("initdb")
    if initdb:
        candidates.append(Path(initdb).resolve().parent)
    for bindir in candidates:
        if all(os.access(bindir / prog, os.X_OK) for prog in PROGRAMS):
            return bindir
    raise RuntimeError(NOT_INSTALLED)


@contextmanager
def running_postgres(folder: Path | None = None) -> Iterator[PostgresServer]:
    """A fresh server on a free port of 127.0.0.1 with the database ``citation``, stopped and removed at exit.

    Its files (data, socket, ``server.log``) go to a new folder under ``folder`` (default: the system's
    temporary folder, /tmp as root); as root, the unprivileged user the server runs as must be able to
    reach it. Raises :class:`RuntimeError` when the programs are missing or the server does not start
    (with the end of its log)."""
    bindir = find_bindir()
    run_as = _unprivileged_user() if os.geteuid() == 0 else None
    if folder is None and run_as is not None:  # root's TMPDIR may be a folder only root can enter
        folder = Path("/tmp")
    base = Path(tempfile.mkdtemp(prefix="citation-pg-", dir=folder))
    try:
        base.chmod(0o755)
        if run_as is not None:
            os.chown(base, run_as.pw_uid, run_as.pw_gid)
        data = base / "data"
        log = base / "server.log"
        _initdb(bindir, data, run_as)
        port = _start(bindir, data, base, log, run_as)
        try:
            server = PostgresServer(url=f"postgresql+psycopg://{USER}@{HOST}:{port}/{DATABASE}", port=port,
                                    data_dir=data, bindir=bindir)
            server.new_database(DATABASE)
            yield server
        finally:
            _stop(bindir, data, run_as)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _version_key(bindir: Path) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", bindir.parent.name)) or (0,)


def _unprivileged_user() -> pwd.struct_passwd:
    for name in ("postgres", "nobody"):
        with suppress(KeyError):
            return pwd.getpwnam(name)
    raise RuntimeError("running as root, and there is neither a user postgres nor nobody to run PostgreSQL as")


def _clean_env() -> dict[str, str]:
    """This environment without the libpq/server variables (PGDATA, PGPORT, PGHOST, ...) that would redirect us."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PG")}


def _command(argv: Sequence[str], run_as: pwd.struct_passwd | None) -> list[str]:
    if run_as is None:
        return list(argv)
    if runuser := shutil.which("runuser"):
        return [runuser, "-u", run_as.pw_name, "--", *argv]
    if setpriv := shutil.which("setpriv"):
        return [setpriv, f"--reuid={run_as.pw_uid}", f"--regid={run_as.pw_gid}", "--init-groups", "--", *argv]
    raise RuntimeError("running as root, and neither runuser nor setpriv is there to run PostgreSQL as "
                       f"{run_as.pw_name} (PostgreSQL refuses to run as root)")


def _run(argv: Sequence[str], run_as: pwd.struct_passwd | None,
         timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = _clean_env()
    if run_as is not None:
        env["HOME"] = run_as.pw_dir
    return subprocess.run(_command(argv, run_as), env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def _initdb(bindir: Path, data: Path, run_as: pwd.struct_passwd | None) -> None:
    common = [str(bindir / "initdb"), "-D", str(data), "-U", USER, "--auth=trust", "--encoding=UTF8",
              "--no-sync", "--no-instructions"]
    done = _run([*common, "--locale=C.UTF-8"], run_as)
    if done.returncode != 0 and "invalid locale" in done.stderr:  # no C.UTF-8 here: C does with UTF8 too
        shutil.rmtree(data, ignore_errors=True)
        done = _run([*common, "--no-locale"], run_as)
    if done.returncode != 0:
        hint = (f" (as root, PostgreSQL runs as {run_as.pw_name}, who must be able to reach {data.parent})"
                if run_as is not None and "Permission denied" in done.stderr else "")
        raise RuntimeError(f"initdb failed ({done.returncode}){hint}: {_tail(done.stdout + done.stderr)}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _start(bindir: Path, data: Path, base: Path, log: Path, run_as: pwd.struct_passwd | None) -> int:
    """Start the server on a free port (another one when that port was taken meanwhile); returns the port."""
    for attempt in range(1, _START_ATTEMPTS + 1):
        port = _free_port()
        options = f"-p {port} -k {shlex.quote(str(base))} {SERVER_OPTIONS}"
        done = _run([str(bindir / "pg_ctl"), "-w", "-t", "60", "-D", str(data), "-l", str(log), "-o", options,
                     "start"], run_as)
        if done.returncode == 0:
            return port
        _stop(bindir, data, run_as)  # e.g. it timed out but runs
        text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
        if "could not bind" in text.lower() and attempt < _START_ATTEMPTS:
            log.unlink(missing_ok=True)
            continue
        raise RuntimeError(f"PostgreSQL did not start on port {port} ({done.returncode}): "
                           f"{_tail(done.stdout + done.stderr)}\n--- end of its log ---\n{_tail(text)}")
    raise AssertionError("unreachable")


def _stop(bindir: Path, data: Path, run_as: pwd.struct_passwd | None) -> None:
    pid_file = data / "postmaster.pid"
    if not pid_file.exists():
        return
    with suppress(subprocess.TimeoutExpired):
        done = _run([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "-t", "30", "stop"],
                    run_as, 60)
        if done.returncode == 0:
            return
    # pg_ctl could not stop it: kill the process its pid file names, if that is still this folder's server
    with suppress(OSError, ValueError, IndexError):
        pid = int(pid_file.read_text().splitlines()[0])
        if str(data).encode() not in Path(f"/proc/{pid}/cmdline").read_bytes():
            return
        os.kill(pid, signal.SIGKILL)
        for _ in range(100):  # until it is gone (os.kill raises ProcessLookupError)
            os.kill(pid, 0)
            time.sleep(0.05)


def _tail(text: str, lines: int = _LOG_TAIL) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])
