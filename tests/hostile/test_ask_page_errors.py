"""What goes wrong while a question is answered, on the Ask page: an error the library does not expect (a
bug) is one line and a log entry with its traceback, never Streamlit's exception box, and the page stays
usable; an answer whose stream was cut short says so beside it and in its trace."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import studio.services
from bench.streaming import config_dir
from citation_core.chat.chat_pipeline import ChatPipeline
from citation_core.llm.config import CONFIG_DIR_ENV, OVERRIDE_ENV
from citation_core.lms.store import LmsStore
from citation_core.testing import LocalChatServer, Reply, cooperative_handler
from studio.keys import W_ANSWER_VIEW, W_QUESTION
from tests.conftest import ROOT
from tests.hostile.test_stream_hostile import chunk


@pytest.fixture(autouse=True)
def isolated_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    db = tmp_path / "lms.sqlite3"
    monkeypatch.setenv("CITATION_STUDIO_DB", str(db))
    monkeypatch.chdir(ROOT)
    st.cache_resource.clear()
    yield db
    st.cache_resource.clear()


def test_an_unexpected_error_while_answering_is_one_line_and_a_log_entry(
        isolated_store: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    made = studio.services.chat_pipeline

    class WithABug:
        """The chat pipeline, with a bug deep inside: it fails after the first words of the answer."""

        def __init__(self, pipeline: ChatPipeline) -> None:
            self.pipeline = pipeline

        def cites_inline(self, variant: str = "default") -> bool:
            return self.pipeline.cites_inline(variant)

        def __call__(self, *a: Any, **k: Any) -> Any:
            k["on_delta"]("Merge sort ")
            if self.pipeline is not None:  # what a model's list as content once did deep inside the library
                raise TypeError('can only concatenate str (not "list") to str')
            return self.pipeline(*a, **k)

    def with_a_bug(*args: Any, **kwargs: Any) -> Any:
        return WithABug(made(*args, **kwargs))

    monkeypatch.setattr(studio.services, "chat_pipeline", with_a_bug)
    at = AppTest.from_file(str(ROOT / "pages" / "ask.py"), default_timeout=60)
    at.run()
    at.text_area(key=W_QUESTION).input("How does merging work?")
    with caplog.at_level(logging.ERROR):
        next(b for b in at.button if b.label == "Ask").click().run()
    assert not at.exception, at.exception  # no exception box
    (error,) = at.error
    shown = error.value.replace("\\", "")  # as it reads (the Markdown source escapes every mark)
    assert shown.startswith("The question could not be answered: internal error (TypeError: can only concatenate")
    assert "\n" not in shown and shown.endswith("The details are in the app's log.")
    (logged,) = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert logged.exc_info is not None and logged.exc_info[0] is TypeError
    assert "How does merging work?" in logged.getMessage()
    assert LmsStore(isolated_store).conversations() == []  # nothing half-stored
    at.run()  # the page works on
    assert not at.exception and not at.error


def asked_with_writer(reply: Reply, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    """The Ask page after one question whose writer replies ``reply`` (every other role: the cooperative test
    model), over real HTTP; nothing went wrong on the page."""
    others = cooperative_handler()
    with LocalChatServer(lambda r: reply if r.task == "writer" else others(r)) as srv:
        monkeypatch.setenv(CONFIG_DIR_ENV, str(config_dir(srv.base_url, tmp_path / "config")))
        monkeypatch.setenv(OVERRIDE_ENV, "local")
        at = AppTest.from_file(str(ROOT / "pages" / "ask.py"), default_timeout=60)
        at.run()
        at.text_area(key=W_QUESTION).input("How does merge sort split the list?")
        next(b for b in at.button if b.label == "Ask").click().run()
    assert not at.exception and not at.error, (at.exception, at.error)
    return at


def test_an_answer_whose_stream_stopped_early_says_so_beside_it_and_in_its_trace(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The model's stream stops without its end (no finish_reason, no [DONE]): the answer is stored and
    cited as far as it came, and the page says that it was cut, beside it and in the writer's trace."""
    body = b"".join(f"data: {json.dumps(chunk({'content': piece}))}\n\n".encode()
                    for piece in ("Merge sort", " splits the list", " into two halves."))
    at = asked_with_writer(Reply(raw_body=body), tmp_path, monkeypatch)
    (warning,) = [w.value.replace("\\", "") for w in at.warning if "cut short" in w.value]
    assert warning.startswith("This answer was cut short and is cited as far as it came: model local: the reply "
                              "stream ended without finish_reason or [DONE]")
    at.segmented_control(key=W_ANSWER_VIEW).set_value("Trace").run()
    shown = [e.value.replace("\\", "") for e in at.error]
    assert [e for e in shown if e.startswith("writer: model local: the reply stream ended without finish_reason")
            and e.endswith("→ the answer is the text before the cut, cited as it is")]


def test_an_answer_that_stopped_at_the_models_length_limit_says_so_beside_it_and_in_its_trace(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The model ran out of output tokens (finish_reason "length"): the answer is kept and cited as far as it
    came, and the page says that the model's length limit cut it, beside it and in the writer's trace."""
    at = asked_with_writer(Reply("Merge sort splits the list into two halves and", finish_reason="length"),
                           tmp_path, monkeypatch)
    (warning,) = [w.value.replace("\\", "") for w in at.warning if "cut short" in w.value]
    assert warning.startswith("This answer was cut short and is cited as far as it came: model local: the answer "
                              "was cut by the model's length limit")
    at.segmented_control(key=W_ANSWER_VIEW).set_value("Trace").run()
    shown = [e.value.replace("\\", "") for e in at.error]
    assert [e for e in shown if e.startswith("writer: model local: the answer was cut by the model's length limit")]
