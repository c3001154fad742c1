"""A unit's transcript in the running app: a deck uploaded through the Library, then a real English transcript
added to its unit on its own, replaced by a German one, and removed, each time without a PDF; every message
says what changed, and the Ask page, opened from the button under it, shows the unit with or without it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REAL_DIR
from tests.material_fixtures import GERMAN_VTT

from .harness import ROOT, choose, choose_file, wait_caption, wait_idle, wait_uploaded

pytestmark = pytest.mark.e2e

DECK = ROOT / "sample_decks" / "decks" / "hash_tables.pdf"  # its title: "Hash Tables"
REAL_SRT = REAL_DIR / "transcripts" / "en_google_PainlessPython_part1.srt"  # 919 cues of an English talk
UPLOADS = "My uploads (id 900)"
SHADOW_TEXT = """(selector) => [...document.querySelectorAll('*')].map(e => e.shadowRoot).filter(Boolean)
  .flatMap(r => [...r.querySelectorAll(selector)]).map(e => e.textContent)"""


def unit_tab(page: Any) -> Any:
    return page.get_by_role("tabpanel").filter(visible=True)


def change_transcript(page: Any, section: str, button: str, path: Path | None = None, confirm: str | None = None,
                      screenshot: Path | None = None) -> str:
    """In the open unit's tab: open ``section``, choose ``path`` (if any), press ``button`` (and confirm it when
    the page asks ``confirm``; the tab then shot to ``screenshot``); the message."""
    tab = unit_tab(page)
    tab.get_by_text(section).click()
    wait_idle(page)
    if path is not None:
        tab.locator("input[type=file]").set_input_files(str(path))
        name = json.dumps(path.name)  # the chip shortens long names; its title attribute holds the whole one
        wait_uploaded(tab.locator("[data-testid=stFileChip]").filter(
            has=page.locator(f"[data-testid=stFileChipName][title={name}]")).first)
        wait_idle(page)
    tab.get_by_role("button", name=button, exact=True).click()
    if confirm is not None:  # a destructive change asks first
        asked = tab.locator("[data-testid=stAlert]").filter(has_text=confirm)
        asked.wait_for(timeout=30_000)
        wait_idle(page)
        if screenshot is not None:
            tab.screenshot(path=str(screenshot))
        tab.get_by_role("button", name="Yes, remove it", exact=True).click()
        asked.wait_for(state="detached", timeout=60_000)
    said = unit_tab(page).locator("[data-testid=stAlert]")
    said.first.wait_for(timeout=60_000)
    wait_idle(page)
    assert said.count() == 1
    return str(said.first.inner_text()).strip()


def open_ask_from_the_message(page: Any) -> None:
    unit_tab(page).get_by_role("button", name="Ask about “Hash Tables”").click()
    page.get_by_text("Ask about what you see").wait_for(timeout=60_000)
    wait_idle(page)
    assert page.get_by_label("Course", exact=True).input_value() == UPLOADS
    assert page.get_by_label("Lecture unit").input_value() == "Uploaded decks › Hash Tables"


def back_to_the_library(page: Any) -> None:
    page.get_by_role("link", name="Library").click()
    page.get_by_text("Upload a deck").wait_for(timeout=60_000)
    wait_idle(page)
    choose(page, "Course", UPLOADS)


def transcript_shown(page: Any, first_words: str) -> None:
    """The Ask page shows the unit's transcript (it has no video) with these first words."""
    page.get_by_role("radio", name="Transcript", exact=True).click()
    wait_idle(page)
    wait_caption(page, "Transcript · opened at 0:00 · this unit has no video")
    page.wait_for_function(f"() => ({SHADOW_TEXT})('.transcript__cue').length > 0", timeout=15_000)
    cues = page.evaluate(f"() => ({SHADOW_TEXT})('.transcript__cue')")
    assert first_words in cues[0], cues[:2]


@pytest.mark.timeout(600)
def test_a_transcript_is_added_replaced_and_removed_on_its_own_and_ask_follows(
    tmp_path: Path, start_app: Callable[..., str], new_page: Callable[..., tuple[Any, list[str]]]
) -> None:
    german = tmp_path / "vorlesung.vtt"
    german.write_text(GERMAN_VTT, encoding="utf-8")
    url = start_app({"CITATION_STUDIO_LIBRARY": str(tmp_path / "library")})
    page, errors = new_page(height=1000)

    # a deck, uploaded as it always was
    page.goto(f"{url}/library")
    page.get_by_text("Upload a deck").wait_for(timeout=60_000)
    wait_idle(page)
    page.get_by_text("Upload a deck").click()
    choose_file(page, 0, DECK)
    page.get_by_text("Read from the deck:").wait_for(timeout=60_000)
    wait_idle(page)
    page.get_by_role("button", name="Add to library").click()
    page.locator("[data-testid=stAlert]").filter(has_text="Added “Hash Tables”").wait_for(timeout=60_000)
    wait_idle(page)
    assert page.get_by_role("tab", selected=True).inner_text().strip() == "Hash Tables"
    assert page.get_by_role("radio", name="Transcript").count() == 0

    # the real transcript, added to the unit on its own: no PDF chosen again
    assert change_transcript(page, "Add a transcript", "Add transcript", REAL_SRT) == (
        "Transcript en_google_PainlessPython_part1.srt added to unit 9001 “Hash Tables” (English, 919 cues).")
    assert unit_tab(page).get_by_text("Transcript 9001_hash_tables.srt · 919 cues").count() == 1
    open_ask_from_the_message(page)
    transcript_shown(page, "Martelli: When you typically")

    # replaced by a German one: said, with the deck's other language
    back_to_the_library(page)
    assert change_transcript(page, "Replace or remove the transcript", "Replace transcript", german) == (
        "Transcript vorlesung.vtt replaced the transcript of unit 9001 “Hash Tables” (German, 4 cues); the deck "
        "stays. Answers stored for the old transcript now show as stale.\n\n⚠ vorlesung.vtt: the transcript is in "
        "German, the deck of unit 9001 “Hash Tables” in English: answers quote each in its own language")
    open_ask_from_the_message(page)
    transcript_shown(page, "Heute geht es um Hashtabellen")

    # removed: the deck stays, and Ask shows the slides only
    back_to_the_library(page)
    assert change_transcript(page, "Replace or remove the transcript", "Remove transcript",
                             confirm="Remove the transcript 9001_hash_tables.vtt from unit 9001 “Hash Tables”?",
                             screenshot=tmp_path / "remove_transcript_asked.png") == (
        "Transcript 9001_hash_tables.vtt removed from unit 9001 “Hash Tables”; the deck stays. Answers stored "
        "earlier can no longer open the transcript they cite.")
    assert unit_tab(page).get_by_text("Add a transcript").count() == 1
    assert unit_tab(page).get_by_text("Deck 9001_hash_tables.pdf · 16 pages").count() == 1
    open_ask_from_the_message(page)
    wait_caption(page, "(page 1 of 16)")
    assert page.get_by_role("radio", name="Transcript").count() == 0
    assert page.get_by_role("radio", name="Slides", exact=True).count() == 1
    assert errors == []
