"""The answer grows word by word on Ask while an OpenAI-compatible model writes it (a LocalChatServer on
127.0.0.1 that streams), half-written Markdown included, and the cited answer then takes its place."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.streaming import citation_reply, config_dir
from citation_core.llm.config import CONFIG_DIR_ENV, OVERRIDE_ENV
from citation_core.testing.server import ChatRequest, LocalChatServer, Reply

from .harness import console_errors, open_ask, wait_idle

pytestmark = pytest.mark.e2e

# an open code fence and half a table while it is written
ANSWER = ("Merge combines the two sorted halves step by step:\n\n```python\ndef merge(left, right):\n"
          "    out = []\n    while left and right:\n        out.append(min(left, right).pop(0))\n"
          "    return out + left + right\n```\n\n| step | cost |\n|---|---|\n| compare | 1 |\n| copy | 1 |\n\n"
          "Each step compares the heads and copies the smaller one, so merging takes linear time.")


def writer_streams(request: ChatRequest) -> Reply:
    messages = request.get("messages") or [{}]
    if "tutor for the course" in str(messages[0].get("content", "")):
        return Reply(content=ANSWER, first_token_delay=0.5, token_rate=12)
    return citation_reply(request)


@pytest.mark.timeout(300)
def test_the_draft_grows_while_the_model_writes_and_the_cited_answer_replaces_it(
        tmp_path: Path, start_app: Callable[..., str], new_page: Callable[..., tuple[Any, list[str]]]) -> None:
    with LocalChatServer(writer_streams) as srv:
        url = start_app({CONFIG_DIR_ENV: str(config_dir(srv.base_url, tmp_path / "config")), OVERRIDE_ENV: "local",
                         "CITATION_STUDIO_LIBRARY": str(tmp_path / "library")})
        page, errors = new_page(height=1100)
        console = console_errors(page)
        open_ask(page, url)
        page.get_by_label("Question").fill("How does merge combine the halves?")
        page.get_by_label("Question").blur()
        page.get_by_role("button", name="Ask", exact=True).click()
        writing = page.get_by_text("Writing · the citations are added when the answer is complete")
        writing.wait_for(timeout=60_000)
        reply = page.locator("[data-testid=stChatMessage]").last
        lengths: list[int] = []
        seen_open_fence = False
        while writing.count() and len(lengths) < 400:
            text = reply.inner_text()
            lengths.append(len(text))
            seen_open_fence |= "def merge" in text and "linear time" not in text
            page.wait_for_timeout(100)
        # the text grew in several steps while it was written, the code shown as code before the answer ended
        assert len({n for n in lengths if n}) >= 4, lengths
        assert seen_open_fence
        page.locator("[class*=st-key-msg-]").first.locator("button.cite-chip").first.wait_for(timeout=60_000)
        wait_idle(page)
        final = page.locator("[data-testid=stChatMessage]").last
        assert final.get_by_text("so merging takes linear time").count() == 1 and writing.count() == 0
        assert final.locator("pre code").count() >= 1 and final.locator("table").count() == 1
        writer = [r for r in srv.requests if "tutor for the course" in json.dumps(r.body)[:4000]]
        assert writer and writer[0].body.get("stream") is True
    assert errors == [] and console == []
