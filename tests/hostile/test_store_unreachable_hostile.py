"""A PostgreSQL store whose server never answers, or has stopped: one line, in seconds.

A host that accepts the TCP connection and then says nothing held the app for libpq's default of
130 s; every connection now gives up after the store's connect timeout (``storage.connect_timeout``,
or the URL's own ``connect_timeout``). Every failure of a read or a write is one ``RunError`` line
naming the setting and what is wrong, with the password masked.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest
import streamlit as st
import yaml
from streamlit.testing.v1 import AppTest

from citation_core.errors import ConfigError, RunError
from citation_core.lms.store import LmsStore
from citation_core.lms.store_url import store_url
from citation_core.testing.postgres import PostgresServer, find_bindir, running_postgres
from studio.settings import load_settings
from tests.conftest import ROOT

SECRET = "S3cr3tPw"


def read(markdown: str) -> str:
    """What a reader sees of Markdown the app escaped (``studio.text.md_escape``)."""
    return re.sub(r"\\(.)", r"\1", markdown)


@contextmanager
def silent_server() -> Iterator[int]:
    """A port of 127.0.0.1 where the connection is accepted (the kernel completes it) and nothing is ever said."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield int(listener.getsockname()[1])


@pytest.mark.timeout(30)  # libpq's own default would wait 130 s
def test_a_server_that_never_answers_is_given_up_after_the_connect_timeout() -> None:
    with silent_server() as port:
        url = store_url(f"postgresql://citation:{SECRET}@127.0.0.1:{port}/lms", field="CITATION_STUDIO_DB")
        with pytest.raises(RunError) as err:
            LmsStore(url, connect_timeout=2)
    assert str(err.value) == (f"CITATION_STUDIO_DB: postgresql+psycopg://citation:***@127.0.0.1:{port}/lms: "
                              "the database server did not answer within 2 s")


@pytest.mark.timeout(30)
def test_the_urls_own_connect_timeout_wins() -> None:
    with silent_server() as port:
        url = store_url(f"postgresql://citation@127.0.0.1:{port}/lms?connect_timeout=3", field="CITATION_STUDIO_DB")
        with pytest.raises(RunError) as err:
            LmsStore(url, connect_timeout=60)
    assert str(err.value).endswith(": the database server did not answer within 3 s")


def test_the_connect_timeout_is_a_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("CITATION_STUDIO_CONFIG_DIR", str(ROOT))
    app = yaml.safe_load((ROOT / "application.yml").read_text(encoding="utf-8"))
    assert load_settings().connect_timeout == app["storage"]["connect_timeout"] == 5
    monkeypatch.setenv("CITATION_STUDIO_CONFIG_DIR", str(tmp_path))
    (tmp_path / "llm_config.yml").write_text((ROOT / "llm_config.yml").read_text(encoding="utf-8"), encoding="utf-8")
    for value, accepted in ((3, True), (0, False), ("soon", False), (1.5, False), (True, False)):
        app["storage"]["connect_timeout"] = value
        (tmp_path / "application.yml").write_text(yaml.safe_dump(app), encoding="utf-8")
        if accepted:
            assert load_settings().connect_timeout == value
            continue
        with pytest.raises(ConfigError) as err:
            load_settings()
        assert str(err.value) == ("application.yml: storage.connect_timeout: expected a whole number of seconds, "
                                  f"at least 2 (not {value!r})")


class OwnServer:
    """A PostgreSQL server of one test alone, which the test may stop."""

    def __init__(self) -> None:
        self._running = ExitStack()

    def start(self) -> PostgresServer:
        return self._running.enter_context(running_postgres())

    def stop(self) -> None:
        """Stop the server (at once, as ``pg_ctl -m immediate`` does) and remove its folder."""
        self._running.close()


@pytest.fixture
def own_postgres() -> Iterator[OwnServer]:
    try:
        find_bindir()
    except RuntimeError as e:
        pytest.skip(str(e))
    server = OwnServer()
    try:
        yield server
    finally:
        server.stop()


def test_reads_and_writes_against_a_stopped_server_each_raise_one_line(own_postgres: OwnServer) -> None:
    pg = own_postgres.start()
    url = store_url(f"{pg.conninfo()}?password={SECRET}", field="CITATION_STUDIO_DB")
    store = LmsStore(url, connect_timeout=2)
    turn = store.save_turn("key", None, "How?", "Like this.", course_id=1, unit_id=101, title="How?")
    assert [m.content for m in store.messages(turn.conversation_id)] == ["How?", "Like this."]
    own_postgres.stop()

    calls: dict[str, Callable[[], object]] = {
        "conversations": lambda: store.conversations("key"),
        "messages": lambda: store.messages(turn.conversation_id),
        "last_message_id": lambda: store.last_message_id(turn.conversation_id),
        "save_turn": lambda: store.save_turn("key", turn.conversation_id, "And?", "Also.", course_id=1,
                                             unit_id=101, title="-"),
        "create_conversation": lambda: store.create_conversation("key", 1, 101, "t"),
        "add_message": lambda: store.add_message(turn.conversation_id, "user", "q"),
        "a new store": lambda: LmsStore(url, connect_timeout=2),
    }
    for name, call in calls.items():
        with pytest.raises(RunError) as err:
            call()
        assert str(err.value) == f"CITATION_STUDIO_DB: {url.shown}: the database server refused the connection", name
        assert SECRET not in str(err.value) and "password=***" in str(err.value)


def test_the_ask_page_says_in_one_line_that_the_store_went_away(own_postgres: OwnServer,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    pg = own_postgres.start()
    monkeypatch.setenv("CITATION_STUDIO_DB", f"{pg.conninfo()}?password={SECRET}")
    monkeypatch.setenv("CITATION_STUDIO_CONFIG_DIR", str(ROOT))
    monkeypatch.chdir(ROOT)
    st.cache_resource.clear()
    try:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        at.run()
        assert not at.exception and not at.error
        own_postgres.stop()
        at.run()
        assert not at.exception
        assert [read(e.value) for e in at.error] == [
            "The store is unavailable: CITATION_STUDIO_DB: the database server refused the connection. "
            "The server log has the details."]
    finally:
        st.cache_resource.clear()
