"""The PostgreSQL test harness (``citation_core.testing.postgres``) runs a real server, and leaves nothing behind.

These tests need the PostgreSQL server programs (``.ci/run`` installs them) and psycopg; they skip without.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from citation_core.testing import postgres
from citation_core.testing.postgres import PostgresServer, find_bindir, running_postgres

psycopg = pytest.importorskip("psycopg")


def _installed() -> str | None:
    try:
        find_bindir()
    except RuntimeError as e:
        return str(e)
    return None


needs_postgres = pytest.mark.skipif(_installed() is not None, reason=_installed() or "")


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _server_pid(server: PostgresServer) -> int:
    return int((server.data_dir / "postmaster.pid").read_text().splitlines()[0])


def _gone(pid: int) -> bool:
    """No such process, or a zombie nobody reaped yet (a container's init may not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


def _assert_stopped_and_removed(server: PostgresServer, pid: int) -> None:
    assert not server.data_dir.parent.exists(), f"{server.data_dir.parent} was left behind"
    assert not _port_open(server.port), f"port {server.port} still answers"
    assert _gone(pid), f"the server process {pid} still runs"


def test_url_names_the_psycopg_driver_and_the_citation_database(postgres_server: PostgresServer) -> None:
    assert postgres_server.url == f"postgresql+psycopg://citation@127.0.0.1:{postgres_server.port}/citation"
    assert postgres_server.conninfo() == f"postgresql://citation@127.0.0.1:{postgres_server.port}/citation"


def test_it_is_a_real_server_that_keeps_what_one_connection_wrote_for_another(
        postgres_server: PostgresServer) -> None:
    with psycopg.connect(postgres_server.conninfo()) as conn:
        version = conn.execute("SELECT version()").fetchone()[0]
        assert "PostgreSQL" in version
        conn.execute("CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)")
        conn.execute("INSERT INTO notes (body) VALUES (%s), (%s)", ("Grüße", "second"))
    with psycopg.connect(postgres_server.conninfo()) as other:
        rows = other.execute("SELECT body FROM notes ORDER BY id").fetchall()
        assert rows == [("Grüße",), ("second",)]
        assert other.execute("SHOW server_encoding").fetchone()[0] == "UTF8"
        other.execute("DROP TABLE notes")


def test_sqlalchemy_connects_to_the_url_of_a_test_database(postgres_url: str) -> None:
    sqlalchemy = pytest.importorskip("sqlalchemy")
    engine = sqlalchemy.create_engine(postgres_url)
    try:
        with engine.begin() as conn:
            assert conn.execute(sqlalchemy.text("SELECT current_database()")).scalar() == postgres_url.rsplit("/")[-1]
            tables = conn.execute(sqlalchemy.text(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")).scalar()
            assert tables == 0
    finally:
        engine.dispose()


def test_new_databases_are_isolated_from_each_other(postgres_server: PostgresServer) -> None:
    suffix = os.urandom(4).hex()
    first = postgres_server.new_database(f"iso_a_{suffix}")
    second = postgres_server.new_database(f"iso_b_{suffix}")
    assert first != second
    assert first.startswith("postgresql+psycopg://") and first.endswith(f"/iso_a_{suffix}")
    with psycopg.connect(postgres_server.conninfo(f"iso_a_{suffix}"), autocommit=True) as a:
        a.execute("CREATE TABLE only_here (x int)")
        a.execute("INSERT INTO only_here VALUES (1)")
    with psycopg.connect(postgres_server.conninfo(f"iso_b_{suffix}")) as b:
        assert b.execute("SELECT to_regclass('only_here')").fetchone()[0] is None
    with pytest.raises(RuntimeError, match="already exists"):
        postgres_server.new_database(f"iso_a_{suffix}")
    with psycopg.connect(postgres_server.conninfo(f"iso_b_{suffix}")) as still_connected:
        postgres_server.drop_database(f"iso_b_{suffix}")  # ends the session still connected to it
        with pytest.raises(psycopg.OperationalError):
            still_connected.execute("SELECT 1")
    postgres_server.drop_database(f"iso_a_{suffix}")


@pytest.mark.parametrize("name", ["", "1abc", "a-b", "x; DROP DATABASE citation", "a" * 64])
def test_a_database_name_must_be_plain(postgres_server: PostgresServer, name: str) -> None:
    with pytest.raises(ValueError, match="plain database name"):
        postgres_server.new_database(name)


@needs_postgres
def test_two_servers_at_once_each_with_its_folder_and_port_are_gone_after_exit() -> None:
    """As pytest-xdist workers do: servers starting at the same time; each leaves nothing behind."""
    servers: list[tuple[PostgresServer, int]] = []
    errors: list[BaseException] = []
    release = threading.Event()

    def run() -> None:
        try:
            with running_postgres() as server:
                with psycopg.connect(server.conninfo()) as conn:
                    assert conn.execute("SELECT 1").fetchone() == (1,)
                servers.append((server, _server_pid(server)))
                release.wait(60)
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    try:
        for _ in range(600):
            if len(servers) + len(errors) == 2:
                break
            threading.Event().wait(0.1)
        assert not errors, errors
        (a, _), (b, _) = servers
        assert a.port != b.port and a.data_dir != b.data_dir
        assert _port_open(a.port) and _port_open(b.port)
    finally:
        release.set()
        for t in threads:
            t.join(60)
    assert not errors, errors
    for server, pid in servers:
        _assert_stopped_and_removed(server, pid)


@needs_postgres
def test_a_failure_inside_the_with_still_stops_the_server_and_removes_the_folder() -> None:
    with pytest.raises(KeyError, match="boom"), running_postgres() as server:
        pid = _server_pid(server)
        assert _port_open(server.port)
        raise KeyError("boom")
    _assert_stopped_and_removed(server, pid)


@pytest.fixture()
def given() -> Iterator[Path]:
    """A folder for ``running_postgres(folder)``: not pytest's ``tmp_path``, whose parents root keeps to itself
    (0700), while as root the server runs as another user, who must reach it."""
    folder = Path(tempfile.mkdtemp(prefix="citation-pg-given-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder)


@needs_postgres
def test_the_files_go_to_a_new_folder_in_the_folder_given_and_only_that_is_removed(given: Path) -> None:
    with running_postgres(given) as server:
        pid = _server_pid(server)
        assert server.data_dir.parent.parent == given
        assert (server.data_dir.parent / "server.log").is_file()
    _assert_stopped_and_removed(server, pid)
    assert given.is_dir() and not any(given.iterdir())


@needs_postgres
def test_a_server_that_does_not_start_raises_with_the_end_of_its_log(monkeypatch: pytest.MonkeyPatch,
                                                                       given: Path) -> None:
    monkeypatch.setattr(postgres, "SERVER_OPTIONS", postgres.SERVER_OPTIONS + " -c no_such_setting=1")
    with pytest.raises(RuntimeError, match="did not start") as raised, running_postgres(given):
        pytest.fail("the server started")
    assert "no_such_setting" in str(raised.value)  # the server's own words, from its log
    assert not any(given.iterdir())


def test_without_the_server_programs_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch,
                                                                      tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # neither pg_config nor initdb
    monkeypatch.setattr(postgres, "DEBIAN_BINDIRS", tmp_path / "none")
    with pytest.raises(RuntimeError, match="apt-get install postgresql") as raised, running_postgres():
        pytest.fail("a server started")
    assert str(raised.value) == postgres.NOT_INSTALLED


def test_the_newest_installed_version_is_found(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for version in ("9.6", "15", "16", "13"):
        bindir = tmp_path / version / "bin"
        bindir.mkdir(parents=True)
        for program in postgres.PROGRAMS:
            (bindir / program).write_text("#!/bin/sh\n")
            (bindir / program).chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(postgres, "DEBIAN_BINDIRS", tmp_path)
    assert find_bindir() == tmp_path / "16" / "bin"
