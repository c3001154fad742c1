"""History keys: random (192 bits), taken from the URL only in that form, never another history's list.

``history_key`` is the pure rule; the Ask page is driven through Streamlit's AppTest with a
``?history=`` value in its URL.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from citation_core.lms.store import LmsStore
from studio.services import history_key
from tests.conftest import ROOT

KEY_RE = re.compile(r"[A-Za-z0-9_-]{32}")


def test_a_new_key_is_32_url_safe_characters_and_never_repeats() -> None:
    keys = {history_key(None) for _ in range(2000)}
    assert len(keys) == 2000 and all(KEY_RE.fullmatch(k) for k in keys)
    # 192 random bits: "-" and "_" occur, which the check of the old 32-character form refused
    assert any("-" in k or "_" in k for k in keys)


@pytest.mark.parametrize("given", ["Ab-_" * 8, "0123456789abcdef" * 2, "Z" * 32])
def test_a_key_of_that_form_is_taken_as_is(given: str) -> None:
    assert history_key(given) == given


@pytest.mark.parametrize(
    "given",
    ["", "a" * 31, "a" * 33, "ä" * 32, "٣" * 32, "a" * 31 + "=", "a" * 31 + "/", "../" + "a" * 29,
     "a" * 31 + "\n", " " + "a" * 31, "a" * 32 + "&x=1"],
    ids=["empty", "31", "33", "umlauts", "arabic digits", "padding", "slash", "dots", "newline", "space", "more"],
)
def test_anything_else_gets_a_new_key(given: str) -> None:
    key = history_key(given)
    assert key != given and KEY_RE.fullmatch(key)


@pytest.fixture()
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LmsStore]:
    db = tmp_path / "lms.sqlite3"
    monkeypatch.setenv("CITATION_STUDIO_DB", str(db))
    monkeypatch.chdir(ROOT)
    st.cache_resource.clear()
    yield LmsStore(db)
    st.cache_resource.clear()


def ask_page(history: str | None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "ask.py"), default_timeout=60)
    if history is not None:
        at.query_params["history"] = history
    at.run()
    assert not at.exception, at.exception
    return at


def history_labels(at: AppTest) -> list[str]:
    return [e.label for e in at.expander if e.label.startswith("History")]


def test_the_ask_page_shows_the_history_of_a_well_formed_key_only(store: LmsStore) -> None:
    mine = "Ab-_" * 8  # a generated key may hold "-" and "_"
    store.save_turn(mine, None, "Mine?", "Yes.", course_id=1, unit_id=101, title="Mine?")
    store.save_turn("ä" * 32, None, "Theirs?", "No.", course_id=1, unit_id=101, title="Theirs?")

    at = ask_page(mine)
    assert at.session_state["session_id"] == mine
    assert history_labels(at) == ["History (1 conversation)"]
    assert [b.label for b in at.button if b.key and b.key.startswith("conv-")][0].startswith("Mine?")

    at = ask_page("ä" * 32)  # accepted by the old check (32 characters, all alphanumeric)
    key = at.session_state["session_id"]
    assert key != "ä" * 32 and KEY_RE.fullmatch(key)
    assert at.query_params["history"] == key  # the URL now carries the new key
    assert history_labels(at) == []  # a fresh key: no history, and never anyone else's

    at = ask_page(None)
    assert KEY_RE.fullmatch(at.session_state["session_id"]) and history_labels(at) == []


def test_asking_twice_saves_two_whole_turns_in_one_conversation_of_the_key(store: LmsStore) -> None:
    key = "Cd_-" * 8
    at = ask_page(key)
    for question in ("How does the merge procedure combine two sorted halves?", "And its cost?"):
        at.text_area[0].input(question)
        next(b for b in at.button if b.label == "Ask").click().run()
        assert not at.exception, at.exception
    (conv,) = store.conversations(key)
    assert conv.title == "How does the merge procedure combine two sorted halves?"
    assert [m.role for m in store.messages(conv.id)] == ["user", "assistant"] * 2
    assert store.conversations() == [conv]
