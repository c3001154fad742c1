"""What only a browser shows: the theme follows the browser and can be switched, controls and tables stay whole in
narrow and wide windows, the Library keeps its open tab and its upload form fills in the unit from the chosen deck."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citation_core.material.uploads import Upload, add_upload

from .harness import ROOT, choose_file, clipped_by, luminance, open_ask, running_app, wait_idle

pytestmark = pytest.mark.e2e

HASH_TABLES = ROOT / "sample_decks" / "decks" / "hash_tables.pdf"
MERGE_SORT = ROOT / "sample_decks" / "decks" / "merge_sort.pdf"
MERGE_SORT_VTT = ROOT / "sample_decks" / "transcripts" / "merge_sort.vtt"
GERMAN = ROOT / "sample_decks" / "decks" / "binaere_suchbaeume.pdf"
UPLOADS = "My uploads (id 900)"
BACKGROUND = "() => getComputedStyle(document.querySelector('.stApp')).backgroundColor"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    tmp = tmp_path_factory.mktemp("windows")
    library = tmp / "library"
    add_upload(library, Upload("hash_tables.pdf", HASH_TABLES.read_bytes()))  # unit 9001
    # unit 9002: a deck with its transcript and no video, so its View control reads "Slides | Transcript"
    add_upload(library, Upload("merge_sort.pdf", MERGE_SORT.read_bytes()),
               Upload("merge_sort.vtt", MERGE_SORT_VTT.read_bytes()))
    with running_app({"CITATION_STUDIO_DB": str(tmp / "lms.sqlite3"), "CITATION_STUDIO_LIBRARY": str(library)}) as url:
        yield url, library


def page_luminance(page: Any) -> float:
    rgb = page.evaluate(BACKGROUND).removeprefix("rgb(").removesuffix(")").split(",")
    return luminance([float(c) for c in rgb[:3]])


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_the_theme_follows_the_browsers_preference(app: tuple[str, Path], new_page: Any, scheme: str) -> None:
    url, _ = app
    page, errors = new_page(width=800, height=800)
    page.emulate_media(color_scheme=scheme)
    open_ask(page, url)
    assert (page_luminance(page) < 0.2) == (scheme == "dark"), page.evaluate(BACKGROUND)
    assert errors == []


def test_the_menu_switches_the_theme_and_the_choice_stays(app: tuple[str, Path], new_page: Any) -> None:
    url, _ = app
    page, errors = new_page(width=800, height=800)
    page.emulate_media(color_scheme="light")
    open_ask(page, url)
    menu = page.get_by_test_id("stMainMenu")
    assert menu.is_visible() and clipped_by(page, menu) == [0, 0, 0, 0]
    menu.click()
    switch = page.get_by_test_id("stThemeSwitcher")
    assert [b.inner_text().strip().split("\n")[-1] for b in switch.get_by_role("menuitemradio").all()] == [
        "System", "Light", "Dark"]
    page.get_by_role("menuitemradio", name="Dark").click()
    page.wait_for_timeout(300)
    assert page_luminance(page) < 0.2
    page.reload()
    page.get_by_text("Ask about what you see").wait_for(timeout=60_000)
    wait_idle(page)
    assert page_luminance(page) < 0.2, "the choice outlives a reload"
    assert errors == []


def test_at_800_px_the_instructor_preview_switch_is_whole(app: tuple[str, Path], new_page: Any) -> None:
    url, _ = app
    page, errors = new_page(width=800, height=800)
    open_ask(page, url)
    label = page.locator(".st-key-w_preview [data-testid=stWidgetLabel] p")
    label.wait_for(timeout=30_000)
    page.wait_for_timeout(300)
    assert label.inner_text() == "Instructor preview"
    assert clipped_by(page, label) == [0, 0, 0, 0]
    for control in (page.locator(".st-key-w_preview [data-testid=stTooltipIcon]"),
                    page.locator(".st-key-w_mode button").last):
        assert clipped_by(page, control) == [0, 0, 0, 0]
    assert errors == []


@pytest.mark.parametrize("width", [1400, 800])
def test_the_view_control_shows_slides_and_transcript_whole(app: tuple[str, Path], new_page: Any, width: int) -> None:
    url, _ = app
    page, errors = new_page(width=width, height=800)
    page.goto(f"{url}/?course=900&unit=9002")
    page.get_by_text("Ask about what you see").wait_for(timeout=60_000)
    buttons = page.locator(".st-key-w_mode button")
    buttons.nth(1).wait_for(timeout=30_000)
    wait_idle(page)
    assert [b.inner_text().strip() for b in buttons.all()] == ["Slides", "Transcript"]
    for button in buttons.all():
        assert clipped_by(page, button) == [0, 0, 0, 0], button.inner_text()
        assert button.evaluate("el => el.scrollWidth <= el.clientWidth + 1"), button.inner_text()
    for control in (page.locator(".st-key-w_preview [data-testid=stWidgetLabel] p"),
                    page.locator(".st-key-w_preview [data-testid=stTooltipIcon]"),
                    page.locator("[data-testid=stSelectbox]").first):
        assert clipped_by(page, control) == [0, 0, 0, 0]
    assert errors == []


# The columns of the Chip preview's tables: which markers became chips, and the parsers' readings.
CHIP_COLUMNS = ("marker", "rendered as chip?", "reason", "ours", "as the Artemis client draws it", "same?")
READING_COLUMNS = ("parser", "type", "entity_id", "page", "start", "end", "keyword", "summary", "seq", "version",
                   "span")
BRACKETS = "[cite:L:101:4:::Fonts [and] more:Needs [Fira Sans] installed.:va1]"
NEWER = "[cite:L:101:6:::Merge:Merging places one element per step.:va2]"
LONG_WORD = "[cite:L:101:4:::**Link**:See_https://example.org/" + "a" * 160 + ":va1]"


def table_with(page: Any, header: str) -> Any:
    """The st.table whose header row has a column named ``header``."""
    return page.locator("[data-testid=stTable]").filter(
        has=page.locator("th", has_text=re.compile(f"^{re.escape(header)}$"))).first


def column_names(table: Any) -> list[str]:
    return [th.inner_text().strip() for th in table.locator("thead th").all()]


@pytest.mark.parametrize("width", [1400, 800])
def test_the_chip_preview_tables_show_every_column(app: tuple[str, Path], new_page: Any, width: int) -> None:
    url, _ = app
    page, errors = new_page(width=width, height=900)
    page.goto(f"{url}/chip_preview")
    page.get_by_text("What each parser reads").wait_for(timeout=60_000)
    page.locator("button.cite-chip").first.wait_for(timeout=30_000)
    wait_idle(page)
    for header, columns in (("rendered as chip?", CHIP_COLUMNS), ("entity_id", READING_COLUMNS)):
        table = table_with(page, header)
        table.wait_for(timeout=10_000)
        assert [c for c in column_names(table) if c] == list(columns)
        # nothing of the table is cut off or hidden in a scroll box without a scroll bar
        assert table.evaluate("el => el.scrollWidth <= el.clientWidth + 1"), header
        for th in table.locator("thead th").all():
            th.scroll_into_view_if_needed()
            assert sideways(page, th) == [0, 0], f"{header}: column {th.inner_text()!r}"
        for cell in table.locator("tbody tr td:last-child").all():
            cell.scroll_into_view_if_needed()
            assert sideways(page, cell) == [0, 0], f"{header}: {cell.inner_text()!r}"
    # every marker of the default text has its row, with the reason it stays text or what its version means
    rows = {tr.locator("td").first.inner_text().strip(): tr.inner_text()
            for tr in table_with(page, "rendered as chip?").locator("tbody tr").all()}
    assert "a field holds '[' or ']': stays text" in rows[BRACKETS]
    assert "another copy of the material, newer than this one" in rows[NEWER]
    assert "stale" not in rows[NEWER]

    # pasted text shows as written (no Markdown), and a long word wraps inside its cell instead of hiding in it
    page.get_by_label("Marker text").fill(f"Long.{LONG_WORD}")
    page.get_by_label("Marker text").press("Control+Enter")
    page.get_by_text("1 marker, 1 chip").wait_for(timeout=30_000)
    wait_idle(page)
    for header in ("rendered as chip?", "entity_id"):
        table = table_with(page, header)
        assert table.evaluate("el => el.scrollWidth <= el.clientWidth + 1"), header
        hidden = table.evaluate("el => [...el.querySelectorAll('td, td *')]"
                                ".filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)")
        assert hidden == [], header
    assert table_with(page, "rendered as chip?").locator("tbody td").first.inner_text().strip() == LONG_WORD
    assert errors == []


@pytest.mark.parametrize("width", [1280, 800])
def test_language_qa_shows_every_verdict_whole(app: tuple[str, Path], new_page: Any, width: int) -> None:
    url, _ = app
    page, errors = new_page(width=width, height=900)
    page.goto(f"{url}/language_qa")
    page.get_by_role("button", name="Run").wait_for(timeout=60_000)
    wait_idle(page)
    page.get_by_role("button", name="Run").click()
    tables = page.locator("[data-testid=stTable]")
    tables.nth(2).wait_for(timeout=120_000)
    wait_idle(page)
    for i in range(3):
        header = tables.nth(i).locator("th").filter(has_text="verdict")
        header.scroll_into_view_if_needed()
        assert sideways(page, header) == [0, 0], f"column {i}"
        cells = tables.nth(i).locator("tbody tr td:last-child")
        assert cells.count() >= 2
        for cell in cells.all():
            cell.scroll_into_view_if_needed()
            assert sideways(page, cell) == [0, 0], f"column {i}: {cell.inner_text()}"
            assert cell.evaluate("el => el.scrollWidth <= el.clientWidth + 1"), cell.inner_text()
    assert errors == []


def sideways(page: Any, locator: Any) -> list[float]:
    """How many pixels of ``locator`` are cut off on the left and on the right."""
    left, _, right, _ = clipped_by(page, locator)
    return [left, right]


def open_library_course(page: Any, url: str) -> None:
    page.goto(f"{url}/library")
    page.get_by_text("Upload a deck").wait_for(timeout=60_000)
    wait_idle(page)
    page.get_by_label("Course").click()
    page.get_by_role("option", name=UPLOADS).click()
    wait_idle(page)


def test_saving_an_edit_on_the_second_tab_stays_on_it(app: tuple[str, Path], new_page: Any) -> None:
    url, _ = app
    page, errors = new_page(width=1280, height=900)
    open_library_course(page, url)
    page.get_by_role("tab", name="merge sort").click()
    wait_idle(page)
    panel = page.get_by_role("tabpanel").filter(visible=True)
    panel.get_by_text("Edit name, lecture and language").click()
    # Enter submits the form (as its hint says); a click on Save right after typing is sometimes swallowed by
    # the browser side of Streamlit while the field commits its value on blur (no message reaches the server)
    panel.get_by_label("Unit name").fill("Merge sort, renamed")
    panel.get_by_label("Unit name").press("Enter")
    page.get_by_text("Saved unit 9002").wait_for(timeout=30_000)
    wait_idle(page)
    selected = page.get_by_role("tab", selected=True)
    assert selected.inner_text().strip() == "Merge sort, renamed"
    assert "unit 9002" in page.get_by_role("tabpanel").filter(visible=True).inner_text()
    assert errors == []


def test_the_upload_form_fills_in_the_unit_from_the_deck_and_names_the_course(
        app: tuple[str, Path], new_page: Any) -> None:
    url, library = app
    page, errors = new_page(width=1280, height=1000)
    page.goto(f"{url}/library")
    page.get_by_text("Upload a deck").wait_for(timeout=60_000)
    wait_idle(page)
    page.get_by_text("Upload a deck").click()
    choose_file(page, 0, GERMAN)
    page.get_by_text("Read from the deck:").wait_for(timeout=30_000)
    wait_idle(page)
    assert page.get_by_label("Unit name").input_value() == "Binäre Suchbäume"
    assert page.get_by_label("Lecture").input_value() == "Uploaded decks"
    assert page.get_by_role("combobox", name="Language").input_value() == "German (de)"
    page.get_by_label("Lecture").fill("Vorlesung 3")
    page.get_by_label("Lecture").press("Enter")
    wait_idle(page)
    page.get_by_role("button", name="Add to library").click()
    message = page.locator("[data-testid=stAlert]").filter(has_text="Added")
    message.wait_for(timeout=60_000)
    assert message.inner_text().strip() == (
        "Added “Binäre Suchbäume” to the course “My uploads”, lecture “Vorlesung 3” (unit 9003, 15 pages, "
        "language German (de), attachment version 1).")
    wait_idle(page)
    assert page.get_by_role("tab", selected=True).inner_text().strip() == "Binäre Suchbäume"
    assert errors == []
