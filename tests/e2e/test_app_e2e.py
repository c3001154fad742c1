"""The running app in headless Chromium, as a newcomer uses it: ask, hover, click, jump."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from citation_core.contract import parse
from citation_core.lms.store import LmsStore

from .harness import (
    ask,
    caption_text,
    choose_unit,
    console_errors,
    go_to_page,
    open_ask,
    running_app,
    video_time,
    wait_idle,
)

pytestmark = pytest.mark.e2e

NewPage = Callable[..., tuple[Any, list[str]]]


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    db = tmp_path_factory.mktemp("lms") / "lms.sqlite3"
    with running_app({"CITATION_STUDIO_DB": str(db)}) as url:
        yield url, db


def last_answer(db: Path, session_question: str) -> str:
    store = LmsStore(db)
    for conv in store.conversations():
        msgs = store.messages(conv.id)
        for i, m in enumerate(msgs):
            if m.role == "user" and m.content == session_question:
                return msgs[i + 1].content
    raise AssertionError("answer not stored")


def chip_showing(page: Any, kind: str) -> Any:
    """The last answer's chip that opens a source of ``kind`` ("Slide", "Video"): a chip of its own, or a
    group paged (with the tooltip's "next" button) until the card shows such a member."""
    for wrap in page.locator("[data-testid=stChatMessage]").last.locator(".cite-chip-wrap").all():
        wrap.locator(".cite-chip").hover()
        tip = wrap.locator(".cite-tip")
        tip.wait_for(state="visible")
        for _ in range(12):
            if (tip.locator(".cite-tip__where").text_content() or "").startswith(kind):
                return wrap.locator(".cite-chip")
            step = tip.locator(".cite-tip__nav--next")
            if step.count() == 0 or step.is_disabled():
                break
            step.click()
        page.mouse.move(0, 0)
    raise AssertionError(f"no {kind} chip in the last answer")


def test_ask_hover_and_jump_to_the_slide_and_the_second(app: tuple[str, Path], new_page: NewPage) -> None:
    url, db = app
    page, errors = new_page()
    open_ask(page, url)
    go_to_page(page, 6)
    assert caption_text(page) == "Slide 4 (page 6 of 17)"
    question = "How does the merge procedure combine two sorted halves?"
    ask(page, question)
    stored = parse(last_answer(db, question), "stored")
    slide = next(m for m in stored if m.page)  # the first slide chip's
    video = next(m for m in stored if m.start)
    cited_page = f"(page {slide.page} of 17)"

    # hover: the tooltip shows the chip's summary
    chip = page.locator("button.cite-chip--slide").first
    chip.hover()
    tip = page.locator(".cite-tip").filter(has_text=slide.summary or "").first
    tip.wait_for(state="visible", timeout=5_000)

    # click a slide chip after moving away: the viewer opens the cited deck page
    page.mouse.move(0, 0)
    go_to_page(page, 9)
    assert slide.page != "9"  # the click has to move the viewer
    try:
        chip.click()
        page.wait_for_function("() => document.querySelector('[data-testid=viewer-caption]')"
                               f"?.innerText.includes('{cited_page}')", timeout=15_000)
    except Exception:
        page.screenshot(path="/tmp/shots/fail.png", full_page=True)
        raise
    assert caption_text(page).endswith(cited_page)

    # click a video chip: the player stands at the cited second
    start = int(video.start or 0)
    vchip = chip_showing(page, "Video")
    vchip.click()
    page.wait_for_selector("video", timeout=15_000)
    page.wait_for_function(f"() => Math.abs(document.querySelector('video')?.currentTime - {start}) < 1.5",
                           timeout=15_000)
    # scrub away, click the same chip again: it jumps back (once the click's rerun has drawn the player: a
    # rerun that lands after the scrub puts the player back at the chip's second, and the scrub is lost)
    wait_idle(page)
    page.evaluate("() => { document.querySelector('video').currentTime = 5; }")
    page.wait_for_function("() => document.querySelector('video').currentTime < 6", timeout=5_000)
    vchip = chip_showing(page, "Video")
    vchip.click()
    page.wait_for_function(f"() => Math.abs(document.querySelector('video')?.currentTime - {start}) < 1.5",
                           timeout=15_000)
    assert abs(video_time(page) - start) < 1.5

    # the history key is in the URL: a reload (or an app restart) shows the stored conversation again
    assert "history=" in page.url
    page.reload()
    page.get_by_text("Ask about what you see").wait_for()
    page.locator("[data-testid=stChatMessage]").last.locator("button.cite-chip").first.wait_for()
    page.get_by_text("History (1 conversation)", exact=True).click()
    assert page.get_by_role("button", name=re.compile("How does the merge procedure")).is_disabled()
    assert errors == []


def test_two_sessions_do_not_see_each_other(app: tuple[str, Path], new_page: NewPage) -> None:
    url, _ = app
    a, _ = new_page()
    b, _ = new_page()
    open_ask(a, url)
    open_ask(b, url)
    go_to_page(a, 6)
    choose_unit(b, "Lecture 2: Hashing › Hash Tables")
    go_to_page(b, 5)
    ask(a, "How does the merge procedure combine two sorted halves?")
    ask(b, "What is a hash collision?")
    text_a, text_b = a.inner_text("body"), b.inner_text("body")
    assert "hash collision" not in text_a and "merge procedure" not in text_b
    assert caption_text(a) == "Slide 4 (page 6 of 17)"
    assert re.search(r"\(page 5 of 16\)", caption_text(b))
    a.locator("button.cite-chip").first.wait_for()
    b.locator("button.cite-chip").first.wait_for()
    # each session's chips point into its own unit: hover a slide chip and read the unit row
    # (a group's first member may be an FAQ: its card is paged to a slide member)
    for page, unit in ((a, "Merge Sort and the Master Theorem"), (b, "Hash Tables")):
        chip_showing(page, "Slide")
        tip = page.locator(".cite-tip").filter(has_text="Unit").first
        tip.wait_for(state="visible")
        assert unit in tip.inner_text()
        page.mouse.move(0, 0)


def test_chip_preview_renders_every_vector_without_errors(app: tuple[str, Path], new_page: NewPage) -> None:
    url, _ = app
    page, errors = new_page()
    console = console_errors(page)
    page.goto(url)
    page.get_by_text("Ask about what you see").wait_for(timeout=60_000)
    # the Ask page's run is over and its slide image loaded: an image still loading when the page changes is
    # removed from the server's media files, and its request ends in a 404 that is not the Chip preview's
    wait_idle(page)
    page.wait_for_function("() => [...document.images].every((image) => image.complete)", timeout=30_000)
    page.get_by_role("link", name="Chip preview").click()
    page.get_by_text("Gallery of edge cases").wait_for(timeout=60_000)
    chips = page.locator("button.cite-chip")  # Playwright locators pierce the component's shadow roots
    for _ in range(120):
        if chips.count() >= 25:
            break
        page.wait_for_timeout(500)
    assert chips.count() >= 25
    assert page.locator(".cite-raw").count() == 0  # every candidate became a chip or plain text
    assert errors == [] and console == []


def test_a_deep_link_as_the_first_request_gets_the_whole_app(start_app: Callable[..., str], new_page: NewPage) -> None:
    url = start_app()
    page, errors = new_page()
    console = console_errors(page)
    page.goto(f"{url}/library")
    page.get_by_text("Upload a deck").wait_for(timeout=60_000)
    # the app's navigation is there (drawn with the page, possibly a moment after its first text)
    page.get_by_role("link", name="Chip preview").wait_for(timeout=30_000)
    assert page.get_by_role("link", name="Chip preview").count() == 1
    assert errors == [] and console == []
