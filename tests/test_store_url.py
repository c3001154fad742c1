"""Where the store lives: a path, ``sqlite:///…`` or ``postgresql://…``; anything else one clear line."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from citation_core.errors import ConfigError
from citation_core.lms.store_url import store_url
from studio.settings import load_settings
from tests.conftest import ROOT


def test_paths_and_sqlite_urls_are_files(tmp_path: Path) -> None:
    assert store_url("data/lms.sqlite3", tmp_path).path == tmp_path / "data" / "lms.sqlite3"
    assert store_url(tmp_path / "a.db").path == tmp_path / "a.db"
    assert store_url("sqlite:///rel/lms.db", tmp_path).path == tmp_path / "rel" / "lms.db"
    absolute = store_url(f"sqlite:///{tmp_path}/abs.db", Path("/elsewhere"))
    assert absolute.path == tmp_path / "abs.db" and absolute.url == f"sqlite:///{tmp_path}/abs.db"
    assert store_url("C:/Users/x/lms.db").dialect == "sqlite"  # a drive letter is no scheme


def test_postgresql_urls_are_servers_and_their_passwords_stay_out_of_messages() -> None:
    url = store_url("postgresql://citation:s3cret@db.example:5433/lms")
    assert url.path is None and url.dialect == "postgresql"
    assert url.url == "postgresql+psycopg://citation:s3cret@db.example:5433/lms"
    assert "s3cret" not in url.shown and url.shown.startswith("postgresql+psycopg://citation:***@db.example")
    assert store_url("postgres://u@h/d").url == "postgresql+psycopg://u@h/d"


@pytest.mark.parametrize(("value", "message"), [
    ("mysql://u:pw@h/db", "CITATION_STUDIO_DB: 'mysql://u:***@h/db': mysql:// is not a supported store: give a file "
                          "path, sqlite:///path or postgresql://user@host/database"),
    ("postgresql:lms", "CITATION_STUDIO_DB: 'postgresql:lms': a PostgreSQL URL is postgresql://user@host/database"),
    ("postgresql://u:pw@host", "CITATION_STUDIO_DB: 'postgresql://u:***@host': the URL names no database "
                               "(postgresql://user@host/database)"),
    ("sqlite://", "CITATION_STUDIO_DB: 'sqlite://': a SQLite URL is sqlite:///relative/path or "
                  "sqlite:////absolute/path"),
    ("   ", "CITATION_STUDIO_DB: empty: give a file path, sqlite:///path or postgresql://user@host/database"),
])
def test_anything_else_is_one_line_naming_the_setting(value: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        store_url(value, field="CITATION_STUDIO_DB")
    assert str(err.value) == message


def test_settings_take_the_environment_over_application_yml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("CITATION_STUDIO_DB", "postgresql://a@b/c")
    assert load_settings().database.url == "postgresql+psycopg://a@b/c"
    monkeypatch.setenv("CITATION_STUDIO_DB", "ftp://x/y")
    with pytest.raises(ConfigError, match=r"^CITATION_STUDIO_DB: 'ftp://x/y': ftp:// is not a supported store"):
        load_settings()
    monkeypatch.delenv("CITATION_STUDIO_DB")
    assert load_settings().database.path == ROOT / "data" / "citation_studio.sqlite3"


@pytest.fixture
def app_at(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)  # where a wrongly taken URL would create its folder
    monkeypatch.setenv("CITATION_STUDIO_CONFIG_DIR", str(ROOT))
    st.cache_resource.clear()
    yield tmp_path
    st.cache_resource.clear()


def read(markdown: str) -> str:
    """What a reader sees of Markdown the app escaped (``studio.text.md_escape``)."""
    return re.sub(r"\\(.)", r"\1", markdown)


def test_the_app_starts_with_one_line_for_a_store_it_cannot_use(app_at: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``CITATION_STUDIO_DB=postgresql:…`` was once taken as a file path: the app created a folder
    "postgresql:" with a SQLite file in it and ran on that."""
    monkeypatch.setenv("CITATION_STUDIO_DB", "postgresql:citation:secret@localhost/lms")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception
    assert [read(e.value) for e in at.error] == [
        "The store is unavailable: CITATION_STUDIO_DB: a PostgreSQL URL is postgresql://user@host/database. "
        "The server log has the details."]
    assert list(app_at.iterdir()) == []  # no folder, no file


def test_the_app_says_in_one_line_when_the_server_cannot_be_reached(app_at: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITATION_STUDIO_DB", "postgresql://citation:secret@127.0.0.1:9/lms")  # port 9: discard
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception
    assert [read(e.value) for e in at.error] == [
        "The store is unavailable: CITATION_STUDIO_DB: the database server refused the connection. "
        "The server log has the details."]
