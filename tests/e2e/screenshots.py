"""The README screenshots, taken from the running app (``python -m tests.e2e.screenshots [--out docs]``).

Starts the app with its own temporary database (default configuration: the offline model and the
sample course), drives it in headless Chromium (Debian's /usr/bin/chromium) at 1280x800 and writes
viewport screenshots:

* ``ask.png``: Ask on slide page 6 of unit 101 after a question, a slide chip hovered (tooltip open);
* ``ask_evidence.png``: the same, after a click on that chip: its evidence lines lit up on the slide;
* ``chip_preview.png``: Chip preview with its example text rendered as chips;
* ``language_qa.png``: Language QA after Run with the default languages en, de, fr;
* ``library.png``: Library with the first unit's deck thumbnails;
* ``upload.png``: Library's upload form with the German sample deck chosen: unit name, lecture and
  language filled in from the PDF's title and the language of its text;
* ``ask_dark.png``: Ask in the dark theme (the browser prefers dark) in an 800x800 window, after three
  questions, a chip of the last answer hovered;
* ``band_metropolis.png``: Ask on page 4 of the real metropolis beamer deck (its own server, whose library holds
  that deck) after a chip click: the quoted lines lit up on the slide.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from .harness import (
    CHROMIUM,
    ROOT,
    ask,
    choose_file,
    go_to_page,
    launch,
    metropolis_library,
    open_ask,
    running_app,
    wait_idle,
)

VIEWPORT = {"width": 1280, "height": 800}
MISMATCHES = re.compile(r"^\d+ mismatch(es)? in ")
QUESTION = "How does the merge procedure combine two sorted halves?"


def settle(page: Any, ms: int = 600) -> None:
    """Until the run is over, then a little longer for images and fonts."""
    wait_idle(page)
    page.wait_for_timeout(ms)


SCROLL_TO = """
([el, offset]) => {
  let box = el.parentElement;
  while (box && !(box.scrollHeight > box.clientHeight && /(auto|scroll)/.test(getComputedStyle(box).overflowY))) {
    box = box.parentElement;
  }
  box = box || document.scrollingElement;
  box.scrollBy(0, el.getBoundingClientRect().top - offset);
}
"""


def scroll_main_to(page: Any, locator: Any, offset: int = 80) -> None:
    """Scroll the page so that ``locator`` starts ``offset`` px below the top of the viewport."""
    handle = locator.element_handle()
    page.evaluate(SCROLL_TO, [handle, offset])
    page.wait_for_timeout(400)


def text_gap_above(page: Any, bottom: int, margin: int = 6) -> int:
    """The lowest y above ``bottom`` that no paragraph on screen covers (paragraphs in the chips' shadow roots too)."""
    boxes = [b for b in (p.bounding_box() for p in page.locator("p").all()) if b and b["height"] > 0]
    for y in range(bottom, bottom // 2, -1):
        if not any(b["y"] - margin <= y <= b["y"] + b["height"] + margin for b in boxes):
            return y
    return bottom


def nav(page: Any, url: str, title: str, ready: str) -> None:
    page.goto(url)
    page.get_by_text("Ask about what you see").wait_for(timeout=60_000)
    page.get_by_role("link", name=title).click()
    page.get_by_text(ready).first.wait_for(timeout=60_000)
    settle(page)


def shot_ask(page: Any, url: str, out: Path) -> None:
    open_ask(page, url)
    go_to_page(page, 6)
    ask(page, QUESTION)
    settle(page, 1000)
    answer = page.locator("[data-testid=stChatMessage]").last
    chip = answer.locator("button.cite-chip--slide").first
    # the unit heading just below the top bar: the whole viewer, and beside it the question and the
    # answer's first chips with room below them for the tooltip
    scroll_main_to(page, page.locator("h3").first, offset=64)
    chip.hover()
    page.locator(".cite-tip").filter(visible=True).first.wait_for(timeout=5_000)
    page.wait_for_timeout(400)
    page.screenshot(path=str(out / "ask.png"))
    page.mouse.move(0, 0)


def shot_ask_evidence(page: Any, url: str, out: Path) -> None:
    open_ask(page, url)
    go_to_page(page, 9)
    ask(page, QUESTION)
    settle(page, 1000)
    page.locator("[data-testid=stChatMessage]").last.locator("button.cite-chip--slide").first.click()
    page.get_by_text("Lit up:").wait_for(timeout=15_000)
    settle(page, 1000)
    scroll_main_to(page, page.locator("h3").first, offset=64)
    page.mouse.move(0, 0)
    page.wait_for_timeout(400)
    page.screenshot(path=str(out / "ask_evidence.png"))


def shot_chip_preview(page: Any, url: str, out: Path) -> None:
    nav(page, url, "Chip preview", "What each parser reads")
    page.locator("button.cite-chip").first.wait_for(timeout=30_000)
    settle(page, 800)
    page.locator("button.cite-chip").first.click()  # the click value shows below the chips
    page.get_by_text("What the last click sent to the app").wait_for(timeout=30_000)
    settle(page, 600)
    # from the marker text down to the table of which markers became chips, a group's tooltip open
    scroll_main_to(page, page.get_by_text("Marker text", exact=True), offset=64)
    page.locator("button.cite-chip").nth(1).hover()
    page.locator(".cite-tip").filter(visible=True).first.wait_for(timeout=5_000)
    page.wait_for_timeout(400)
    page.screenshot(path=str(out / "chip_preview.png"))


def shot_language_qa(page: Any, url: str, out: Path) -> None:
    nav(page, url, "Language QA", "Languages")
    page.get_by_role("button", name="Run").click()
    page.get_by_text(MISMATCHES).nth(2).wait_for(timeout=120_000)
    settle(page, 800)
    # the three columns from their headings down; cut between paragraphs, not through a line of text
    scroll_main_to(page, page.get_by_text(MISMATCHES).first, offset=150)
    page.mouse.move(0, 0)  # no table toolbar
    page.screenshot(path=str(out / "language_qa.png"), clip={"x": 0, "y": 0, "width": VIEWPORT["width"],
                                                             "height": text_gap_above(page, VIEWPORT["height"])})


def shot_library(page: Any, url: str, out: Path) -> None:
    nav(page, url, "Library", "Upload a deck")
    page.locator("[data-testid=stImage] img").nth(3).wait_for(timeout=30_000)
    page.wait_for_function("() => [...document.querySelectorAll('[data-testid=stImage] img')]"
                           ".every(i => i.complete && i.naturalWidth > 0)", timeout=30_000)
    settle(page, 800)
    # the top of the page down to the first row of thumbnails with their captions (the next row would be cut)
    height = min(VIEWPORT["height"], page.locator("[data-testid=stImage]").nth(4).bounding_box()["y"] - 6)
    page.screenshot(path=str(out / "library.png"), clip={"x": 0, "y": 0, "width": VIEWPORT["width"], "height": height})


def shot_upload(page: Any, url: str, out: Path) -> None:
    nav(page, url, "Library", "Upload a deck")
    page.get_by_text("Upload a deck").click()
    choose_file(page, 0, ROOT / "sample_decks" / "decks" / "binaere_suchbaeume.pdf")
    page.get_by_text("Read from the deck:").wait_for(timeout=60_000)
    settle(page, 600)
    # the form from its expander down to the "Add to library" button
    form = page.locator(".st-key-upload_form")
    scroll_main_to(page, page.get_by_text("Upload a deck"), offset=64)
    page.mouse.move(0, 0)
    box = form.bounding_box()
    height = min(VIEWPORT["height"], box["y"] + box["height"] + 16)
    page.screenshot(path=str(out / "upload.png"), clip={"x": 0, "y": 0, "width": VIEWPORT["width"], "height": height})


def shot_ask_dark(page: Any, url: str, out: Path) -> None:
    open_ask(page, url)
    go_to_page(page, 6)
    for question in (QUESTION, "What does the master theorem say?", "How deep is the recursion tree?"):
        ask(page, question)
    settle(page, 1000)
    chip = page.locator("[data-testid=stChatMessage]").last.locator("button.cite-chip").first
    chip.scroll_into_view_if_needed()
    page.mouse.wheel(0, 120)
    chip.hover()
    page.locator(".cite-tip").filter(visible=True).first.wait_for(timeout=5_000)
    page.wait_for_timeout(400)
    page.screenshot(path=str(out / "ask_dark.png"))


def shot_band_metropolis(page: Any, url: str, out: Path) -> None:
    page.goto(f"{url}/?course=77&unit=770&view=slides&page=4")
    page.get_by_text("Ask about what you see").wait_for(timeout=60_000)
    settle(page)
    ask(page, "What is the metropolis theme?", pasted="The metropolis theme is a Beamer theme with minimal visual "
        "noise, inspired by the hsrm Beamer Theme by Benjamin Weiss.")
    settle(page, 1000)
    page.locator("[data-testid=stChatMessage]").last.locator("button.cite-chip--slide").first.click()
    page.get_by_text("Lit up:").wait_for(timeout=15_000)
    settle(page, 1000)
    scroll_main_to(page, page.locator("h3").first, offset=64)
    page.mouse.move(0, 0)
    page.wait_for_timeout(400)
    page.screenshot(path=str(out / "band_metropolis.png"))


# name: (take it, the colour scheme the browser prefers, window)
SHOTS = {"ask": (shot_ask, "light", VIEWPORT), "ask_evidence": (shot_ask_evidence, "light", VIEWPORT),
         "chip_preview": (shot_chip_preview, "light", VIEWPORT),
         "language_qa": (shot_language_qa, "light", VIEWPORT), "library": (shot_library, "light", VIEWPORT),
         "upload": (shot_upload, "light", VIEWPORT),
         "ask_dark": (shot_ask_dark, "dark", {"width": 800, "height": 800}),
         "band_metropolis": (shot_band_metropolis, "light", VIEWPORT)}
# shots taken on a server of their own, whose library this makes (False: the material is not in the checkout)
OWN_LIBRARY = {"band_metropolis": metropolis_library}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.e2e.screenshots", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs", help="folder for the PNGs (default docs)")
    parser.add_argument("--only", choices=sorted(SHOTS), action="append", help="take only this screenshot")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"needs Debian's chromium at {CHROMIUM}", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as servers, sync_playwright() as pw:
        # one server with its own database and library (nothing is added to the checkout's)
        url = servers.enter_context(running_app({"CITATION_STUDIO_DB": str(Path(tmp) / "lms.sqlite3"),
                                                 "CITATION_STUDIO_LIBRARY": str(Path(tmp) / "library")}))
        browser = launch(pw)
        for name in args.only or list(SHOTS):
            take, theme, viewport = SHOTS[name]
            shot_url = url
            if name in OWN_LIBRARY:
                library = Path(tmp) / name
                if not OWN_LIBRARY[name](library):
                    print(f"{name}: skipped, its material is not in the checkout", file=sys.stderr)
                    continue
                shot_url = servers.enter_context(running_app({"CITATION_STUDIO_DB": str(Path(tmp) / f"{name}.sqlite3"),
                                                              "CITATION_STUDIO_LIBRARY": str(library)}))
            # the app follows the browser's preferred colour scheme
            ctx = browser.new_context(viewport=viewport, color_scheme=theme)
            page = ctx.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e, errs=errors: errs.append(str(e)))
            take(page, shot_url, out)
            ctx.close()
            png = out / f"{name}.png"
            print(f"{png} · {png.stat().st_size // 1024} KB" + (f" · page errors: {errors}" if errors else ""))
            if errors:
                return 1
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
