"""Hostile material and hostile model output never run in the browser: everything shows as literal text.

A course whose slide texts, FAQ, unit and lecture names carry HTML/JS payloads, and an OpenAI-compatible
model (a LocalChatServer on 127.0.0.1) whose answers, keywords and summaries carry more. Every payload
sets ``window.__xss`` to its own number if it ever runs; the test drives Ask (written and pasted answer,
hover, Trace and Raw answer tabs, History) and the Library, then checks that nothing ran, no dialog
opened, no ``javascript:`` link and no ``<img src=x>`` exist (Playwright locators pierce the chip
component's shadow root) and that the payloads are visible as text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from citation_core.testing.server import LocalChatServer, Reply

from .harness import ROOT, ask, running_app, wait_idle

pytestmark = pytest.mark.e2e

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")

SCRIPT_1 = "<script>window.__xss=1</script>"
IMG_2 = '<img src=x onerror="window.__xss=2">'
LINK_3 = "[click me](javascript:window.__xss=3)"
FAQ_IMG_4 = '<img src=x onerror="window.__xss=4">'
SCRIPT_5 = "<script>window.__xss=5</script>"
IMG_6 = '<img src=x onerror="window.__xss=6">'
LINK_7 = "[link](javascript:window.__xss=7)"
IMG_8 = '<img src=x onerror="window.__xss=8">'
# extra places: names of the course, lecture and unit, the FAQ question, the student's question
COURSE_IMG_9 = '<img src=x onerror="window.__xss=9">'
LECTURE_LINK_10 = "[evil](javascript:window.__xss=10)"
UNIT_SCRIPT_11 = "<script>window.__xss=11</script>"
FAQ_Q_SCRIPT_12 = "<script>window.__xss=12</script>"
QUESTION_IMG_13 = '<img src=x onerror="window.__xss=13">'
QUESTION_LINK_14 = "[q](javascript:window.__xss=14)"
# Markdown (not HTML) in a slide title: an image from another origin (port 9: nothing listens there)
PIXEL_URL = "http://127.0.0.1:9/p.png"
PIXEL_TITLE = f"Pixel ![p]({PIXEL_URL})"

# deck pages: the first line becomes the page title (shown in the Library and in the slide picker)
PAGES = [
    ["Merging two sorted halves",
     "Merge sort splits the array into two halves and sorts each half recursively.",
     "The merge step then combines the two sorted halves into one sorted array."],
    [SCRIPT_1,
     "The merge procedure compares the front elements of both sorted halves.",
     "It copies the smaller front element to the output and advances in that half.",
     f"Speaker note: {IMG_2} and {LINK_3}."],
    [IMG_2,
     "Each comparison places exactly one element, so merging n elements takes linear time.",
     "When one half is empty, the rest of the other half is copied as it is."],
    [LINK_3,
     "Merging needs an auxiliary array of the same size as the input.",
     f"The recurrence T(n) = 2T(n/2) + n solves to n log n. {SCRIPT_1}"],
    ["Summary of the merge step",
     f"Payloads on a normal page: {SCRIPT_1} {IMG_2} {LINK_3}",
     "Merge sort is stable and runs in n log n time in every case."],
    [PIXEL_TITLE,
     "Slide titles are data: a Markdown image in one must not load anything."],
]

WRITER_ANSWER = (
    f"Merging walks through both sorted halves and always copies the smaller front element. {SCRIPT_5}\n\n"
    f"The slide also shows {IMG_6} and a {LINK_7} for the curious.\n\n"
    "Each comparison places one element, so merging takes linear time."
)
PASTED_ANSWER = (
    f"Merging needs an auxiliary array as large as the input. {SCRIPT_5}\n\n"
    f"Look at {IMG_6} and {LINK_7} please.\n\n"
    "The recurrence of merge sort solves to n log n."
)
QUESTION = f"How does the merge procedure combine two sorted halves? {QUESTION_IMG_13} {QUESTION_LINK_14}"
PASTED_QUESTION = f"Why does merging need an auxiliary array of extra memory? {QUESTION_LINK_14}"

UNSAFE_SELECTORS = {
    "javascript: link": 'a[href^="javascript:" i]',
    "javascript: anything": '[href^="javascript:" i], [src^="javascript:" i], [action^="javascript:" i]',
    "img src=x": 'img[src="x"]',
    "onerror attribute": "[onerror]",
}


def _text_of(content: Any) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content or "")


def _between(prompt: str, heads: tuple[str, ...], tail: str) -> str:
    for head in heads:
        if head in prompt:
            return prompt.split(head, 1)[1].split(tail, 1)[0]
    return ""


def hostile_model(body: dict[str, Any]) -> Reply:
    """The answer writer, placement, keyword and summary roles, all returning payloads."""
    messages = body.get("messages") or []
    first = _text_of(messages[0].get("content")) if messages else ""
    if "tutor for the course" in first:
        if body.get("tools") and not any(m.get("role") == "tool" for m in messages):
            # round 1: retrieve, so that the slides and the FAQ both reach citation placement
            return Reply(tool_calls=[
                {"function": {"name": "lecture_retrieval", "arguments": {"query": "merge sorted halves"}}},
                {"function": {"name": "faq_retrieval", "arguments": {"query": "merging extra memory auxiliary"}}},
            ])
        return Reply(content=WRITER_ANSWER)
    if "Paragraphs:" in first or "FAQ entries:" in first:
        answer = first.rsplit("\nAnswer:\n", 1)[1].rstrip("\n")
        entries = json.loads(_between(first, ("Paragraphs:\n", "FAQ entries:\n"), "\n\nAnswer:"))
        # the answer plus the first id: lecture ids at the end, FAQ ids behind the first sentence (two chips)
        cut = answer.find(". ") + 1 if "FAQ entries:" in first and ". " in answer else len(answer)
        return Reply(content=f"{answer[:cut]}{entries[0]['id']}{answer[cut:]}")
    return Reply(content=IMG_8)  # keyword and summary requests


def make_deck(path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF(orientation="L", unit="pt", format=(540, 960))
    pdf.set_auto_page_break(False)
    if DEJAVU.is_file():
        pdf.add_font("DejaVu", "", str(DEJAVU))
        family = "DejaVu"
    else:
        family = "Helvetica"  # core font: the texts above are ASCII
    for lines in PAGES:
        pdf.add_page()
        pdf.set_font(family, size=30)
        pdf.set_xy(50, 50)
        pdf.multi_cell(860, 38, lines[0])
        pdf.set_font(family, size=20)
        pdf.set_xy(50, 150)
        pdf.multi_cell(860, 28, "\n".join(lines[1:]))
    pdf.output(str(path))


def make_course(root: Path) -> Path:
    course = root / "hostile_course"
    course.mkdir()
    make_deck(course / "deck.pdf")
    manifest = {
        "id": 77, "name": f"Hostile course {COURSE_IMG_9}", "language": "en", "faqs": "faqs.yml",
        "lectures": [{"id": 770, "name": f"Lecture 1 {LECTURE_LINK_10}", "units": [{
            "id": 7701, "name": f"Merging {UNIT_SCRIPT_11} halves", "language": "en", "deck": "deck.pdf",
            "versions": {"attachment": 1, "video": 1}}]}],
    }
    (course / "course.yml").write_text(yaml.safe_dump(manifest, allow_unicode=True), encoding="utf-8")
    faqs = [{"id": 1, "question": f"Why does merging need extra memory? {FAQ_Q_SCRIPT_12}",
             "answer": f"Merging copies both halves into an auxiliary array, so it needs extra memory. {FAQ_IMG_4}",
             "language": "en"},
            {"id": 2, "question": "When is the exam?", "answer": "At the end of the semester.", "language": "en"}]
    (course / "faqs.yml").write_text(yaml.safe_dump(faqs, allow_unicode=True), encoding="utf-8")
    return course


def make_config(root: Path, course: Path, base_url: str) -> Path:
    cfg = root / "config"
    cfg.mkdir()
    models = {"models": [
        {"id": "offline", "type": "offline", "model": "offline-extractive-1"},
        {"id": "hostile", "type": "openai_chat", "model": "hostile-model", "base_url": base_url,
         "max_retries": 0, "timeout": 10},
    ]}
    roles = {"chat": "hostile"}
    app = {
        "llm_configuration": {
            "citation_pipeline": {"default": {"chat": "hostile", "keyword_summary": "hostile"}, "advanced": roles},
            "chat_pipeline": {"default": roles, "advanced": roles},
        },
        "citation": {"keyword_strategy": "sequential"},
        "material": {"course_dirs": [str(course)]},
        "prompts_dir": str(ROOT / "prompts"),
    }
    (cfg / "llm_config.yml").write_text(yaml.safe_dump(models), encoding="utf-8")
    (cfg / "application.yml").write_text(yaml.safe_dump(app), encoding="utf-8")
    return cfg


@pytest.fixture(scope="module")
def hostile_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, LocalChatServer]]:
    root = tmp_path_factory.mktemp("hostile")
    course = make_course(root)
    with LocalChatServer(hostile_model) as server:
        cfg = make_config(root, course, server.base_url)
        env = {"CITATION_STUDIO_CONFIG_DIR": str(cfg), "CITATION_STUDIO_DB": str(root / "lms.sqlite3")}
        with running_app(env) as url:
            yield url, server


def assert_nothing_ran(page: Any, dialogs: list[str], errors: list[str], where: str) -> None:
    for frame in page.frames:
        assert frame.evaluate("() => typeof window.__xss") == "undefined", f"{where}: a payload ran ({frame.url})"
    assert dialogs == [], f"{where}: dialogs opened: {dialogs}"
    assert errors == [], f"{where}: page errors: {errors}"
    for what, selector in UNSAFE_SELECTORS.items():
        n = page.locator(selector).count()
        assert n == 0, f"{where}: {n} element(s) matching {what} ({selector})"


def literal(page: Any, text: str, within: Any = None) -> None:
    """``text`` is on the page as visible characters (not as an element)."""
    (within or page).get_by_text(text, exact=False).filter(visible=True).first.wait_for(timeout=20_000)


def hovered_tip(page: Any, chip: Any) -> Any:
    """Hover ``chip`` from outside the answer and return its own tooltip card once it shows (a card of
    another chip that was under the pointer may still be fading out)."""
    page.mouse.move(0, 0)
    chip.hover()
    tip = chip.locator("xpath=following-sibling::*[contains(@class, 'cite-tip')]")
    tip.wait_for(state="visible", timeout=5_000)
    return tip


def test_hostile_material_and_model_output_stay_text(hostile_app: tuple[str, LocalChatServer],
                                                     new_page: Callable[..., tuple[Any, list[str]]]) -> None:
    url, server = hostile_app
    page, errors = new_page(1280, 900)
    dialogs: list[str] = []

    def on_dialog(d: Any) -> None:
        dialogs.append(f"{d.type}: {d.message}")
        d.dismiss()

    page.on("dialog", on_dialog)
    page.goto(url)
    page.get_by_text("Ask about what you see").wait_for(timeout=60_000)
    wait_idle(page)
    # the unit name (a subheader) and the viewer: page 2's title is the <script> payload
    literal(page, UNIT_SCRIPT_11)
    page.get_by_role("button", name="▶").click()
    wait_idle(page)
    assert "(page 2 of 6)" in page.get_by_test_id("viewer-caption").inner_text()
    assert_nothing_ran(page, dialogs, errors, "Ask page, slide 2")

    # 1) a written answer: the writer, placement, keyword and summary replies all carry payloads
    ask(page, QUESTION)
    answer = page.locator("[data-testid=stChatMessage]").last
    for text in ("window.__xss=5", "onerror=\"window.__xss=6\"", "javascript:window.__xss=7"):
        literal(page, text, answer)
    literal(page, SCRIPT_5, answer)
    question = page.locator("[data-testid=stChatMessage]").nth(-2)
    literal(page, "onerror=\"window.__xss=13\"", question)
    chips = answer.locator("button.cite-chip")
    assert chips.count() >= 2, "expected a slide chip and an FAQ chip"
    assert answer.locator("button.cite-chip--faq").count() >= 1
    assert IMG_8 in chips.first.inner_text()  # the keyword is the chip label, as text
    tip = hovered_tip(page, answer.locator("button.cite-chip--slide").first)
    assert "__xss=8" in tip.inner_text() and "onerror" in tip.inner_text() and UNIT_SCRIPT_11 in tip.inner_text()
    tip = hovered_tip(page, answer.locator("button.cite-chip--faq").first)
    assert "__xss=12" in tip.inner_text()
    page.mouse.move(0, 0)
    assert_nothing_ran(page, dialogs, errors, "written answer")

    # the Trace tab (prompts, raw placement output, model calls) and the Raw answer tab
    page.get_by_test_id("stButtonGroup").get_by_text("Trace", exact=True).click()
    wait_idle(page)
    # the pass expanders of the Trace view (not of the view before it, should the rerun start late)
    headers = page.locator("[data-testid=stExpander] summary").filter(has_text="pass")
    headers.first.wait_for(timeout=30_000)
    wait_idle(page)
    for header in headers.all():
        header.click()
    wait_idle(page)
    literal(page, "window.__xss=1")  # the slide text in a prompt
    literal(page, "window.__xss=4")  # the FAQ answer in the FAQ placement prompt
    assert_nothing_ran(page, dialogs, errors, "Trace tab")
    page.get_by_test_id("stButtonGroup").get_by_text("Raw answer", exact=True).click()
    wait_idle(page)
    literal(page, SCRIPT_5)
    assert_nothing_ran(page, dialogs, errors, "Raw answer tab")

    # 2) a pasted answer with the same payloads (QA mode: retrieval, placement, keywords, summaries)
    ask(page, PASTED_QUESTION, pasted=PASTED_ANSWER)
    answer = page.locator("[data-testid=stChatMessage]").last
    literal(page, "Merging needs an auxiliary array", answer)
    literal(page, SCRIPT_5, answer)
    literal(page, "javascript:window.__xss=7", answer)
    assert answer.locator("button.cite-chip").count() >= 1
    assert "__xss=8" in hovered_tip(page, answer.locator("button.cite-chip").first).inner_text()
    page.mouse.move(0, 0)
    # the History expander lists the conversation titles (the question) as buttons
    page.get_by_text(re.compile(r"History \(\d+ conversations?\)")).click()
    wait_idle(page)
    assert_nothing_ran(page, dialogs, errors, "pasted answer")

    # 3) the Library: unit tabs, page thumbnails with their titles, FAQs
    page.get_by_role("link", name="Library").click()
    page.get_by_text("Upload a deck").wait_for(timeout=30_000)
    wait_idle(page)
    literal(page, "printed")
    for text in (SCRIPT_1, IMG_2):  # page titles in the thumbnail captions
        literal(page, text)
    literal(page, UNIT_SCRIPT_11)
    page.get_by_role("tab", name="FAQs").click()
    wait_idle(page)
    assert_nothing_ran(page, dialogs, errors, "Library")

    assert any("tutor for the course" in _text_of(r.body["messages"][0]["content"]) for r in server.requests)


def test_library_shows_titles_and_names_as_plain_text(hostile_app: tuple[str, LocalChatServer],
                                                      new_page: Callable[..., tuple[Any, list[str]]]) -> None:
    url, _ = hostile_app
    page, _ = new_page(1280, 900)
    foreign: list[str] = []
    page.on("request", lambda r: foreign.append(r.url) if r.url.startswith(PIXEL_URL) else None)
    page.goto(f"{url}/library")
    page.get_by_text("Upload a deck").wait_for(timeout=60_000)
    wait_idle(page)
    literal(page, "printed")
    page.wait_for_timeout(500)
    captions = page.get_by_test_id("stCaptionContainer").all_inner_texts()
    headline = page.get_by_text("unit 7701").first.inner_text()
    assert foreign == [], f"a slide title loaded {foreign}"
    assert any(LINK_3 in c for c in captions), f"the page 4 title is not shown as written: {captions}"
    assert any(PIXEL_TITLE in c for c in captions), f"the page 6 title is not shown as written: {captions}"
    assert LECTURE_LINK_10 in headline, f"the lecture name is not shown as written: {headline!r}"
