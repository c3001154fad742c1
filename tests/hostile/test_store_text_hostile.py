"""Text a store cannot keep: a lone surrogate (a model can stream ``\\ud800``) and NUL.

SQLite refused a lone surrogate with a raw UnicodeEncodeError and PostgreSQL refused NUL, and the turn
was lost; SQLite kept NUL, so the two stores differed. Both now keep the same turn: a lone surrogate
becomes U+FFFD, a NUL is removed, in the question, the answer, the title and the stored JSON, a
surrogate pair split in two pieces is joined again, the turn says what was cleaned, and nothing else
changes. The Ask page says so, and shows the answer as it was stored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from bench.streaming import citation_reply, config_dir
from citation_core.llm.config import CONFIG_DIR_ENV, OVERRIDE_ENV
from citation_core.lms.store import LmsStore
from citation_core.testing.server import ChatRequest, LocalChatServer, Reply
from tests.conftest import ROOT

QUESTION = "Why does merge\x00 sort split \ud800 the list?"


def read(markdown: str) -> str:
    """What a reader sees of Markdown the app escaped (``studio.text.md_escape``)."""
    return re.sub(r"\\(.)", r"\1", markdown)
ANSWER = "It splits\x00 the list \udfff in halves \ud83d" + "\ude00 and merges them (\u00fc, \u2211, \U0001f642)."
TITLE = "Why\ud800\x00?"
QUESTION_META = {"page": 6, "note\ud800": "a\x00b", "list": ["\udfff", 1.5, None, True]}
ANSWER_META = {"audits": [{"evidence": "x\ud800y", "verdict": "supported"}], "citations": 0}

STORED = [
    ("user", "Why does merge sort split \ufffd the list?",
     {"page": 6, "note\ufffd": "ab", "list": ["\ufffd", 1.5, None, True]}),
    ("assistant", "It splits the list \ufffd in halves \U0001f600 and merges them (\u00fc, \u2211, \U0001f642).",
     {"audits": [{"evidence": "x\ufffdy", "verdict": "supported"}], "citations": 0}),
]


def journey(store: LmsStore) -> tuple[tuple[str, ...], str, list[tuple[str, str, dict[str, Any]]]]:
    """A turn with text no store can keep, then a clean one; what the first turn said it cleaned and what is stored."""
    turn = store.save_turn("key", None, QUESTION, ANSWER, course_id=1, unit_id=101, title=TITLE,
                           question_meta=QUESTION_META, answer_meta=ANSWER_META)
    clean = store.save_turn("key", turn.conversation_id, "And?", "Also.", course_id=1, unit_id=101, title="-")
    assert clean.cleaned == () and (clean.question, clean.answer) == ("And?", "Also.")
    assert (turn.question, turn.answer) == (STORED[0][1], STORED[1][1])
    (conversation,) = store.conversations("key")
    messages = [(m.role, m.content, m.meta) for m in store.messages(turn.conversation_id)]
    return turn.cleaned, conversation.title, messages


def test_both_stores_keep_the_same_cleaned_turn(tmp_path: Path, postgres_url: str) -> None:
    on_sqlite = journey(LmsStore(tmp_path / "lms.sqlite3"))
    on_postgres = journey(LmsStore(postgres_url))
    assert on_sqlite == on_postgres
    cleaned, title, messages = on_sqlite
    assert cleaned == ("question", "answer", "title", "question_meta", "answer_meta")
    assert title == "Why\ufffd?"
    assert messages == [*STORED, ("user", "And?", {}), ("assistant", "Also.", {})]


def test_a_history_key_a_store_cannot_keep_is_refused_in_one_line(tmp_path: Path) -> None:
    from citation_core.errors import InputError

    store = LmsStore(tmp_path / "lms.sqlite3")
    for key in ("key\x00", "key\ud800"):
        with pytest.raises(InputError) as err:
            store.save_turn(key, None, "q", "a", course_id=1, unit_id=101, title="q")
        assert str(err.value) == "session_id: holds a NUL or a lone surrogate, which a store cannot keep"
    assert store.conversations() == []


WRITTEN = "Merge compares the heads \ud800 of both halves\x00 and copies the smaller one."


def writer_with_a_lone_surrogate(request: ChatRequest) -> Reply:
    messages = request.get("messages") or [{}]
    if "tutor for the course" in str(messages[0].get("content", "")):
        return Reply(content=WRITTEN, token_rate=400)
    return citation_reply(request)


@pytest.fixture
def isolated_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("CITATION_STUDIO_DB", str(tmp_path / "lms.sqlite3"))
    monkeypatch.setenv("CITATION_STUDIO_LIBRARY", str(tmp_path / "library"))
    monkeypatch.chdir(ROOT)
    st.cache_resource.clear()
    yield tmp_path / "lms.sqlite3"
    st.cache_resource.clear()


def test_the_ask_page_stores_a_streamed_lone_surrogate_cleaned_and_says_so(
        isolated_app: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with LocalChatServer(writer_with_a_lone_surrogate) as srv:
        monkeypatch.setenv(CONFIG_DIR_ENV, str(config_dir(srv.base_url, tmp_path / "config")))
        monkeypatch.setenv(OVERRIDE_ENV, "local")
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        at = AppTest.from_file(str(ROOT / "pages" / "ask.py"), default_timeout=120)
        at.run()
        assert not at.exception, at.exception
        at.text_area[0].input("How does merge combine the halves?")
        at.button[-1].click().run()  # the form's Ask button is rendered last in the form
        assert not at.exception, at.exception
        writer = [r for r in srv.requests if "tutor for the course" in json.dumps(r.body)[:4000]]
        assert writer and writer[0].body.get("stream") is True
    (conversation,) = LmsStore(isolated_app).conversations()
    question, answer = LmsStore(isolated_app).messages(conversation.id)
    assert answer.content.startswith("Merge compares the heads \ufffd of both halves and copies the smaller one.")
    # the placement model was asked (the prompt holding the answer could be sent) and its marker kept
    assert "[cite:" in answer.content
    placement = [r for r in srv.requests if "Paragraphs:" in json.dumps(r.body)[:20000]]
    assert placement and "\ufffd" in placement[0].body["messages"][0]["content"]
    assert [read(w.value) for w in at.warning if "could not be stored" in w.value] == [
        "Some characters of this turn could not be stored: each broken character (a lone surrogate) is shown "
        "as \ufffd and NUL characters were left out."]
