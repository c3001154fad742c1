"""Cited while it streams (``citation.mode: inline``): on Ask, the first chip shows while the model is still
writing the answer, there is no draft to swap, and the stored answer is the one shown."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.streaming import config_dir
from citation_core.contract import parse
from citation_core.llm.config import CONFIG_DIR_ENV, OVERRIDE_ENV
from citation_core.lms.store import LmsStore
from citation_core.testing.server import ChatRequest, LocalChatServer, Reply

from .harness import open_ask, wait_idle

pytestmark = pytest.mark.e2e

FIRST = "Merge compares the heads of both sorted halves and copies the smaller one."
REST = " So merging n elements takes linear time."


def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return f"data: {json.dumps(body)}\n\n".encode()


class HeldWriter:
    """A writer that streams its first sentence with the open slide's handle, then goes on word by word until
    the test has seen what it waits for (at most a minute); keywords and summaries are answered at once."""

    def __init__(self) -> None:
        self.go_on = threading.Event()

    def stream(self) -> Iterator[bytes]:
        yield chunk({"role": "assistant", "content": ""})
        for word in (FIRST + "[cite:1]").split(" "):
            yield chunk({"content": word + " "})
        for _ in range(600):  # a model still writing: a word every 0.1 s
            if self.go_on.wait(0.1):
                break
            yield chunk({"content": "and "})
        yield chunk({"content": REST})
        yield chunk({}, "stop")
        yield b"data: [DONE]\n\n"

    def __call__(self, request: ChatRequest) -> Reply:
        if request.task == "writer":
            return Reply(raw_stream=self.stream)
        if request.task == "keyword":
            return Reply(content="Merging heads")
        return Reply(content="The merge step compares the heads of both halves.")


def inline_app(server: LocalChatServer, tmp_path: Path, start_app: Callable[..., str]) -> str:
    """The app with every role on ``server``'s model and ``citation.mode: inline``, its own store: its URL."""
    folder = config_dir(server.base_url, tmp_path / "config")
    app = yaml.safe_load((folder / "application.yml").read_text(encoding="utf-8"))
    app.setdefault("citation", {})["mode"] = "inline"
    (folder / "application.yml").write_text(yaml.safe_dump(app), encoding="utf-8")
    return start_app({CONFIG_DIR_ENV: str(folder), OVERRIDE_ENV: "local",
                      "CITATION_STUDIO_DB": str(tmp_path / "lms.sqlite3"),
                      "CITATION_STUDIO_LIBRARY": str(tmp_path / "library")})


def ask_on(page: Any, question: str = "How does merge combine the halves?") -> None:
    """Type ``question`` and click Ask (without waiting: the tests watch the answer being written)."""
    page.get_by_label("Question").fill(question)
    page.get_by_label("Question").blur()
    page.get_by_role("button", name="Ask", exact=True).click()


@pytest.mark.timeout(300)
def test_the_first_chip_shows_while_the_answer_is_still_written(
        tmp_path: Path, start_app: Callable[..., str], new_page: Callable[..., tuple[Any, list[str]]]) -> None:
    writer = HeldWriter()
    with LocalChatServer(writer) as srv:
        url = inline_app(srv, tmp_path, start_app)
        page, errors = new_page(height=1100)
        open_ask(page, url)
        ask_on(page)
        # the writer holds its stream after the first sentence: a chip shows now, while it is still writing
        writing = page.locator("[class*=st-key-partial-]:visible").last
        writing.locator("button.cite-chip").first.wait_for(timeout=60_000)
        assert page.get_by_text("Writing · each chip appears as soon as its source is ready").count() == 1
        assert "linear time" not in writing.inner_text()
        assert page.get_by_text("Draft · the citations are being added").count() == 0
        writer.go_on.set()
        page.locator("[class*=st-key-msg-]").last.locator("button.cite-chip").first.wait_for(timeout=60_000)
        wait_idle(page)
        assert page.get_by_text("Draft · the citations are being added").count() == 0
        assert errors == []
    (conversation,) = LmsStore(tmp_path / "lms.sqlite3").conversations()
    _, answer = LmsStore(tmp_path / "lms.sqlite3").messages(conversation.id)
    markers = parse(answer.content, "stored")
    assert answer.content.startswith(FIRST) and answer.content.rstrip().endswith("linear time.")
    assert [(m.source_ref().entity_id, m.source_ref().page) for m in markers] == [("101", 1)]  # the open slide
    assert markers[0].keyword == "Merging heads"


class HeldSummary(HeldWriter):
    """``HeldWriter`` whose summary is held too, until the test has seen the answer waiting for its chip."""

    def __init__(self) -> None:
        super().__init__()
        self.summary_go_on = threading.Event()

    def __call__(self, request: ChatRequest) -> Reply:
        if request.task == "summary":
            self.summary_go_on.wait(120)
        return super().__call__(request)


@pytest.mark.timeout(300)
def test_the_status_says_the_model_cites_as_it_writes_then_which_chips_are_being_finished(
        tmp_path: Path, start_app: Callable[..., str], new_page: Callable[..., tuple[Any, list[str]]]) -> None:
    writer = HeldSummary()
    with LocalChatServer(writer) as srv:
        url = inline_app(srv, tmp_path, start_app)
        page, errors = new_page(height=1100)
        open_ask(page, url)
        ask_on(page)
        status = page.locator("[data-testid=stChatMessage]").last.locator("[data-testid=stExpander] summary")
        try:
            # the writer is still writing (its first handle's summary is held): no placement pass runs
            page.get_by_text("The model writes and cites its sources as it goes").wait_for(timeout=60_000)
            page.locator("[class*=st-key-partial-]:visible").last.get_by_text("and and").wait_for(timeout=60_000)
            label = status.inner_text()
            assert "writes and cites its sources as it goes" in label and "pass" not in label, label
            page.screenshot(path=str(tmp_path / "inline_writing.png"))
            writer.go_on.set()  # the answer is written; its one chip still waits for its summary
            page.get_by_text("Finishing 1 chip").wait_for(timeout=60_000)
            label = status.inner_text()
            assert "pass" not in label and "Adding citations" not in label, label
            # the whole text shows while its chip is finished
            page.locator("[class*=st-key-partial-]:visible").last.get_by_text("linear time").wait_for(timeout=60_000)
            page.screenshot(path=str(tmp_path / "inline_finishing.png"))
        finally:
            writer.go_on.set()
            writer.summary_go_on.set()
        page.locator("[class*=st-key-msg-]").last.locator("button.cite-chip").first.wait_for(timeout=60_000)
        wait_idle(page)
        assert errors == []


# Counted in every frame the browser draws: how many drawings of the answer being written show any text
# (their shadow roots included). Counting starts with the first one that does.
FRAMES = """() => { window.__drawn = {frames: 0, empty: 0, both: 0}; let seen = false;
  const shows = (slot) => { if (getComputedStyle(slot).display === 'none') return false;
    let n = (slot.innerText || '').trim().length;
    for (const el of slot.querySelectorAll('*')) if (el.shadowRoot) n += el.shadowRoot.textContent.trim().length;
    return n > 0; };
  const frame = () => {
    const shown = Array.from(document.querySelectorAll('[class*=st-key-partial-]')).filter(shows).length;
    if (shown) seen = true;
    if (seen) { window.__drawn.frames++; if (!shown) window.__drawn.empty++; if (shown > 1) window.__drawn.both++; }
    requestAnimationFrame(frame); };
  requestAnimationFrame(frame); }"""


@pytest.mark.timeout(300)
def test_the_answer_being_written_never_flashes_empty_between_redraws(
        tmp_path: Path, start_app: Callable[..., str], new_page: Callable[..., tuple[Any, list[str]]]) -> None:
    """The answer is redrawn about ten times a second while the model writes; a redrawn chip component is
    empty until its script has run, which showed as a blank answer in about one frame in eight."""
    writer = HeldWriter()
    with LocalChatServer(writer) as srv:
        url = inline_app(srv, tmp_path, start_app)
        page, errors = new_page(height=1100)
        open_ask(page, url)
        page.evaluate(FRAMES)
        ask_on(page)
        try:
            writing = page.locator("[class*=st-key-partial-]:visible").last
            writing.locator("button.cite-chip").first.wait_for(timeout=60_000)
            # some twenty redraws while the model writes a word every 0.1 s
            page.wait_for_function("() => window.__drawn.frames >= 150", timeout=60_000)
            drawn = page.evaluate("() => window.__drawn")
        finally:
            writer.go_on.set()
        page.locator("[class*=st-key-msg-]").last.locator("button.cite-chip").first.wait_for(timeout=60_000)
        wait_idle(page)
        assert drawn["empty"] == 0, f"the answer was blank in {drawn['empty']} of {drawn['frames']} frames"
        assert drawn["both"] == 0, f"two drawings of the answer showed in {drawn['both']} frames"
        assert errors == []
