"""The store in the real app, in Chromium: a store it cannot use is one line for the visitor and the whole
line, credentials masked, in the server's log; an answer whose text a store cannot keep (a lone surrogate
streamed by the model) is shown as it was stored, and the page says why it differs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.streaming import citation_reply, config_dir
from citation_core.llm.config import CONFIG_DIR_ENV, OVERRIDE_ENV
from citation_core.lms.store import LmsStore
from citation_core.testing.server import ChatRequest, LocalChatServer, Reply

from .harness import ask, open_ask, running_app, wait_idle

pytestmark = pytest.mark.e2e

SECRET = "S3cr3tPw"


def test_a_store_that_refuses_is_one_line_for_the_visitor_and_masked_in_the_server_log(
        tmp_path: Path, new_page: Callable[..., tuple[Any, list[str]]]) -> None:
    log = tmp_path / "server.log"
    env = {"CITATION_STUDIO_DB": f"postgresql://citation@127.0.0.1:9/lms?sslmode=disable&password={SECRET}"}
    with running_app(env, log=log) as url:
        page, errors = new_page()
        page.goto(url)
        alert = page.get_by_text("The store is unavailable")
        alert.wait_for(timeout=60_000)
        wait_idle(page)
        assert alert.inner_text() == ("The store is unavailable: CITATION_STUDIO_DB: the database server refused the "
                                      "connection. The server log has the details.")
        html = page.content()
        assert SECRET not in html and "127.0.0.1:9" not in html and "stException" not in html
    logged = log.read_text(encoding="utf-8")
    assert SECRET not in logged
    assert ("CITATION_STUDIO_DB: postgresql+psycopg://citation@127.0.0.1:9/lms?password=***&sslmode=disable: "
            "the database server refused the connection") in logged
    assert errors == []


WRITTEN = "Merge compares the heads \ud800 of both halves and copies the smaller one into the output."


def writer_with_a_lone_surrogate(request: ChatRequest) -> Reply:
    messages = request.get("messages") or [{}]
    if "tutor for the course" in str(messages[0].get("content", "")):
        return Reply(content=WRITTEN, token_rate=40)
    return citation_reply(request)


@pytest.mark.timeout(300)
def test_an_answer_with_a_lone_surrogate_is_shown_as_stored_and_the_page_says_so(
        tmp_path: Path, start_app: Callable[..., str], new_page: Callable[..., tuple[Any, list[str]]]) -> None:
    with LocalChatServer(writer_with_a_lone_surrogate) as srv:
        url = start_app({CONFIG_DIR_ENV: str(config_dir(srv.base_url, tmp_path / "config")), OVERRIDE_ENV: "local",
                         "OPENAI_API_KEY": "test-key", "CITATION_STUDIO_LIBRARY": str(tmp_path / "library")})
        page, errors = new_page(1280, 1000)
        open_ask(page, url)
        ask(page, "How does merge combine the halves?")
        writer = [r for r in srv.requests if "tutor for the course" in json.dumps(r.body)[:4000]]
        assert writer and writer[0].body.get("stream") is True
    (conversation,) = LmsStore(tmp_path / "lms.sqlite3").conversations()
    _, answer = LmsStore(tmp_path / "lms.sqlite3").messages(conversation.id)
    assert "heads \ufffd of both halves" in answer.content
    body = page.locator("[data-testid=stChatMessage]").last.locator(".cite-answer__body")
    assert "Merge compares the heads \ufffd of both halves" in (body.text_content() or "")
    assert page.get_by_text("Some characters of this turn could not be stored").first.is_visible()
    assert errors == []
