"""Text from a user, a slide or a model shows as written: an address in it is text, not a link (the Markdown
renderer links bare addresses on its own), and it copies exactly as it was typed."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from .harness import ask, open_ask, wait_idle

pytestmark = pytest.mark.e2e

QUESTION = ("How does merging work? My notes at https://example.com/merge_sort?step=2 and www.example.org "
            "(ask tutor@example.edu) say (http://x.test) more.")

SELECTED = """(el) => {
  const range = document.createRange();
  range.selectNodeContents(el);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  return selection.toString();
}"""


def test_an_address_in_a_question_is_shown_and_copied_as_typed_not_linked(
        start_app: Callable[..., str], new_page: Callable[..., tuple[Any, list[str]]], tmp_path: Any) -> None:
    page, errors = new_page(1280, 900)
    open_ask(page, start_app())
    ask(page, QUESTION)
    question = page.locator("[data-testid=stChatMessage]").nth(-2).get_by_test_id("stMarkdownContainer")
    assert question.locator("a").count() == 0, question.inner_html()
    assert question.inner_text().strip() == QUESTION
    assert question.evaluate(SELECTED).strip() == QUESTION  # what a reader copies
    page.evaluate("() => window.getSelection().removeAllRanges()")
    question.screenshot(path=str(tmp_path / "question_with_addresses.png"))
    # the conversation's entry in History names the question too
    page.get_by_text(re.compile(r"History \(\d+ conversations?\)")).click()
    wait_idle(page)
    entry = page.get_by_role("button").filter(has_text="How does merging work?").last
    assert "https://example.com" in entry.inner_text() and entry.locator("a").count() == 0
    page.screenshot(path=str(tmp_path / "ask_question_with_addresses.png"))
    assert errors == []
