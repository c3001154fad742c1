"""The chip renderer in headless Chromium, on standalone preview documents (no Streamlit needed).

The preview mounts the very same component module (citation_parser.js + chip_model.js + chips.js)
and CSS into a shadow root like Streamlit does, and records trigger values in ``window.__clicks``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citation_core.lms.chips import html_preview_document

pytestmark = pytest.mark.e2e

CHROMIUM = "/usr/bin/chromium"
SCREENSHOT = Path("/tmp/chips_preview.png")
VECTORS = Path(__file__).resolve().parents[1] / "citation_core" / "contract" / "vectors.json"
CASES: list[dict[str, Any]] = json.loads(VECTORS.read_text(encoding="utf-8"))["cases"]

UNITS: dict[str, dict[str, Any]] = {
    "12": {
        "lectureTitle": "Algorithms and Data Structures",
        "lectureUnitTitle": "Sorting: Merge Sort",
        "lectureId": 3,
        "courseId": 1,
        "attachmentVersion": 2,
        "videoVersion": 13,
        "hasDeck": True,
        "hasVideo": True,
        # deck index -> printed number and title (unit_table's "slides"); pages 1-2 are unnumbered
        "slides": {
            "1": {"printed": None, "title": "Merge Sort"},
            "2": {"printed": None, "title": "Agenda"},
            "3": {"printed": "1", "title": "Merge step"},
            "4": {"printed": "2", "title": "Split"},
            "5": {"printed": "3", "title": "Cost"},
        },
    },
    "7": {
        "lectureTitle": "算法",
        "lectureUnitTitle": "归并排序",
        "lectureId": 4,
        "courseId": 1,
        "attachmentVersion": 1,
        "videoVersion": None,
        "hasDeck": True,
        "hasVideo": False,
        "slides": {},
    },
}
FAQS: dict[str, dict[str, Any]] = {"17": {"question": "Is the exam open book?"}}

SLIDE = "[cite:L:12:3:::Merge step:Combines two sorted halves into one sorted list.:va2]"
SLIDE2 = "[cite:L:12:4:::Split:Divides the list at its midpoint.:va2]"
VIDEO = "[cite:L:12::75:92:Recursion tree:The lecturer explains the recursion tree.:vt13]"
FAQ = "[cite:F:17::::Exam:The exam is open book.:va1]"
STALE = "[cite:L:12:5:::Cost:Each level does linear work.:va1]"
BROKEN = "[cite:L:12:3::Split]"

ANSWER = f"""Merge sort is a **divide and conquer** algorithm: it splits the list, sorts both halves
recursively and merges them.{SLIDE} {SLIDE2}

- The recursion is log n levels deep {VIDEO}.
- Every level does linear work.{STALE}
- You may bring your notes to the exam.{FAQ}

A marker in code stays code: `{SLIDE}`.
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium to run the browser tests")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield b
        b.close()


class Preview:
    """One page showing preview documents; collects console errors and uncaught exceptions."""

    def __init__(self, page: Any, tmp_path: Path) -> None:
        self.page = page
        self.tmp_path = tmp_path
        self.errors: list[str] = []
        self.count = 0
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def open(self, text: str, units: dict[str, Any] | None = None, faqs: dict[str, Any] | None = None,
             audits: list[dict[str, Any]] | None = None) -> Any:
        self.count += 1
        path = self.tmp_path / f"preview_{self.count}.html"
        doc = html_preview_document(text, UNITS if units is None else units, FAQS if faqs is None else faqs, audits)
        path.write_text(doc, encoding="utf-8")
        self.page.goto(path.as_uri())
        self.page.wait_for_function("window.__chipsReady === true")
        return self.page

    def clicks(self) -> list[dict[str, Any]]:
        return list(self.page.evaluate("window.__clicks"))

    def body_text(self) -> str:
        return str(self.page.evaluate("document.getElementById('chips-host').shadowRoot.textContent"))

    def chip(self, keyword: str) -> Any:
        return self.page.locator(".cite-chip-wrap", has=self.page.locator(".cite-chip__label", has_text=keyword))

    def away(self) -> None:
        self.page.mouse.move(1, 1)


@pytest.fixture
def preview(browser: Any, tmp_path: Path) -> Iterator[Preview]:
    context = browser.new_context(viewport={"width": 960, "height": 640}, device_scale_factor=2)
    page = context.new_page()
    yield Preview(page, tmp_path)
    context.close()


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_every_vector_renders_without_console_errors(preview: Preview, case: dict[str, Any]) -> None:
    page = preview.open(case["text"])
    assert preview.errors == []
    assert page.locator(".cite-raw").count() == 0, "every candidate became a chip or text"
    chips = page.locator(".cite-chip").count()
    text = list(case["text"])
    # chips come from stored matches outside code; a newline inside a marker never reaches the client
    eligible = [
        m
        for m in case["expect"]["stored"]
        if "`" not in case["text"] and "\n" not in "".join(text[m["span"][0] : m["span"][1]])
    ]
    if len(eligible) == 1:
        assert chips == 1
        label = page.locator(".cite-chip__label").inner_text()
        m = eligible[0]
        assert label == ((m["keyword"] or "").strip() or ("FAQ" if m["type"] == "F" else "Source"))
    else:
        assert (chips > 0) == bool(eligible) and chips <= len(eligible)


def test_hover_shows_summary_unit_and_lecture(preview: Preview) -> None:
    page = preview.open(ANSWER)
    wrap = preview.chip("Recursion tree")
    tip = wrap.locator(".cite-tip")
    assert not tip.is_visible()
    wrap.locator(".cite-chip").hover()
    tip.wait_for(state="visible")
    assert "The lecturer explains the recursion tree." in tip.inner_text()
    assert "Sorting: Merge Sort" in tip.inner_text()
    assert "Algorithms and Data Structures" in tip.inner_text()
    assert "1:15" in tip.locator(".cite-tip__where").inner_text()
    preview.away()
    tip.wait_for(state="hidden")
    assert preview.errors == []
    assert page.locator(".cite-chip").count() == 4


def test_keyboard_focus_shows_tooltip_and_escape_hides_it(preview: Preview) -> None:
    page = preview.open(ANSWER)
    page.keyboard.press("Tab")
    first = page.locator(".cite-chip-wrap").first
    tip = first.locator(".cite-tip")
    tip.wait_for(state="visible")
    assert "Combines two sorted halves" in tip.inner_text()
    aria = first.locator(".cite-chip").get_attribute("aria-label")
    assert aria is not None and "Merge step" in aria and "1 more" in aria
    page.keyboard.press("Escape")
    tip.wait_for(state="hidden")
    page.keyboard.press("Enter")
    assert [c["value"]["kind"] for c in preview.clicks()] == ["slide"]


def test_group_shows_plus_n_and_pages_through_summaries(preview: Preview) -> None:
    preview.open(ANSWER)
    wrap = preview.chip("Merge step")
    assert wrap.locator(".cite-chip__more").inner_text() == "+1"
    assert wrap.locator(".cite-chip").inner_text().replace("\n", " ").strip() == "Merge step +1"
    wrap.locator(".cite-chip").hover()
    tip = wrap.locator(".cite-tip")
    tip.wait_for(state="visible")
    assert tip.locator(".cite-tip__count").inner_text() == "1 / 2"
    assert "Combines two sorted halves" in tip.inner_text()
    assert tip.locator(".cite-tip__nav--prev").is_disabled()
    tip.locator(".cite-tip__nav--next").click()
    assert tip.locator(".cite-tip__count").inner_text() == "2 / 2"
    assert "Divides the list at its midpoint." in tip.inner_text()
    assert "Combines two sorted halves" not in tip.inner_text()
    assert tip.locator(".cite-tip__nav--next").is_disabled()
    assert preview.clicks() == [], "paging is not a chip click"
    # the chip now opens the member shown in the card
    wrap.locator(".cite-chip").click()
    assert [c["value"]["page"] for c in preview.clicks()] == [4]
    tip.locator(".cite-tip__nav--prev").click()
    assert tip.locator(".cite-tip__count").inner_text() == "1 / 2"
    assert preview.errors == []


def test_a_marker_the_client_cannot_read_stays_text_and_splits_the_group(preview: Preview) -> None:
    # as in the Artemis client, which never sees it as a citation: text that is not whitespace
    page = preview.open(f"One {SLIDE} {BROKEN} two {VIDEO}")
    assert page.locator(".cite-chip").count() == 2
    text = preview.body_text()
    assert BROKEN in text and SLIDE not in text
    assert preview.errors == []


def test_a_group_pages_only_through_members_with_a_summary(preview: Preview) -> None:
    preview.open("Sorted.[cite:L:12:3:::Merge step:Combines two sorted halves.:va2] [cite:L:12:4:::Split:]")
    wrap = preview.chip("Merge step")
    assert wrap.locator(".cite-chip__more").inner_text() == "+1"
    wrap.locator(".cite-chip").hover()
    tip = wrap.locator(".cite-tip")
    tip.wait_for(state="visible")
    assert "Combines two sorted halves" in tip.inner_text()
    assert tip.locator(".cite-tip__pager").count() == 0, "one summary: no pager"
    assert preview.errors == []


def test_a_video_chip_without_seconds_does_nothing_and_says_why(preview: Preview) -> None:
    preview.open("Clock.[cite:L:12::00.01::Clock:Written as a clock.]")
    wrap = preview.chip("Clock")
    assert wrap.locator(".cite-chip").get_attribute("data-kind") == "video"
    wrap.locator(".cite-chip").hover()
    tip = wrap.locator(".cite-tip")
    tip.wait_for(state="visible")
    assert "is not a number of seconds: the chip cannot play it" in tip.inner_text()
    assert wrap.locator(".cite-chip").get_attribute("aria-disabled") == "true"
    wrap.locator(".cite-chip").click(force=True)  # aria-disabled makes Playwright wait for "enabled"
    assert preview.clicks() == []
    assert preview.errors == []


def test_intermediate_markers_stay_raw_text(preview: Preview) -> None:
    page = preview.open("A.[cite:L:12:3::!1] B.")
    assert page.locator(".cite-chip").count() == 0
    assert "[cite:L:12:3::!1]" in preview.body_text()


def test_slide_chip_click_records_slide_and_page(preview: Preview) -> None:
    page = preview.open(f"Merging is linear.{SLIDE}")
    page.locator(".cite-chip").click()
    [click] = preview.clicks()
    assert click["event"] == "click"
    value = click["value"]
    assert {k: value[k] for k in ("kind", "unitId", "page")} == {"kind": "slide", "unitId": "12", "page": 3}
    assert isinstance(value["nonce"], str) and value["nonce"]


def _open_tip(preview: Preview, keyword: str) -> Any:
    wrap = preview.chip(keyword)
    wrap.locator(".cite-chip").hover()
    tip = wrap.locator(".cite-tip")
    tip.wait_for(state="visible")
    return wrap


def test_slide_tooltip_shows_the_printed_number_not_the_deck_index(preview: Preview) -> None:
    preview.open(f"Merging is linear.{SLIDE}")  # deck index 3, printed "1"
    wrap = _open_tip(preview, "Merge step")
    tip = wrap.locator(".cite-tip")
    assert tip.locator(".cite-tip__where").text_content() == "Slide 1"
    assert tip.locator(".cite-tip__hint").text_content() == "Click to open slide 1"
    text = (tip.text_content() or "").lower()
    assert "slide 1" in text and "page 3" not in text and "page" not in text
    wrap.locator(".cite-chip").click()
    [click] = preview.clicks()
    assert {k: click["value"][k] for k in ("kind", "unitId", "page")} == {"kind": "slide", "unitId": "12", "page": 3}
    assert preview.errors == []


def test_unnumbered_slide_is_named_by_its_place_in_the_deck_and_its_title(preview: Preview) -> None:
    page = preview.open("See the plan.[cite:L:12:2:::Plan:What the lecture covers.:va2]")
    wrap = _open_tip(preview, "Plan")
    tip = wrap.locator(".cite-tip")
    assert tip.locator(".cite-tip__where").text_content() == "Page 2 of 5 “Agenda”"
    # the header is in capitals, the title keeps its spelling
    assert tip.locator(".cite-tip__where-title").inner_text() == "“Agenda”"
    assert tip.locator(".cite-tip__hint").text_content() == "Click to open page 2 of 5 “Agenda”"
    aria = page.locator(".cite-chip").get_attribute("aria-label")
    assert aria == "Slide source: Plan, page 2 of 5 “Agenda”"
    page.locator(".cite-chip").click()
    assert preview.clicks()[0]["value"]["page"] == 2


def test_aria_label_uses_the_printed_number(preview: Preview) -> None:
    page = preview.open(f"Merging is linear.{SLIDE} Depth.{VIDEO}")
    arias = [c.get_attribute("aria-label") for c in page.locator(".cite-chip").all()]
    assert arias == ["Slide source: Merge step, slide 1", "Video source: Recursion tree, 1:15–1:32"]
    group = preview.open(f"Both.{SLIDE} {SLIDE2}")
    assert group.locator(".cite-chip").get_attribute("aria-label") == "Slide source: Merge step, slide 1, and 1 more"


def test_paging_a_group_names_each_slide_by_its_printed_number(preview: Preview) -> None:
    preview.open(f"Both.{SLIDE} {SLIDE2}")
    wrap = _open_tip(preview, "Merge step")
    tip = wrap.locator(".cite-tip")
    assert tip.locator(".cite-tip__where").text_content() == "Slide 1"
    tip.locator(".cite-tip__nav--next").click()
    assert tip.locator(".cite-tip__where").text_content() == "Slide 2"
    assert tip.locator(".cite-tip__hint").text_content() == "Click to open slide 2"


@pytest.mark.parametrize(
    "marker",
    [
        "[cite:L:7:3:::Lost slide:Unit without slide data.:va1]",  # the unit has no slides data
        "[cite:L:12:9:::Lost slide:Not in the slides table.:va2]",  # page not in the table
        "[cite:L:99:3:::Lost slide:Unknown unit.]",
        "[cite:L:12:5:::Lost slide:Older deck.:va1]",  # stale: the index points into an older deck
    ],
    ids=["no-slides", "unknown-page", "unknown-unit", "stale"],
)
def test_unknown_slide_is_just_slide(preview: Preview, marker: str) -> None:
    page = preview.open(f"X.{marker}")
    wrap = _open_tip(preview, "Lost slide")
    tip = wrap.locator(".cite-tip")
    assert tip.locator(".cite-tip__where").text_content() == "Slide"
    text = (tip.text_content() or "").lower()
    assert "page" not in text and "slide 3" not in text and "slide 9" not in text
    aria = page.locator(".cite-chip").get_attribute("aria-label") or ""
    assert aria.startswith("Slide source: Lost slide") and not any(ch.isdigit() for ch in aria)
    assert preview.errors == []


def test_video_chip_click_records_start_and_end(preview: Preview) -> None:
    page = preview.open(f"Depth.{VIDEO}")
    page.locator(".cite-chip").click()
    [click] = preview.clicks()
    assert {k: click["value"][k] for k in ("kind", "unitId", "start", "end")} == {
        "kind": "video",
        "unitId": "12",
        "start": 75,
        "end": 92,
    }


def test_video_from_an_hour_on_shows_hours(preview: Preview) -> None:
    page = preview.open("Late.[cite:L:12::3725:3800:Long:Late in the lecture.:vt13]")
    wrap = _open_tip(preview, "Long")
    tip = wrap.locator(".cite-tip")
    assert tip.locator(".cite-tip__where").text_content() == "Video · 1:02:05–1:03:20"
    assert tip.locator(".cite-tip__hint").text_content() == "Click to play from 1:02:05"
    assert page.locator(".cite-chip").get_attribute("aria-label") == "Video source: Long, 1:02:05–1:03:20"


def test_arrow_keys_page_a_group_and_the_chip_follows_the_shown_member(preview: Preview) -> None:
    page = preview.open(f"Both.{SLIDE} {FAQ}")
    chip = page.locator(".cite-chip")
    tip = page.locator(".cite-tip")
    page.keyboard.press("Tab")
    tip.wait_for(state="visible")
    assert tip.locator(".cite-tip__count").inner_text() == "1 / 2"
    assert chip.get_attribute("aria-disabled") is None
    page.keyboard.press("ArrowRight")
    assert tip.locator(".cite-tip__count").inner_text() == "2 / 2"
    assert tip.locator(".cite-tip__where").text_content() == "FAQ"
    assert chip.get_attribute("aria-disabled") == "true"
    assert "cite-chip--inert" in (chip.get_attribute("class") or "")
    page.keyboard.press("Enter")
    assert preview.clicks() == [], "the FAQ member sends nothing"
    page.keyboard.press("ArrowRight")
    assert tip.locator(".cite-tip__count").inner_text() == "2 / 2"
    page.keyboard.press("ArrowLeft")
    assert tip.locator(".cite-tip__count").inner_text() == "1 / 2"
    assert chip.get_attribute("aria-disabled") is None
    page.keyboard.press("Enter")
    assert [c["value"]["kind"] for c in preview.clicks()] == ["slide"]
    assert preview.errors == []


def test_clicking_twice_records_two_clicks_with_different_nonces(preview: Preview) -> None:
    page = preview.open(f"Merging is linear.{SLIDE}")
    chip = page.locator(".cite-chip")
    chip.click()
    chip.click()
    clicks = preview.clicks()
    assert len(clicks) == 2
    assert clicks[0]["value"]["nonce"] != clicks[1]["value"]["nonce"]
    assert {k: v for k, v in clicks[0]["value"].items() if k != "nonce"} == {
        k: v for k, v in clicks[1]["value"].items() if k != "nonce"
    }


def test_faq_chip_is_not_clickable(preview: Preview) -> None:
    page = preview.open(f"Bring notes.{FAQ}")
    chip = page.locator(".cite-chip")
    assert chip.get_attribute("aria-disabled") == "true"
    assert chip.evaluate("el => getComputedStyle(el).cursor") == "default"
    chip.click(force=True)  # aria-disabled makes Playwright wait for "enabled"; click anyway
    chip.press("Enter")
    assert preview.clicks() == []
    tip = page.locator(".cite-tip")
    chip.hover()
    tip.wait_for(state="visible")
    assert "The exam is open book." in tip.inner_text()
    assert "Is the exam open book?" in tip.inner_text()


def test_keyword_fallbacks(preview: Preview) -> None:
    page = preview.open("A.[cite:F:17:::::The exam is open book.] B.[cite:L:12:3::::Only a summary.]")
    labels = page.locator(".cite-chip__label").all_inner_texts()
    assert labels == ["FAQ", "Source"]


def test_stale_chip_warns_and_opens_the_unit(preview: Preview) -> None:
    page = preview.open(f"Linear work.{STALE} Fresh.{SLIDE}")
    stale = preview.chip("Cost")
    assert "cite-chip--stale" in (stale.locator(".cite-chip").get_attribute("class") or "")
    fresh = preview.chip("Merge step")
    assert "cite-chip--stale" not in (fresh.locator(".cite-chip").get_attribute("class") or "")
    stale.locator(".cite-chip").hover()
    tip = stale.locator(".cite-tip")
    tip.wait_for(state="visible")
    assert "The material changed since this answer was written" in tip.inner_text()
    stale.locator(".cite-chip").click()
    [click] = preview.clicks()
    assert {k: click["value"][k] for k in ("kind", "unitId", "stale")} == {
        "kind": "unit",
        "unitId": "12",
        "stale": True,
    }
    assert "page" not in click["value"]
    assert page.locator(".cite-tip__stale").count() == 1


def test_a_chip_from_a_newer_copy_of_the_material_says_so_instead_of_stale(preview: Preview) -> None:
    """Unit 12's deck is at version 2: va3 was cited in another copy of the material, newer than this one."""
    page = preview.open("From elsewhere.[cite:L:12:4:::Later:Cited in a newer deck.:va3]")
    button = preview.chip("Later").locator(".cite-chip")
    classes = (button.get_attribute("class") or "").split()
    assert "cite-chip--newer" in classes and "cite-chip--stale" not in classes
    label = button.get_attribute("aria-label") or ""
    assert "another copy of the material, newer than this one" in label and "changed since" not in label
    button.hover()
    tip = preview.chip("Later").locator(".cite-tip")
    tip.wait_for(state="visible")
    assert "This citation comes from another copy of the material, newer than this one" in tip.inner_text()
    assert "changed since" not in tip.inner_text()
    button.click()
    [click] = preview.clicks()
    assert {k: v for k, v in click["value"].items() if k != "nonce"} == {
        "kind": "unit", "unitId": "12", "stale": False, "reason": "newer", "cited": "slide"}
    assert page.locator(".cite-tip__stale").count() == 1
    assert preview.errors == []


def test_stale_video_compares_the_transcript_version(preview: Preview) -> None:
    page = preview.open("[cite:L:12::75:92:Recursion:Old transcript.:vt12] [cite:L:12::75:92:Recursion:Same.:va2]")
    # a space-separated pair is one group: the first member is stale, the second is not
    page.locator(".cite-chip").click()
    assert preview.clicks()[0]["value"]["kind"] == "unit"


XSS_KEYWORD = "<img src=x onerror=window.__xss=1>"
XSS_SUMMARY = "<script>window.__xss=2</script><img src=x onerror=window.__xss=3>"


def test_html_in_markers_text_and_data_renders_as_text(preview: Preview) -> None:
    units = {
        "12": dict(
            UNITS["12"],
            lectureTitle="<img src=x onerror=window.__xss=4>",
            lectureUnitTitle="<script>window.__xss=5</script>",
        )
    }
    faqs = {"17": {"question": "<img src=x onerror=window.__xss=6>"}}
    text = (
        f"<script>window.__xss=7</script> <img src=x onerror=window.__xss=8> "
        f"[x](javascript:window.__xss=9) [cite:L:12:3:::{XSS_KEYWORD}:{XSS_SUMMARY}] "
        f"and [cite:F:17::::{XSS_KEYWORD}:{XSS_SUMMARY}]"
    )
    page = preview.open(text, units=units, faqs=faqs)
    for wrap in page.locator(".cite-chip-wrap").all():
        wrap.locator(".cite-chip").hover()
        wrap.locator(".cite-tip").wait_for(state="visible")
        page.wait_for_timeout(50)
    page.locator(".cite-chip").first.click()
    page.locator("p").first.click()  # would follow a live javascript: link if there were one
    page.wait_for_timeout(200)
    assert page.evaluate("typeof window.__xss") == "undefined"
    counts = page.evaluate(
        "(() => { const r = document.getElementById('chips-host').shadowRoot;"
        " return [r.querySelectorAll('img').length, r.querySelectorAll('script').length,"
        " r.querySelectorAll('a').length]; })()"
    )
    assert counts == [0, 0, 0]
    labels = page.locator(".cite-chip__label").all_inner_texts()
    assert labels == [XSS_KEYWORD, XSS_KEYWORD]
    text_out = preview.body_text()
    for needle in (XSS_SUMMARY, "<script>window.__xss=5</script>", "<img src=x onerror=window.__xss=4>"):
        assert needle in text_out
    assert "<img src=x onerror=window.__xss=6>" in text_out
    assert preview.errors == []


def test_screenshot_of_an_answer_with_an_open_tooltip(preview: Preview) -> None:
    page = preview.open(ANSWER)
    page.set_viewport_size({"width": 900, "height": 560})
    wrap = preview.chip("Merge step")
    wrap.locator(".cite-chip").hover()
    wrap.locator(".cite-tip").wait_for(state="visible")
    wrap.locator(".cite-tip__nav--next").click()
    page.wait_for_timeout(200)  # let the fade-in finish
    page.screenshot(path=str(SCREENSHOT))
    assert SCREENSHOT.stat().st_size > 10_000


STREAMLIT_APP = """
import json
import streamlit as st
from studio.chips import render_chips

UNITS = json.loads({units!r})
FAQS = json.loads({faqs!r})
st.session_state.setdefault("clicks", [])
value = render_chips({text!r}, UNITS, FAQS, key="answer")
if value is not None:
    st.session_state.clicks.append(value)
st.code(json.dumps(st.session_state.clicks), language=None)
"""


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_clicks_reach_python_through_streamlit(browser: Any, tmp_path: Path) -> None:
    """The real component in a real Streamlit server: each click is one new value in Python."""
    import subprocess
    import sys
    import time
    import urllib.request

    app = tmp_path / "chips_app.py"
    text = f"Merging is linear.{SLIDE} Depth.{VIDEO} Notes.{FAQ}"
    app.write_text(STREAMLIT_APP.format(units=json.dumps(UNITS), faqs=json.dumps(FAQS), text=text), encoding="utf-8")
    port = _free_port()
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(app), "--server.port", str(port), "--server.address",
         "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    context = browser.new_context(viewport={"width": 1000, "height": 700})
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(url + "/_stcore/health", timeout=2).read()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise AssertionError("streamlit did not start") from None
                time.sleep(0.3)
        page = context.new_page()
        page.goto(url)
        chips = page.locator(".cite-chip")
        chips.first.wait_for(timeout=60_000)
        assert chips.count() == 3
        code = page.locator("code").last

        def recorded(n: int) -> list[dict[str, Any]]:
            page.wait_for_function(
                "n => { const c = [...document.querySelectorAll('code')].pop();"
                " return c && JSON.parse(c.textContent).length === n; }",
                arg=n,
                timeout=30_000,
            )
            return list(json.loads(code.inner_text()))

        chips.nth(0).click()
        first = recorded(1)
        chips.nth(0).click()
        second = recorded(2)
        chips.nth(1).click()
        third = recorded(3)
        assert [c["kind"] for c in third] == ["slide", "slide", "video"]
        assert first[0]["page"] == 3 and third[2]["start"] == 75
        assert second[0]["nonce"] != second[1]["nonce"]
        chips.nth(2).click(force=True)  # the FAQ chip sends nothing
        page.wait_for_timeout(1500)
        assert len(json.loads(code.inner_text())) == 3
    finally:
        context.close()
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_gone_deck_or_video_opens_the_unit_and_an_unknown_unit_sends_nothing(preview: Preview) -> None:
    units = {"12": dict(UNITS["12"], hasDeck=False, hasVideo=False)}
    text = f"A.{SLIDE} B.{VIDEO} C.[cite:L:99:3:::Lost:Unknown unit.] D.[cite:L:12::::Unit:No position.]"
    page = preview.open(text, units)
    chips = page.locator(".cite-chip")
    assert chips.count() == 4
    for i in range(4):
        chips.nth(i).click(force=True)  # the unknown unit's chip is aria-disabled: click it anyway
    kinds = [(c["value"]["kind"], c["value"]["unitId"], c["value"]["reason"]) for c in preview.clicks()]
    assert kinds == [("unit", "12", "gone"), ("unit", "12", "gone"), ("unit", "12", "position")]
    assert "cite-chip--gone" in (chips.nth(0).get_attribute("class") or "")
    lost = preview.chip("Lost")
    assert lost.locator(".cite-chip").get_attribute("aria-disabled") == "true"
    assert "cite-chip--blocked" in (lost.locator(".cite-chip").get_attribute("class") or "")
    lost.locator(".cite-chip").hover()
    lost.locator(".cite-tip").wait_for(state="visible")
    tip = lost.locator(".cite-tip").inner_text()
    assert "Unit 99 (not found)" in tip and "This unit is not in this course: the chip cannot open it" in tip
    assert "Click to" not in tip
    preview.away()
    gone = preview.chip("Merge step")
    gone.locator(".cite-chip").hover()
    notice = gone.locator(".cite-tip__notice--error")
    notice.wait_for(state="visible")
    assert notice.inner_text() == "The cited deck no longer exists: a click opens the unit"
    assert preview.errors == []


def test_unreleased_units_and_hidden_slides_are_not_clickable_and_say_why(preview: Preview) -> None:
    """The flags the Library may add to a unit (``released``, ``hiddenPages``), from hand-written unit tables."""
    units = {"12": dict(UNITS["12"], hiddenPages=[3]), "7": dict(UNITS["7"], released=False)}
    text = (f"Hidden.{SLIDE} Shown.[cite:L:12:4:::Split:Divides the list.:va2] "
            "Unreleased.[cite:L:7:1:::Draft:Not out.:va1]")
    page = preview.open(text, units)
    for keyword, why in (("Merge step", "This slide is hidden: the chip cannot open it"),
                         ("Draft", "This unit is not released yet: the chip cannot open it")):
        wrap = preview.chip(keyword)
        chip = wrap.locator(".cite-chip")
        assert chip.get_attribute("aria-disabled") == "true" and why in (chip.get_attribute("aria-label") or "")
        chip.hover()
        wrap.locator(".cite-tip").wait_for(state="visible")
        assert why in wrap.locator(".cite-tip").inner_text()
        chip.click(force=True)
        preview.away()
    assert preview.clicks() == []
    page.locator(".cite-chip").nth(1).click()
    assert [c["value"]["page"] for c in preview.clicks()] == [4]
    assert preview.errors == []


def test_a_long_summary_scrolls_inside_a_capped_tooltip(preview: Preview) -> None:
    summary = ("Merging two sorted halves takes linear time because every step places one element. " * 30)[:2000]
    preview.open(f"Long.[cite:L:12:3:::Long:{summary}:va2]")
    wrap = _open_tip(preview, "Long")
    tip = wrap.locator(".cite-tip")
    assert tip.bounding_box()["height"] < 420
    body = tip.locator(".cite-tip__summary")
    assert body.evaluate("el => el.scrollHeight > el.clientHeight && getComputedStyle(el).overflowY === 'auto'")
    assert preview.errors == []


def test_a_tooltip_wider_than_a_narrow_answer_stays_inside_the_window(browser: Any, tmp_path: Path) -> None:
    """An answer column narrower than the card at the right edge of an 800 px window (the Ask page's chat)."""
    context = browser.new_context(viewport={"width": 800, "height": 600})
    try:
        page = context.new_page()
        path = tmp_path / "narrow.html"
        doc = html_preview_document(f"Merging is linear and that is all.{SLIDE}", UNITS, FAQS)
        path.write_text(doc.replace("#chips-host {{ max-width: 760px; }}", "").replace(
            "#chips-host { max-width: 760px; }",
            "#chips-host { position: absolute; left: 520px; width: 260px; top: 300px; }"), encoding="utf-8")
        page.goto(path.as_uri())
        page.wait_for_function("window.__chipsReady === true")
        page.locator(".cite-chip").hover()
        tip = page.locator(".cite-tip")
        tip.wait_for(state="visible")
        page.wait_for_timeout(200)
        box = tip.bounding_box()
        assert box["x"] >= 8 and box["x"] + box["width"] <= 792, box
    finally:
        context.close()


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_chip_report_matches_what_the_renderer_draws(preview: Preview, case: dict[str, Any]) -> None:
    """studio/chip_report.py (the Chip preview's "rendered as chip?" column) agrees with the renderer."""
    from studio.chip_report import chip_report

    page = preview.open(case["text"])
    report = chip_report(case["text"])
    assert page.locator(".cite-chip").count() == len({r.group for r in report if r.chip})
    text = preview.body_text()
    for row in report:
        if not row.chip and "\n" not in row.marker:
            assert row.marker in text, row


def test_empty_or_malformed_data_renders_without_errors(preview: Preview) -> None:
    page = preview.open("")
    assert page.locator(".cite-chip").count() == 0
    result = page.evaluate(
        """(() => {
          const out = [];
          for (const data of [null, {}, {html: 5, units: [], faqs: "x"},
                              {html: '<p><span class="cite-raw" data-cite="[cite:L:1:2:::k:s]">x</span></p>',
                               units: {"1": null}, faqs: null}]) {
            const host = document.createElement("div");
            document.body.appendChild(host);
            const shadow = host.attachShadow({mode: "open"});
            const cleanup = window.__mountCitationChips({data, parentElement: shadow,
              setStateValue() {}, setTriggerValue() {}});
            out.push(shadow.querySelectorAll(".cite-chip").length);
            cleanup();
            out.push(shadow.childNodes.length);
          }
          return out;
        })()"""
    )
    assert result == [0, 0, 0, 0, 0, 0, 1, 0]
    assert preview.errors == []


def _audit(index: int, text: str, verdict: str = "supported", reason: str = "") -> dict[str, Any]:
    return {"index": index, "evidence": {"text": text, "start": 0, "end": len(text)}, "verdict": verdict,
            "score": 1.0 if verdict == "supported" else 0.1, "reason": reason}


def test_tooltips_quote_the_evidence_and_a_click_sends_it(preview: Preview) -> None:
    text = f"Merging is linear.{SLIDE} The exam is open book.{FAQ} Heaps are trees.{SLIDE2}"
    evidence = "• Merge compares the heads of L and R\n• and copies the smaller one into A"
    audits = [_audit(0, evidence), _audit(1, "Yes: you may bring printed notes."),
              _audit(2, "Split at the midpoint", "unsupported", "shares 0 of 3 terms (nothing)")]
    page = preview.open(text, audits=audits)

    slide = _open_tip(preview, "Merge step").locator(".cite-tip")
    assert slide.locator(".cite-tip__quote-label").inner_text().lower() == "on the slide"
    assert slide.locator(".cite-tip__quote-text").inner_text() == (
        "“Merge compares the heads of L and R and copies the smaller one into A”")
    preview.away()
    faq = _open_tip(preview, "Exam").locator(".cite-tip")
    parts = faq.evaluate("t => [...t.children].map(c => c.className)")
    assert parts.index("cite-tip__rows") < parts.index("cite-tip__quote"), "an FAQ: question, then the answer's part"
    assert "Is the exam open book?" in faq.inner_text() and "“Yes: you may bring printed notes.”" in faq.inner_text()
    preview.away()
    wrong = _open_tip(preview, "Split").locator(".cite-tip")
    assert "The cited source may not support this sentence (shares 0 of 3 terms (nothing))" in wrong.inner_text()
    preview.away()

    page.locator(".cite-chip").first.click()
    assert preview.clicks()[-1]["value"]["quote"] == evidence, "the whole passage, lines and bullets kept"
    assert preview.errors == []


def test_the_newest_drawing_of_an_answer_being_written_is_the_one_shown(preview: Preview) -> None:
    """The Ask page redraws an answer being written into a ring of slots (components keyed partial-<n>): once a
    drawing has drawn, the newest drawn one shows and the others hide. A drawing whose script runs late (the
    first one loads it) does not hide a newer one; a component that is no such drawing is left alone."""
    preview.open("")
    shown = preview.page.evaluate(
        """(() => {
          const block = document.createElement("div");
          document.body.appendChild(block);
          const slot = (key) => {
            const container = document.createElement("div");
            container.className = "stElementContainer " + key;
            block.appendChild(container);
            const host = document.createElement("div");
            container.appendChild(host);
            return {container, shadow: host.attachShadow({mode: "open"})};
          };
          const draw = (s) => window.__mountCitationChips({data: {html: "<p>Merge is linear.</p>", units: {},
            faqs: {}}, parentElement: s.shadow, setStateValue() {}, setTriggerValue() {}});
          const visible = (s) => getComputedStyle(s.container).display !== "none";
          const other = slot("st-key-answer");
          const [one, two, three] = [slot("st-key-partial-1"), slot("st-key-partial-2"), slot("st-key-partial-3")];
          const out = [];
          draw(two);                       // the second drawing's script runs first
          out.push([visible(one), visible(two)]);
          draw(one);                       // the first one's late: the second stays shown
          out.push([visible(one), visible(two)]);
          draw(three);
          out.push([visible(one), visible(two), visible(three)]);
          draw(other);
          out.push([visible(three), visible(other)]);
          return out;
        })()""")
    assert shown == [[True, True], [False, True], [False, False, True], [True, True]]
    assert preview.errors == []
