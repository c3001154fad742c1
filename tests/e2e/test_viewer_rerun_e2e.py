"""Stepping through a deck redraws the viewer only: the conversation beside it is not sent again.

What the server sends is read from the page's websocket (Streamlit's protobuf messages carry the strings
of the elements they draw as UTF-8), so the test sees what a rerun costs the page, not how it looks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .harness import ask, caption_text, open_ask, wait_caption, wait_idle

pytestmark = pytest.mark.e2e

QUESTIONS = ("How does the merge procedure combine two sorted halves?", "Why is merge sort stable?",
             "What does the recursion tree of merge sort look like?")


def test_stepping_the_viewer_sends_only_the_viewer_and_keeps_the_chat(
    start_app: Callable[..., str], new_page: Callable[..., tuple[Any, list[str]]]
) -> None:
    url = start_app()
    page, errors = new_page()
    received: list[bytes] = []

    def listen(ws: Any) -> None:
        ws.on("framereceived", lambda frame: received.append(frame if isinstance(frame, bytes) else frame.encode()))

    page.on("websocket", listen)
    open_ask(page, url)
    for question in QUESTIONS:
        ask(page, question)
    answers = page.locator("[data-testid=stChatMessage]").count()
    assert answers == 2 * len(QUESTIONS)
    first = caption_text(page)

    for step, button in enumerate(("▶", "▶", "◀", "▶")):
        received.clear()
        page.get_by_role("button", name=button).click()
        wait_idle(page)
        caption = caption_text(page)
        sent = b"".join(received)
        assert caption.encode() in sent or caption.split("(")[0].strip().encode() in sent, (
            f"step {step}: the new caption {caption!r} was not among the frames read")
        for question in QUESTIONS:
            assert question.encode() not in sent, f"step {step}: the conversation was sent again with the viewer"
    assert caption != first

    # the chat is untouched, the URL follows the viewer and a reload opens the same slide
    assert page.locator("[data-testid=stChatMessage]").count() == answers
    page.reload()
    page.get_by_text("Ask about what you see").wait_for(timeout=60_000)
    wait_caption(page, caption)
    wait_idle(page)  # the viewer is drawn before the chat: counted once the run is over
    assert page.locator("[data-testid=stChatMessage]").count() == answers
    assert errors == []
