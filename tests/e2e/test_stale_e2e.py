"""Re-uploading a deck in the Library makes chips stored for the older version stale in the Ask page."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .harness import ROOT, ask, caption_text, choose_file, go_to_page, open_ask, wait_idle

pytestmark = pytest.mark.e2e

DECK = ROOT / "sample_decks" / "decks" / "hash_tables.pdf"
STALE_TEXT = "The material changed since this answer was written"


def upload(page: object, expect: str, deck: Path = DECK) -> None:
    page.get_by_role("link", name="Library").click()  # type: ignore[attr-defined]
    page.get_by_text("Upload a deck").click()  # type: ignore[attr-defined]
    choose_file(page, 0, deck)
    page.get_by_role("button", name="Add to library").click()  # type: ignore[attr-defined]
    page.get_by_text(expect).first.wait_for(timeout=60_000)  # type: ignore[attr-defined]
    wait_idle(page)


def test_reupload_makes_stored_chips_stale_and_their_click_opens_the_unit(
    tmp_path: Path, start_app: Callable[..., str], new_page: Callable[..., tuple[Any, list[str]]]
) -> None:
    url = start_app({"CITATION_STUDIO_LIBRARY": str(tmp_path / "lib")})
    page, errors = new_page()
    open_ask(page, url)
    upload(page, "attachment version 1")

    page.get_by_role("link", name="Ask").click()
    page.get_by_text("Ask about what you see").wait_for()
    page.get_by_label("Course").click()
    page.get_by_role("option", name="My uploads (id 900)").click()
    wait_idle(page)
    go_to_page(page, 5)
    ask(page, "What is a hash collision?")
    answer = page.locator("[data-testid=stChatMessage]").last
    answer.locator("button.cite-chip--slide").first.wait_for()
    assert answer.locator("button.cite-chip--stale").count() == 0

    changed = tmp_path / "changed" / DECK.name  # the same file name with other content: a new version
    changed.parent.mkdir()
    changed.write_bytes(DECK.read_bytes() + b"\n")
    upload(page, "attachment version 2", changed)
    page.get_by_role("link", name="Ask").click()
    page.get_by_text("Ask about what you see").wait_for()
    wait_idle(page)
    answer = page.locator("[data-testid=stChatMessage]").last
    stale = answer.locator("button.cite-chip--stale").first
    stale.wait_for(timeout=15_000)
    stale.hover()
    page.locator(".cite-tip").filter(has_text=STALE_TEXT).first.wait_for(state="visible")
    page.mouse.move(0, 0)

    go_to_page(page, 9)
    stale.click()
    # the viewer's own notice (a toast repeats it for a while)
    page.get_by_test_id("stAlertContentWarning").get_by_text(
        "This source changed since the answer was written").wait_for(timeout=15_000)
    # the unit opens at its start, not at the stale position (the caption is drawn after the notice)
    page.wait_for_function("() => document.querySelector('[data-testid=viewer-caption]')"
                           "?.innerText.includes('(page 1 of 16)')", timeout=15_000)
    assert "(page 1 of 16)" in caption_text(page)
    assert errors == []
