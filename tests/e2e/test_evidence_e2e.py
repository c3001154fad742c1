"""The evidence in the running app: lit on a real deck's slide, lit in the transcript, and audited.

One app for the module: the sample course plus a course (in the library folder) whose deck is a real
beamer deck copied into tests/material_real.
"""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from PIL import Image, ImageStat

from citation_core.contract import parse
from citation_core.lms.store import LmsStore
from citation_core.material.highlight import evidence_boxes

from ..conftest import REAL_DIR
from .harness import ask, open_ask, running_app, wait_idle

pytestmark = pytest.mark.e2e

REAL_DECK = REAL_DIR / "decks" / "en_metropolis_demo.pdf"
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
    deck = None
    if REAL_DECK.is_file():
        deck = library / "decks" / REAL_DECK.name
        deck.parent.mkdir(parents=True)
        shutil.copyfile(REAL_DECK, deck)
        (library / "course.yml").write_text(yaml.safe_dump({
            "id": 77, "name": "Beamer themes", "language": "en",
            "lectures": [{"id": 7, "name": "Themes", "units": [
                {"id": 770, "name": "Metropolis", "deck": f"decks/{REAL_DECK.name}"}]}]}), encoding="utf-8")
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
