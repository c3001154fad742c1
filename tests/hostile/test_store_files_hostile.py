"""A store that is no database: a folder, a text file, a file under a file, a schema from a newer version.

Each is one line naming the setting and what is wrong (never a raw sqlite3 or Alembic exception), the
database is left as it was, and the app shows that line instead of an exception box.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
import streamlit as st
from streamlit.testing.v1 import AppTest

from citation_core.errors import RunError
from citation_core.lms.store import LmsStore
from citation_core.lms.store_url import store_url
from tests.conftest import ROOT

TEXT = "These are my lecture notes, not a database.\n"


def read(markdown: str) -> str:
    """What a reader sees of Markdown the app escaped (``studio.text.md_escape``)."""
    return re.sub(r"\\(.)", r"\1", markdown)


def folder(tmp_path: Path) -> Path:
    (tmp_path / "lms.sqlite3").mkdir()
    return tmp_path / "lms.sqlite3"


def text_file(tmp_path: Path) -> Path:
    (tmp_path / "lms.sqlite3").write_text(TEXT, encoding="utf-8")
    return tmp_path / "lms.sqlite3"


def under_a_file(tmp_path: Path) -> Path:
    (tmp_path / "data").write_text(TEXT, encoding="utf-8")
    return tmp_path / "data" / "lms.sqlite3"


def future_sqlite(tmp_path: Path) -> Path:
    path = tmp_path / "lms.sqlite3"
    LmsStore(path).save_turn("key", None, "How?", "Like this.", course_id=1, unit_id=101, title="How?")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE alembic_version SET version_num = '0099_future'")
    db.close()
    return path


FUTURE = ("its schema is revision '0099_future', which this version of Citation Studio does not know "
          "(it knows up to 0001): upgrade Citation Studio, or give another database")


@pytest.mark.parametrize(("make", "problem"), [
    (folder, "is a folder, not a SQLite database file"),
    (text_file, "is not a SQLite database file"),
    (under_a_file, "cannot be created: its folder is a file"),
    (future_sqlite, FUTURE),
])
def test_a_store_that_is_no_usable_database_is_one_line(tmp_path: Path, make: Callable[[Path], Path],
                                                          problem: str) -> None:
    path = make(tmp_path)
    before = sorted((p.name, p.is_dir() or p.read_bytes()) for p in tmp_path.rglob("*"))
    url = store_url(str(path), field="CITATION_STUDIO_DB")
    with pytest.raises(RunError) as err:
        LmsStore(url)
    assert str(err.value) == f"CITATION_STUDIO_DB: {path}: {problem}"
    assert err.value.__cause__ is None and err.value.__context__ is None
    assert sorted((p.name, p.is_dir() or p.read_bytes()) for p in tmp_path.rglob("*")) == before  # left as it was


def test_a_postgresql_database_of_a_newer_version_is_one_line_and_left_alone(postgres_url: str) -> None:
    LmsStore(postgres_url).save_turn("key", None, "How?", "Like this.", course_id=1, unit_id=101, title="How?")
    engine = sa.create_engine(postgres_url)
    try:
        with engine.begin() as db:
            db.exec_driver_sql("UPDATE alembic_version SET version_num = '0099_future'")
        url = store_url(postgres_url.replace("postgresql+psycopg://", "postgresql://"), field="storage.database")
        with pytest.raises(RunError) as err:
            LmsStore(url)
        assert str(err.value) == f"storage.database: {url.shown}: {FUTURE}"
        with engine.connect() as db:
            assert db.exec_driver_sql("SELECT version_num FROM alembic_version").all() == [("0099_future",)]
            assert db.exec_driver_sql("SELECT count(*) FROM messages").scalar() == 2
    finally:
        engine.dispose()


@pytest.fixture
def app_at(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CITATION_STUDIO_CONFIG_DIR", str(ROOT))
    st.cache_resource.clear()
    yield tmp_path
    st.cache_resource.clear()


@pytest.mark.parametrize(("make", "problem"), [
    (folder, "is a folder, not a SQLite database file"),
    (text_file, "is not a SQLite database file"),
    (future_sqlite, FUTURE),
])
def test_the_app_shows_the_line_and_no_exception_box(app_at: Path, monkeypatch: pytest.MonkeyPatch,
                                                      make: Callable[[Path], Path], problem: str) -> None:
    monkeypatch.setenv("CITATION_STUDIO_DB", str(make(app_at)))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception
    assert [read(e.value) for e in at.error] == [
        f"The store is unavailable: CITATION_STUDIO_DB: {problem}. The server log has the details."]
