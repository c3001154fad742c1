"""Long user journeys through the running app: many changes in a row, long conversations, reloads,
history across courses, stale sources, dark theme, an 800 px window.

One app for the module (its own database, library with one uploaded deck, and server log); each test
opens its own browser context, so sessions do not share state. The last test reads the server log:
a normal session leaves no warning in it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from citation_core.lms.render import MAX_ANSWER_CHARS
from citation_core.lms.store import LmsStore
from citation_core.material.uploads import Upload, add_upload

from .harness import (
    ROOT,
    ask,
    caption_text,
    choose,
    clipped_by,
    contrast,
    go_to_page,
    history_of,
    log_warnings,
    open_ask,
    running_app,
    wait_caption,
    wait_idle,
)

pytestmark = pytest.mark.e2e

NewPage = Callable[..., tuple[Any, list[str]]]
DECK = ROOT / "sample_decks" / "decks" / "hash_tables.pdf"
ALGORITHMS = "Algorithms and Data Structures (id 1)"
UPLOADS = "My uploads (id 900)"
MERGE = "Lecture 1: Divide and Conquer › Merge Sort and the Master Theorem"
HASHING = "Lecture 2: Hashing › Hash Tables"
TREES = "Vorlesung 3: Binäre Suchbäume › Binäre Suchbäume"
QUESTIONS = [
    "How does the merge procedure combine two sorted halves?",
    "What does the master theorem say?",
    "Why is merge sort in Theta of n log n?",
    "What happens in the divide step?",
    "How deep is the recursion tree?",
    "What is the base case of merge sort?",
]


@dataclass(frozen=True)
class App:
    url: str
    db: Path
    library: Path
    log: Path


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    tmp = tmp_path_factory.mktemp("journeys")
    library = tmp / "library"
    add_upload(library, Upload("hash_tables.pdf", DECK.read_bytes()))  # course 900, unit 9001
    db, log = tmp / "lms.sqlite3", tmp / "server.log"
    with running_app({"CITATION_STUDIO_DB": str(db), "CITATION_STUDIO_LIBRARY": str(library)}, log=log) as url:
        yield App(url, db, library, log)


def selected(page: Any, label: str) -> str:
    """The option the select box labelled ``label`` shows."""
    return str(page.get_by_label(label, exact=True).input_value())


def heading(page: Any) -> str:
    """The open unit's name, the viewer's heading (the page's first)."""
    return str(page.locator("[data-testid=stMain] h3").first.inner_text())


def viewer_image(page: Any) -> Any:
    return page.locator("[data-testid=stMain] [data-testid=stImage] img").first


def last_answer(page: Any) -> Any:
    return page.locator("[data-testid=stChatMessage]").last


def hover_tip(page: Any, chip: Any) -> Any:
    chip.hover()
    tip = page.locator(".cite-tip").filter(visible=True).first
    tip.wait_for(state="visible", timeout=5_000)
    page.wait_for_timeout(200)  # the fade-in
    return tip


def away(page: Any) -> None:
    page.mouse.move(1, 1)
    page.wait_for_timeout(200)


def store_turns(app: App, page: Any, turns: list[tuple[str, str]], *, course: int, unit: int, page_no: int) -> int:
    """Conversations written straight into the LMS store under the page's history key (as an older
    version of the app or another client could have left them); returns the conversation id."""
    store = LmsStore(app.db)
    key, conv = history_of(page), None
    for question, answer in turns:
        conv = store.save_turn(key, conv, question, answer, course_id=course, unit_id=unit, title=question[:80],
                               question_meta={"unit": unit, "page": page_no, "second": None}).conversation_id
    assert conv is not None
    return conv


def from_history(page: Any, title: str) -> None:
    """Open the History list (unless it is open) and the conversation whose title starts with ``title``."""
    button = page.get_by_role("button", name=re.compile(re.escape(title)))
    if not button.is_visible():
        page.get_by_text(re.compile(r"^History \(")).click()
    button.click()
    wait_idle(page)


def reopen(page: Any, app: App) -> None:
    """The app opened afresh with only the history key in the URL (a bookmark, another tab)."""
    page.goto(f"{app.url}/?history={history_of(page)}")
    page.get_by_text("Ask about what you see").wait_for(timeout=60_000)
    wait_idle(page)


def in_view(page: Any, locator: Any) -> bool:
    box = locator.bounding_box()
    size = page.viewport_size
    return bool(box) and box["y"] >= 0 and box["y"] + box["height"] <= size["height"] and box["x"] >= 0 \
        and box["x"] + box["width"] <= size["width"]


def header_bottom(page: Any) -> float:
    box = page.locator("[data-testid=stHeader]").bounding_box()
    return float(box["y"] + box["height"]) if box else 0.0


def toast(page: Any, text: str) -> Any:
    found = page.locator("[data-testid=stToast]").filter(has_text=text).first
    found.wait_for(state="visible", timeout=10_000)
    return found


# ---- 1: every choice takes, however many in a row, and survives another page ----------------------


def test_every_choice_takes_many_in_a_row_and_survives_another_page(app: App, new_page: NewPage) -> None:
    page, errors = new_page()
    open_ask(page, app.url)
    for unit, name in ((HASHING, "Hash Tables"), (TREES, "Binäre Suchbäume"), (MERGE, "Merge Sort and the Master "
                       "Theorem"), (HASHING, "Hash Tables"), (TREES, "Binäre Suchbäume")):
        choose(page, "Lecture unit", unit)
        assert heading(page) == name, f"the unit change to {name} did not take"
    for course, name in ((UPLOADS, "hash tables"), (ALGORITHMS, "Merge Sort"), (UPLOADS, "hash tables")):
        choose(page, "Course", course)
        assert name.lower() in heading(page).lower()
    choose(page, "Course", ALGORITHMS)
    choose(page, "Lecture unit", TREES)
    page.get_by_role("radio", name="Video", exact=True).click()
    wait_idle(page)
    assert "Video" in caption_text(page)
    page.get_by_role("radio", name="Slides", exact=True).click()
    wait_idle(page)
    for target in (3, 5, 2, 7):
        choose(page, "Slide", next(o for o in page_options(page) if f"(page {target} of" in o))
        assert f"(page {target} of 15)" in caption_text(page)
    for language in ("Deutsch (de)", "Français (fr)", "Español (es)"):
        choose(page, "Answer language", language)
        assert selected(page, "Answer language") == language

    page.get_by_role("link", name="Library").click()
    page.get_by_text("Upload a deck").wait_for(timeout=60_000)
    page.get_by_role("link", name="Ask").click()
    page.get_by_text("Ask about what you see").wait_for(timeout=60_000)
    wait_idle(page)
    assert heading(page) == "Binäre Suchbäume"
    assert "(page 7 of 15)" in caption_text(page)
    assert selected(page, "Answer language") == "Español (es)"
    assert errors == []


def page_options(page: Any) -> list[str]:
    page.get_by_label("Slide").click()
    options = [str(o) for o in page.get_by_role("option").all_inner_texts()]
    page.keyboard.press("Escape")
    return options


# ---- 2: history across courses; chips only move within their own unit -------------------------------


def test_history_from_another_course_opens_where_it_was_asked(app: App, new_page: NewPage) -> None:
    page, errors = new_page()
    open_ask(page, app.url)
    choose(page, "Course", UPLOADS)
    go_to_page(page, 5)
    ask(page, "What is a hash collision?")
    last_answer(page).locator("button.cite-chip--slide").first.wait_for()

    page.reload()
    page.get_by_text("Ask about what you see").wait_for(timeout=60_000)
    wait_idle(page)
    choose(page, "Course", ALGORITHMS)
    assert "(page 1 of 17)" in caption_text(page)
    from_history(page, "What is a hash collision")
    wait_caption(page, "(page 5 of 16)")
    assert selected(page, "Course") == UPLOADS
    chip = last_answer(page).locator("button.cite-chip--slide").first
    tip = hover_tip(page, chip)
    assert "not found" not in tip.inner_text() and "hash tables" in tip.inner_text()
    away(page)
    go_to_page(page, 9)
    chip.click()
    wait_idle(page)
    page.wait_for_function("() => !document.querySelector('[data-testid=viewer-caption]')"
                           "?.innerText.includes('(page 9 of 16)')", timeout=15_000)
    assert re.search(r"\(page \d+ of 16\)", caption_text(page)), "the chip stays in its own unit and course"
    assert selected(page, "Course") == UPLOADS
    assert errors == []


def test_a_chip_of_a_deleted_unit_is_not_clickable_and_never_moves_the_viewer(app: App, new_page: NewPage) -> None:
    page, errors = new_page()
    open_ask(page, app.url)
    store_turns(app, page, [("Where was the deleted deck?",
                             "It was here.[cite:L:9003:5:::Deleted deck:This unit was removed.:va1]")],
                course=900, unit=9001, page_no=2)
    reopen(page, app)  # the newest conversation of the history opens where it was asked
    wait_caption(page, "(page 2 of 16)")
    chip = last_answer(page).locator("button.cite-chip").first
    assert chip.get_attribute("aria-disabled") == "true"
    tip = hover_tip(page, chip)
    assert "Unit 9003 (not found)" in tip.inner_text()
    assert "not in this course" in tip.inner_text()
    chip.click(force=True)
    page.wait_for_timeout(1_500)
    wait_idle(page)
    assert "(page 2 of 16)" in caption_text(page)
    assert page.locator("[data-testid=stToast]").count() == 0
    assert errors == []


# ---- 3: the viewer stays in sight after a long conversation -----------------------------------------


@pytest.mark.parametrize("width", [1280, 800])
def test_after_six_questions_a_chip_click_shows_the_cited_slide_in_sight(app: App, new_page: NewPage,
                                                                         width: int) -> None:
    page, errors = new_page(width=width, height=800)
    open_ask(page, app.url)
    go_to_page(page, 6)
    for question in QUESTIONS:
        ask(page, question)
    go_to_page(page, 1)
    # the lowest slide chip of the conversation (an answer may lead with an FAQ chip that groups the rest)
    chip = page.locator("[data-testid=stChatMessage] button.cite-chip--slide").last
    chip.scroll_into_view_if_needed()
    cited = (chip.get_attribute("aria-label") or "").split(", ")[1]  # "slide 4"
    chip.click()
    wait_caption(page, f"{cited.capitalize()} (page ")
    image = viewer_image(page)
    image.wait_for()
    assert in_view(page, image), f"the cited slide is off screen at {width} px: {image.bounding_box()}"
    assert in_view(page, page.get_by_test_id("viewer-caption"))
    assert errors == []


# ---- 4: a reload keeps the conversation, its position and its views ----------------------------------


def test_a_reload_shows_the_last_conversation_where_it_was_with_its_views(app: App, new_page: NewPage) -> None:
    page, errors = new_page()
    open_ask(page, app.url)
    go_to_page(page, 6)
    ask(page, QUESTIONS[0])
    go_to_page(page, 8)
    page.reload()
    page.get_by_text("Ask about what you see").wait_for(timeout=60_000)
    wait_idle(page)
    assert page.locator("[data-testid=stChatMessage]").count() == 2
    last_answer(page).locator("button.cite-chip").first.wait_for(timeout=15_000)
    assert "(page 8 of 17)" in caption_text(page)

    def views_work() -> None:
        page.get_by_role("radio", name="Trace", exact=True).click()
        wait_idle(page)
        lecture = page.locator("[data-testid=stExpander]").filter(has_text="lecture pass ·").first
        lecture.get_by_text(re.compile(r"^lecture pass")).click()
        lecture.get_by_text("Used sequence numbers").first.wait_for(timeout=10_000)
        page.get_by_role("radio", name="Raw answer", exact=True).click()
        wait_idle(page)
        page.locator("[data-testid=stCode]").filter(has_text=":va1]").first.wait_for(timeout=10_000)
        page.get_by_role("radio", name="Sources list", exact=True).click()
        wait_idle(page)
        page.get_by_text("Sources:").first.wait_for(timeout=10_000)

    views_work()
    # a new conversation, then the first one again from History: its views are still there
    page.get_by_text(re.compile(r"^History \(")).click()
    page.get_by_role("button", name="New conversation").click()
    wait_idle(page)
    assert page.locator("[data-testid=stChatMessage]").count() == 0
    from_history(page, "How does the merge procedure")
    wait_caption(page, "(page 6 of 17)")  # where it was asked
    views_work()
    assert errors == []


# ---- 5: a video chip plays ------------------------------------------------------------------------


def test_a_video_chip_plays_from_its_start(app: App, new_page: NewPage) -> None:
    page, errors = new_page()
    open_ask(page, app.url)
    page.get_by_role("radio", name="Video", exact=True).click()
    wait_idle(page)
    page.get_by_label("Open at second").fill("120")
    page.get_by_label("Open at second").press("Enter")
    wait_idle(page)
    ask(page, "How does the merge step place one element per comparison?")
    chip = last_answer(page).locator("button.cite-chip--video").first
    tip = hover_tip(page, chip)
    start = tip.locator(".cite-tip__hint").inner_text().removeprefix("Click to play from ")
    minutes, seconds = start.split(":")
    second = int(minutes) * 60 + int(seconds)
    away(page)
    chip.click()
    page.wait_for_function(f"() => {{ const v = document.querySelector('video'); return v && !v.paused"
                           f" && v.currentTime >= {second - 1}; }}", timeout=20_000)
    state = page.evaluate("() => { const v = document.querySelector('video');"
                          " return {paused: v.paused, muted: v.muted, t: v.currentTime}; }")
    assert state["paused"] is False and state["muted"] is True
    assert second - 1 <= state["t"] <= second + 10
    assert "playing from" in caption_text(page)
    assert errors == []


# ---- 8: current, changed and gone are three outcomes ------------------------------------------------


def test_current_changed_and_gone_chips_each_do_their_own_thing(app: App, new_page: NewPage) -> None:
    page, errors = new_page()
    open_ask(page, app.url)
    filler = "Merge sort splits, sorts and merges. " * 40
    answer = (f"{filler}\n\nCurrent.[cite:L:201:5:::Exact slide:Still the same deck.:va1]\n\n"
              f"Changed.[cite:L:201:6:::Older deck:Cited in deck version 0.:va0]\n\n"
              f"Gone.[cite:L:201::30:40:Removed video:The unit has no video any more.:vt1]")
    store_turns(app, page, [(f"Question {i}", answer) for i in range(4)], course=1, unit=101, page_no=9)
    reopen(page, app)
    wait_caption(page, "(page 9 of 17)")
    last = last_answer(page)

    current = last.locator(".cite-chip-wrap", has=page.locator(".cite-chip__label", has_text="Exact slide"))
    assert "cite-chip--stale" not in (current.locator("button").get_attribute("class") or "")
    current.locator("button").click()
    wait_caption(page, "(page 5 of 16)")
    assert page.locator(".st-key-viewer [data-testid=stAlert]").count() == 0

    changed = last.locator(".cite-chip-wrap", has=page.locator(".cite-chip__label", has_text="Older deck"))
    tip = hover_tip(page, changed.locator("button"))
    assert "The material changed since this answer was written" in tip.inner_text()
    away(page)
    go_to_page(page, 9)
    changed.locator("button").scroll_into_view_if_needed()
    changed.locator("button").click()
    notice = toast(page, "This source changed since the answer was written")
    assert in_view(page, notice), "the notice shows where the user is looking"
    wait_caption(page, "(page 1 of 16)")
    page.locator(".st-key-viewer [data-testid=stAlert]").filter(has_text="changed").first.wait_for()

    gone = last.locator(".cite-chip-wrap", has=page.locator(".cite-chip__label", has_text="Removed video"))
    assert "cite-chip--gone" in (gone.locator("button").get_attribute("class") or "")
    tip = hover_tip(page, gone.locator("button"))
    assert "The cited video no longer exists" in tip.inner_text()
    away(page)
    go_to_page(page, 4)
    gone.locator("button").scroll_into_view_if_needed()
    gone.locator("button").click()
    notice = toast(page, "no longer exists")
    assert in_view(page, notice)
    wait_caption(page, "(page 1 of 16)")
    alert = page.locator(".st-key-viewer [data-testid=stAlert]").filter(has_text="no longer exists").first
    alert.wait_for()
    assert "stAlertContentError" in alert.inner_html()
    assert errors == []


# ---- 9: the chip preview ---------------------------------------------------------------------------

LONG_SUMMARY = ("A very long summary that goes on and on about merging two sorted halves. " * 28)[:2000]


def test_chip_preview_caps_tooltips_keeps_them_inside_and_says_what_became_a_chip(
        app: App, new_page: NewPage) -> None:
    page, errors = new_page(width=800, height=800)
    page.goto(f"{app.url}/chip_preview")
    page.get_by_text("What each parser reads").wait_for(timeout=60_000)
    wait_idle(page)
    caption = page.get_by_text(re.compile("parsers' readings")).first.inner_text()
    shown = len(page.get_by_text(re.compile(r"^(iris|server|client|stored) · ")).all())
    assert f"the {shown} parsers" in caption, caption

    text = " ".join(f"Word {i} is here.[cite:L:101:{i % 17 + 1}:::K{i}:Summary {i}.:va1]" for i in range(24))
    text += f" Long.[cite:L:101:4:::Long:{LONG_SUMMARY}:va1] Broken.[cite:L:101:4:::A:B][cite:L:101:oops]"
    page.get_by_label("Marker text").fill(text)
    page.get_by_label("Marker text").press("Control+Enter")
    wait_idle(page)
    chips = page.locator(".cite-answer button.cite-chip")
    page.wait_for_function("() => true")
    chips.nth(24).wait_for()
    long_tip = hover_tip(page, page.locator("button.cite-chip", has=page.locator(".cite-chip__label",
                                                                                  has_text="Long")).first)
    assert long_tip.bounding_box()["height"] <= 420
    assert clipped_by(page, long_tip) == [0, 0, 0, 0]
    away(page)
    boxes = [chips.nth(i).bounding_box() for i in range(24)]
    rightmost = max(range(24), key=lambda i: boxes[i]["x"] + boxes[i]["width"])
    assert boxes[rightmost]["x"] + boxes[rightmost]["width"] > 700
    tip = hover_tip(page, chips.nth(rightmost))
    assert clipped_by(page, tip) == [0, 0, 0, 0]
    away(page)

    # a chip a little below the top bar, with room for its card above it only if the bar were not
    # there: the card opens below the chip rather than under the bar
    first = chips.nth(0)
    page.mouse.move(400, 780)
    for _ in range(80):
        if first.bounding_box()["y"] < header_bottom(page) + 180:
            break
        page.mouse.wheel(0, 20)
        page.wait_for_timeout(50)
    assert header_bottom(page) + 120 < first.bounding_box()["y"] < header_bottom(page) + 180
    tip = hover_tip(page, first)
    assert tip.bounding_box()["y"] >= header_bottom(page) - 1
    away(page)

    page.get_by_text("Which markers became chips", exact=True).wait_for()
    table = page.locator("[data-testid=stTable]").filter(has_text="rendered as chip?").first
    # "[cite:L:101:oops]" is no marker to the client: it stays text, and the marker before it is a chip of its own
    assert "no" in table.inner_text().split()
    assert "not a final or stored marker for the client parser" in table.inner_text()
    chips.nth(2).click()
    wait_idle(page)
    sent = page.locator("[data-testid=stCode]").filter(has_text='"kind": "slide"').first
    sent.wait_for(timeout=10_000)
    assert '"page": 3' in sent.inner_text()
    assert errors == []


# ---- 10, 11: wording, the question box, the trace -------------------------------------------------


def test_wording_question_box_and_a_readable_trace(app: App, new_page: NewPage) -> None:
    page, errors = new_page()
    open_ask(page, app.url)
    models = page.get_by_text(re.compile("^answer writer")).first.inner_text()
    assert models.count("offline-extractive-1") == 1, models
    go_to_page(page, 6)
    ask(page, QUESTIONS[0])
    assert page.get_by_label("Question").input_value() == ""
    page.get_by_text("History (1 conversation)", exact=True).wait_for()

    page.get_by_role("radio", name="Trace", exact=True).click()
    wait_idle(page)
    trace = page.locator("[data-testid=stExpander]").filter(has_text="lecture pass ·").first
    trace.get_by_text(re.compile(r"^lecture pass")).click()
    for label in ("Used sequence numbers", "Keywords by sequence number", "Summaries by sequence number"):
        trace.get_by_text(label).first.wait_for(timeout=10_000)
    assert "seq None" not in trace.inner_text() and "None" not in trace.inner_text()
    trace.get_by_role("tab", name="Model calls").click()
    page.wait_for_timeout(500)
    table = trace.locator("[data-testid=stTable]").filter(visible=True).first
    table.wait_for()
    assert clipped_by(page, table)[2] == 0, "the model-call table fits its column"
    box, outer = table.bounding_box(), trace.bounding_box()
    assert box["x"] + box["width"] <= outer["x"] + outer["width"] + 1
    for code in trace.locator("[data-testid=stCode] pre").filter(visible=True).all()[:4]:
        assert code.evaluate("el => el.scrollWidth <= el.clientWidth + 1"), "prompt lines wrap"
    assert errors == []


def test_an_image_in_an_answer_is_a_styled_label_and_an_overlong_paste_is_refused(
        app: App, new_page: NewPage) -> None:
    page, errors = new_page()
    open_ask(page, app.url)
    ask(page, "What does the diagram show?",
        pasted="The merge step is drawn here: ![merge diagram](http://example.invalid/merge.png) and explained.")
    label = last_answer(page).locator(".md-image").first
    label.wait_for()
    assert "merge diagram" in label.inner_text()
    style = label.evaluate("el => { const s = getComputedStyle(el); return [s.borderTopStyle, s.fontStyle]; }")
    assert style == ["dashed", "italic"]
    assert last_answer(page).locator("img").count() == 0

    before = page.locator("[data-testid=stChatMessage]").count()
    page.get_by_label("Question").fill("Too long?")
    page.get_by_text("Paste an answer instead").click()
    page.get_by_label("Answer to cite").fill("x" * (MAX_ANSWER_CHARS + 1))
    page.get_by_role("button", name="Ask", exact=True).click()
    wait_idle(page)
    page.get_by_text(f"more than the limit of {MAX_ANSWER_CHARS:,}").wait_for(timeout=20_000)
    assert page.locator("[data-testid=stChatMessage]").count() == before
    assert errors == []


# ---- narrow window ---------------------------------------------------------------------------------


def test_at_800_px_every_control_is_whole_and_usable(app: App, new_page: NewPage) -> None:
    page, errors = new_page(width=800, height=800)
    open_ask(page, app.url)
    controls = [page.get_by_label("Course"), page.get_by_label("Lecture unit"),
                page.get_by_role("radio", name="Slides", exact=True),
                page.get_by_role("radio", name="Video", exact=True), page.get_by_label("Slide"),
                page.get_by_role("button", name="◀"), page.get_by_role("button", name="▶"),
                page.get_by_label("Answer language"), page.get_by_label("Variant"),
                page.get_by_role("button", name="Ask", exact=True)]
    for control in controls:
        control.scroll_into_view_if_needed()
        assert clipped_by(page, control) == [0, 0, 0, 0], control
    choose(page, "Variant", "advanced")
    assert selected(page, "Variant") == "advanced"
    choose(page, "Variant", "default")
    go_to_page(page, 6)
    ask(page, QUESTIONS[0])
    for chip in last_answer(page).locator("button.cite-chip").all()[:4]:
        chip.scroll_into_view_if_needed()
        tip = hover_tip(page, chip)
        assert clipped_by(page, tip) == [0, 0, 0, 0]
        away(page)
    assert errors == []


# ---- light and dark theme -------------------------------------------------------------------------


CHIP_TEXT = ("Current.[cite:L:101:6:::Merge step:Each iteration places one element.:va1] "
             "Video.[cite:L:101::125:131:Linear merge:Linear time.:vt1] FAQ.[cite:F:1::::Exam aids:One sheet.] "
             "Changed.[cite:L:101:4:::Older deck:Cited in version 0.:va0] "
             "Gone.[cite:L:201::3:9:Removed video:No video any more.:vt1] "
             "Unknown.[cite:L:9003:5:::Deleted:Removed unit.:va1]")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_chips_and_tooltips_are_readable_in_the_light_and_the_dark_theme(
        app: App, new_page: NewPage, theme: str) -> None:
    """The theme is the browser's preference (prefers-color-scheme), as a reader's system sets it."""
    served = app
    page, errors = new_page(width=800, height=800)
    page.emulate_media(color_scheme=theme)
    page.goto(f"{served.url}/chip_preview")
    page.get_by_text("What each parser reads").wait_for(timeout=60_000)
    wait_idle(page)
    page.get_by_label("Marker text").fill(CHIP_TEXT)
    page.get_by_label("Marker text").press("Control+Enter")
    wait_idle(page)
    chips = page.locator(".cite-answer button.cite-chip")
    chips.nth(5).wait_for()
    for i in range(6):
        label = chips.nth(i).locator(".cite-chip__label")
        ratio, _ = contrast(label)
        assert ratio >= 4.5, f"{theme}: chip {label.inner_text()!r} has contrast {ratio}"
        tip = hover_tip(page, chips.nth(i))
        ratio, background = contrast(tip.locator(".cite-tip__summary"))
        assert ratio >= 4.5, f"{theme}: summary of chip {i} has contrast {ratio}"
        assert (background < 0.2) == (theme == "dark"), f"{theme}: tooltip background luminance {background}"
        for part in (".cite-tip__keyword", ".cite-tip__where", ".cite-tip__rows dd", ".cite-tip__stale"):
            if tip.locator(part).count():
                ratio, _ = contrast(tip.locator(part).first)
                assert ratio >= 4.5, f"{theme}: {part} of chip {i} has contrast {ratio}"
        away(page)
    if theme == "dark":
        assert log_warnings(served.log) == [], served.log.read_text(encoding="utf-8")[-4000:]
    assert errors == []


# ---- the server log --------------------------------------------------------------------------------


def test_the_server_log_of_these_sessions_has_no_warning(app: App, chromium: Any) -> None:
    """Runs last in this module (with the browser tests): the sessions above left no warning, error or
    traceback in the log."""
    assert app.log.exists()
    warnings = log_warnings(app.log)
    assert warnings == [], app.log.read_text(encoding="utf-8")[-6000:]
