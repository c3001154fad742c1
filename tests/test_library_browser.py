"""The Library page in Chromium: progress while drawn numbers are read, a failed upload keeps the form,
an identical re-upload changes nothing, the uploader names the real size limit."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from citation_core.material import ocr
from citation_core.material.uploads import Upload, add_upload
from tests.e2e.harness import choose_file, wait_idle
from tests.material_decks import build_decks

pytestmark = pytest.mark.skipif(ocr.ocr_unavailable() is not None, reason=f"OCR: {ocr.ocr_unavailable()}")

BAD_FAQ = b"- id: x\n  question: q\n"


def open_upload_form(page: Any, url: str) -> None:
    page.goto(f"{url}/library")
    page.get_by_text("Upload a deck").wait_for(timeout=60_000)
    wait_idle(page)
    page.get_by_text("Upload a deck").click()


def watch_progress(page: Any, done: Callable[[], bool], rounds: int = 1200) -> list[str]:
    """The texts of the progress bars seen (every 50 ms) until ``done()``."""
    seen: list[str] = []
    for _ in range(rounds):
        bars = page.locator("[data-testid=stProgress]")
        if bars.count():
            with contextlib.suppress(PlaywrightError):  # the bar went away while it was read
                seen.append(bars.first.inner_text(timeout=500))
        if done():
            break
        page.wait_for_timeout(50)
    wait_idle(page)
    return seen


def submit_and_watch(page: Any) -> list[str]:
    """Press "Add to library"; the texts of the progress bars seen until a new result shows."""
    alerts = page.locator("[data-testid=stAlert]")
    before = alerts.first.inner_text() if alerts.count() else None

    def answered() -> bool:
        with contextlib.suppress(PlaywrightError):
            return alerts.count() == 1 and alerts.first.inner_text(timeout=500) != before
        return False

    page.get_by_role("button", name="Add to library").click()
    return watch_progress(page, answered)


def alert(page: Any) -> str:
    alerts = page.locator("[data-testid=stAlert]")
    assert alerts.count() == 1
    return str(alerts.first.inner_text()).strip()


@pytest.mark.timeout(300)
def test_upload_with_progress_a_kept_form_and_an_identical_reupload(
    tmp_path: Path, start_app: Callable[..., str], new_page: Callable[..., tuple[Any, list[str]]]
) -> None:
    (deck,) = build_decks(tmp_path / "decks", ["fraction_bottom_right_images"])
    faq = tmp_path / "faqs.yml"
    faq.write_bytes(BAD_FAQ)
    url = start_app({"CITATION_STUDIO_LIBRARY": str(tmp_path / "library"),
                     ocr.CACHE_ENV: str(tmp_path / "ocr_cache")})
    page, errors = new_page(height=1200)
    open_upload_form(page, url)
    # the hint is the configured limit, under each of the three uploaders (read once the form is drawn whole:
    # the first run of a fresh server also reads the course and its statements for meaning)
    page.get_by_text("50MB per file").nth(2).wait_for(state="attached", timeout=30_000)
    assert page.get_by_text("50MB per file").count() == 3

    choose_file(page, 0, deck.path)
    choose_file(page, 2, faq)
    progress = submit_and_watch(page)
    assert alert(page) == "faqs.yml: [0].id: expected an integer, got 'x'"
    assert page.get_by_text("Fix the FAQ file (faqs.yml) and choose it again, or remove it. "
                            "The deck stays chosen.").count() == 1
    assert any("page" in text and f"of {len(deck.expected)}" in text for text in progress), progress
    chips = page.locator("[data-testid=stFileChip]")
    assert chips.count() == 2 and "faqs.yml" in chips.nth(1).inner_text()  # both files stay chosen

    # remove the bad FAQ file; the deck is still chosen: no "Choose a PDF first."
    chips.filter(has_text="faqs.yml").locator("button").click()
    wait_idle(page)
    assert page.locator("[data-testid=stFileChip]").count() == 1
    submit_and_watch(page)
    added = alert(page)
    assert added.startswith("Added “fraction bottom right images” to the course “My uploads”, lecture “Uploaded "
                            "decks” (unit 9001, 18 pages, language "), added
    assert added.endswith(", attachment version 1)."), added
    assert page.locator("[data-testid=stFileChip]").count() == 0  # a success clears the form

    choose_file(page, 0, deck.path)
    submit_and_watch(page)
    same = alert(page)
    assert same.startswith("“fraction bottom right images” in the course “My uploads”, lecture “Uploaded decks” is "
                           "unchanged: the deck is the same file as the stored one, so its version stays (unit 9001, "
                           "18 pages, language "), same
    assert errors == []


@pytest.mark.timeout(300)
def test_opening_the_library_reads_unread_decks_with_progress(
    tmp_path: Path, start_app: Callable[..., str], new_page: Callable[..., tuple[Any, list[str]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (deck,) = build_decks(tmp_path / "decks", ["lone_top_right_vectors"])
    monkeypatch.setenv(ocr.CACHE_ENV, str(tmp_path / "cache_of_the_upload"))
    add_upload(tmp_path / "library", Upload("vectors.pdf", deck.path.read_bytes()))
    url = start_app({"CITATION_STUDIO_LIBRARY": str(tmp_path / "library"),
                     ocr.CACHE_ENV: str(tmp_path / "cold_cache")})  # the app has not read it yet
    page, errors = new_page(height=1200)
    page.goto(f"{url}/library")
    seen = watch_progress(page, lambda: bool(page.get_by_text("Course", exact=True).count()))
    assert any("9001_vectors.pdf" in t and f"of {len(deck.expected)}" in t for t in seen), seen
    page.get_by_role("combobox", name="Course").click()
    page.get_by_role("option", name="My uploads (id 900)").click()
    wait_idle(page)
    assert page.get_by_text("(ocr)").count() >= 12
    assert errors == []
