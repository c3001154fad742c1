"""The evidence in the running app: lit on a real deck's slide, lit in the transcript, and audited.

One app for the module: the sample course plus a course (in the library folder) whose deck is a real
beamer deck copied into tests/material_real.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageStat

from citation_core.contract import parse
from citation_core.lms.store import LmsStore
from citation_core.material.highlight import evidence_boxes

from ..conftest import REAL_DIR
from ..ink import drawn_region, ink_mask
from .harness import METROPOLIS_DECK, ask, metropolis_library, open_ask, running_app, wait_idle

pytestmark = pytest.mark.e2e

SHADOW_ROWS = """(selector) => [...document.querySelectorAll('*')].map(e => e.shadowRoot).filter(Boolean)
  .flatMap(r => [...r.querySelectorAll(selector)])"""


@dataclass(frozen=True)
class App:
    url: str
    db: Path
    deck: Path | None


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    root = tmp_path_factory.mktemp("evidence")
    library = root / "library"
    deck = library / "decks" / METROPOLIS_DECK.name if metropolis_library(library) else None
    db = root / "lms.sqlite3"
    with running_app({"CITATION_STUDIO_DB": str(db), "CITATION_STUDIO_LIBRARY": str(library)}) as url:
        yield App(url, db, deck)


def stored_turn(db: Path, question: str) -> tuple[str, list[dict[str, Any]]]:
    store = LmsStore(db)
    for conv in store.conversations():
        msgs = store.messages(conv.id)
        for i, m in enumerate(msgs):
            if m.role == "user" and m.content == question:
                return msgs[i + 1].content, msgs[i + 1].meta["audits"]
    raise AssertionError("answer not stored")


def viewer_image(page: Any) -> Image.Image:
    data = page.evaluate("""async () => {
      const img = document.querySelector('.st-key-viewer [data-testid=stImage] img');
      const r = await fetch(img.src); return Array.from(new Uint8Array(await r.arrayBuffer())); }""")
    return Image.open(io.BytesIO(bytes(data))).convert("RGB")


def amber(image: Image.Image, box: Any) -> float:
    """How far the region of ``box`` (fractions) leans to amber: mean red minus mean blue."""
    w, h = image.size
    region = image.crop((int(box.left * w), int(box.top * h), max(int(box.right * w), int(box.left * w) + 1),
                         max(int(box.bottom * h), int(box.top * h) + 1)))
    red, _, blue = ImageStat.Stat(region).mean
    return float(red - blue)


def test_a_slide_chip_lights_up_its_evidence_lines_on_a_real_beamer_deck(app: App, new_page: Any) -> None:
    if app.deck is None:
        pytest.skip(f"needs the real decks in {REAL_DIR}")
    page, errors = new_page(1400, 1000)
    page.goto(f"{app.url}/?course=77&unit=770&view=slides&page=4")
    page.get_by_text("Ask about what you see").wait_for(timeout=60_000)
    wait_idle(page)
    question = "What is the metropolis theme?"
    ask(page, question, pasted="The metropolis theme is a Beamer theme with minimal visual noise, inspired by the "
                               "hsrm Beamer Theme by Benjamin Weiss.")
    stored, audits = stored_turn(app.db, question)
    markers = parse(stored, "stored")
    first = next(i for i, m in enumerate(markers) if m.page == "4")
    evidence = audits[first]["evidence"]["text"]
    assert "minimal visual noise" in evidence

    chip = page.locator("[data-testid=stChatMessage]").last.locator("button.cite-chip--slide").first
    chip.hover()
    tip = page.locator(".cite-tip").filter(has_text="On the slide").first
    tip.wait_for(state="visible", timeout=5_000)
    assert "minimal visual noise" in (tip.locator(".cite-tip__quote-text").text_content() or "")
    page.mouse.move(0, 0)
    chip.click()
    page.get_by_text("Lit up:").wait_for(timeout=15_000)
    wait_idle(page)

    boxes = evidence_boxes(app.deck, 4, evidence)
    assert boxes, "the quoted lines are found on the page"
    lit = viewer_image(page)
    for box in boxes:
        assert amber(lit, box) > 25, box
    # the lines above and below the band stay as they were: the title and the next paragraph
    first_box, last_box = boxes[0], boxes[-1]
    above = type(first_box)(first_box.left, max(0.0, first_box.top - 0.12), first_box.right, first_box.top - 0.06)
    below = type(last_box)(last_box.left, last_box.bottom + 0.05, last_box.right, min(1.0, last_box.bottom + 0.1))
    assert abs(amber(lit, above)) < 8 and abs(amber(lit, below)) < 8
    assert not errors, errors


VIEWER_IMG = ".st-key-viewer [data-testid=stImage] img"
PASTED = ("The metropolis theme is a Beamer theme with minimal visual noise, inspired by the hsrm Beamer Theme by "
          "Benjamin Weiss.")


def viewer_shot(page: Any, path: Path) -> np.ndarray:
    """A screenshot of the slide as the viewer shows it (saved to ``path``), as RGB pixels."""
    page.locator(VIEWER_IMG).screenshot(path=str(path))
    with Image.open(path) as shot:
        return np.asarray(shot.convert("RGB"), dtype=np.int16)


def click_slide_chip(page: Any) -> None:
    """Click the last answer's first slide chip; until the viewer shows the slide with its band, loaded."""
    before = page.evaluate(f"() => document.querySelector('{VIEWER_IMG}').src")
    page.mouse.move(0, 0)
    page.locator("[data-testid=stChatMessage]").last.locator("button.cite-chip--slide").first.click()
    page.get_by_text("Lit up:").wait_for(timeout=15_000)
    wait_idle(page)
    page.wait_for_function(f"""(before) => {{ const img = document.querySelector('{VIEWER_IMG}');
        return img && img.src !== before && img.complete && img.naturalWidth > 0; }}""", arg=before, timeout=15_000)


def open_with_answer(app: App, page: Any, question: str) -> str:
    """Page 4 of the metropolis deck open, ``question`` answered with ``PASTED``: the evidence of its slide chip."""
    page.goto(f"{app.url}/?course=77&unit=770&view=slides&page=4")
    page.get_by_text("Ask about what you see").wait_for(timeout=60_000)
    wait_idle(page)
    ask(page, question, pasted=PASTED)
    stored, audits = stored_turn(app.db, question)
    first = next(i for i, m in enumerate(parse(stored, "stored")) if m.page == "4")
    evidence: str = audits[first]["evidence"]["text"]
    assert "minimal visual noise" in evidence
    return evidence


def test_the_band_covers_the_ink_of_the_quoted_lines_on_the_metropolis_deck(app: App, new_page: Any,
                                                                            tmp_path: Path) -> None:
    # the deck's MediaBox (362.83 x 272.13 pt) is inherited from its page tree: read as US Letter, the band
    # stood below all the text of the slide
    if app.deck is None:
        pytest.skip(f"needs the real decks in {REAL_DIR}")
    page, errors = new_page(1400, 1000)
    evidence = open_with_answer(app, page, "Which theme keeps visual noise minimal?")
    plain = viewer_shot(page, tmp_path / "plain.png")
    click_slide_chip(page)
    lit = viewer_shot(page, tmp_path / "band.png")
    assert lit.shape == plain.shape
    height, width = plain.shape[:2]
    changed = np.abs(lit - plain).max(axis=2) > 24  # what the band tinted
    ink = ink_mask(np.asarray(Image.fromarray(plain.astype(np.uint8)).convert("L"), dtype=np.int16))

    quoted = [" ".join(line.split()) for line in evidence.splitlines() if line.strip()]
    regions = [drawn_region(app.deck, 4, line, (width, height)) for line in quoted]
    assert all(regions), f"pdfium's text has the quoted lines: {quoted}"
    for line, (left, top, right, bottom) in zip(quoted, regions, strict=True):  # type: ignore[misc]
        line_ink = ink[top:bottom, left:right]
        assert line_ink.sum() > 50, f"the line {line!r} is drawn at {(left, top, right, bottom)}"
        lit_share = float(changed[top:bottom, left:right][line_ink].mean())
        assert lit_share > 0.95, f"the band covers {lit_share:.0%} of the ink of {line!r}"
    # the band is where the lines are, not a wash over the slide: its rows are the quoted lines' rows, padded
    rows = np.flatnonzero(changed.any(axis=1))
    top_row = min(r[1] for r in regions)  # type: ignore[index]
    bottom_row = max(r[3] for r in regions)  # type: ignore[index]
    assert top_row - 0.02 * height <= rows[0] and rows[-1] <= bottom_row + 0.02 * height, (rows[0], rows[-1])
    # and the next paragraph stays as it was
    other = drawn_region(app.deck, 4, "Enable the theme by loading", (width, height))
    assert other is not None
    left, top, right, bottom = other
    assert float(changed[top:bottom, left:right][ink[top:bottom, left:right]].mean()) < 0.02
    assert not errors, errors


def test_a_reload_keeps_the_lit_band(app: App, new_page: Any) -> None:
    if app.deck is None:
        pytest.skip(f"needs the real decks in {REAL_DIR}")
    page, errors = new_page(1400, 1000)
    open_with_answer(app, page, "What inspired the metropolis theme?")
    click_slide_chip(page)
    lit = viewer_image(page)
    page.reload()
    page.get_by_text("Ask about what you see").wait_for(timeout=60_000)
    wait_idle(page)
    assert page.get_by_text("Lit up:").count() == 1, "the band is still lit after the reload"
    assert np.array_equal(np.asarray(viewer_image(page)), np.asarray(lit))
    assert not errors, errors


def test_a_video_chip_lights_up_the_cited_cues_and_the_panel_follows_playback(app: App, new_page: Any) -> None:
    page, errors = new_page(1400, 1000)
    # at 3:10 the lecturer draws the recursion tree: the answer quotes what is said there
    page.goto(f"{app.url}/?course=1&unit=101&view=video&second=190")
    page.get_by_text("Ask about what you see").wait_for(timeout=60_000)
    wait_idle(page)
    question = "What does the recursion tree show about the cost?"
    ask(page, question)
    stored, audits = stored_turn(app.db, question)
    markers = parse(stored, "stored")
    video = next(i for i, m in enumerate(markers) if m.start)
    quote = audits[video]["evidence"]["text"]

    page.evaluate("() => window.scrollTo(0, 0)")
    page.locator("[data-testid=stChatMessage]").last.locator("button.cite-chip--video").first.click()
    page.get_by_text("Lit up:").wait_for(timeout=15_000)
    wait_idle(page)
    page.wait_for_timeout(500)
    cited = page.evaluate(f"() => ({SHADOW_ROWS})('.transcript__cue.is-cited').map(r => r.textContent)")
    assert cited, "the cited cues are lit up"
    for text in cited:
        words = text.split(maxsplit=1)[1] if text[0].isdigit() else text
        assert words.split()[0].strip(".,").lower() in quote.lower()
    # the first cited cue is in the panel's view (the panel scrolled, the page did not)
    inside = page.evaluate(f"""() => {{
      const row = ({SHADOW_ROWS})('.transcript__cue.is-cited')[0];
      const panel = row.closest('.transcript');
      const r = row.getBoundingClientRect(), p = panel.getBoundingClientRect();
      return r.top >= p.top - 1 && r.bottom <= p.bottom + 1; }}""")
    assert inside

    # playback moves the marked cue along
    cues = page.evaluate(f"() => ({SHADOW_ROWS})('.transcript__cue').length")
    page.evaluate("() => { const v = document.querySelector('video'); v.pause(); v.currentTime = 1; }")
    page.wait_for_function(f"() => ({SHADOW_ROWS})('.transcript__cue.is-playing')[0]?.dataset.index === '0'",
                           timeout=10_000)
    page.evaluate("() => { const v = document.querySelector('video'); v.currentTime = v.duration - 1; }")
    page.wait_for_function(f"() => Number(({SHADOW_ROWS})('.transcript__cue.is-playing')[0]?.dataset.index) > 0",
                           timeout=10_000)
    assert cues > 3
    assert not errors, errors


def test_the_trace_view_audits_every_citation_and_flags_a_wrong_one(app: App, new_page: Any) -> None:
    page, errors = new_page(1400, 1000)
    open_ask(page, app.url)
    question = "Is merge sort stable?"
    wrong = "[cite:L:201:3:::Hashing:Direct addressing.]"
    ask(page, question, pasted=f"Merge sort runs in Theta of n log n time on every input.{wrong} "
                               "Taking from L when keys are equal makes merge sort stable.")
    stored, audits = stored_turn(app.db, question)
    assert wrong[:-1] in stored, "the pasted marker is kept as written (its version stamped)"
    page.get_by_text("Trace", exact=True).click()
    wait_idle(page)
    table = page.get_by_test_id("audit-table")
    table.wait_for(timeout=10_000)
    rows = table.locator("tbody tr")
    assert rows.count() == len(parse(stored, "stored")) == len(audits)
    flagged = table.locator("tbody tr.is-flagged")
    assert flagged.count() >= 1
    assert "Theta of n log n" in (flagged.first.locator("td").first.text_content() or "")
    assert "Unsupported" in (flagged.first.text_content() or "")
    assert page.get_by_text("flagged as unsupported").count() >= 1
    assert not errors, errors
