"""An error the library does not expect (a bug) while a question is answered: the Ask page says so in one
line and logs it with its traceback, never showing Streamlit's exception box; the page stays usable."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import studio.services
from citation_core.chat.chat_pipeline import ChatPipeline
from citation_core.lms.store import LmsStore
from studio.keys import W_QUESTION
from tests.conftest import ROOT


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

    def with_a_bug(*args: Any, **kwargs: Any) -> Any:
        pipeline: ChatPipeline = made(*args, **kwargs)

        def answer(*a: Any, **k: Any) -> Any:
            k["on_delta"]("Merge sort ")
            if pipeline is not None:  # what a model's list as content once did deep inside the library
                raise TypeError('can only concatenate str (not "list") to str')
            return pipeline(*a, **k)

        return answer

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
