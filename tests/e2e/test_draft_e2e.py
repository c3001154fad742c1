"""The draft answer shows at once, uncited and marked as a draft, while a slow model adds the citations;
then the cited answer replaces it. The writer is the offline model, the citation stage a LocalChatServer on
127.0.0.1 that waits before every reply."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from citation_core.testing import LocalChatServer, cooperative_handler

from .harness import ROOT, open_ask, running_app, wait_idle

pytestmark = pytest.mark.e2e

DELAY = 2.5  # seconds per citation-stage call: placement, then keywords and summaries


@pytest.fixture(scope="module")
def slow_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("draft")
    with LocalChatServer(cooperative_handler(delay=DELAY)) as server:
        cfg = root / "config"
        cfg.mkdir()
        models = {"models": [
            {"id": "offline", "type": "offline", "model": "offline-extractive-1"},
            {"id": "slow", "type": "openai_chat", "model": "slow-model", "base_url": server.base_url,
             "max_retries": 0, "timeout": 30}]}
        app = {"llm_configuration": {
                   "citation_pipeline": {"default": {"chat": "slow", "keyword_summary": "slow"},
                                         "advanced": {"chat": "slow"}},
                   "chat_pipeline": {"default": {"chat": "offline"}, "advanced": {"chat": "offline"}}},
               "material": {"course_dirs": [str(ROOT / "sample_decks")]},
               "prompts_dir": str(ROOT / "prompts")}
        (cfg / "llm_config.yml").write_text(yaml.safe_dump(models), encoding="utf-8")
        (cfg / "application.yml").write_text(yaml.safe_dump(app), encoding="utf-8")
        env = {"CITATION_STUDIO_CONFIG_DIR": str(cfg), "CITATION_STUDIO_DB": str(root / "lms.sqlite3"),
               "OPENAI_API_KEY": "test-key"}
        with running_app(env) as url:
            yield url


def test_the_draft_shows_before_the_citations_and_the_cited_answer_replaces_it(slow_app: str, new_page: Any) -> None:
    page, errors = new_page(1400, 1000)
    open_ask(page, slow_app)
    page.get_by_label("Question").fill("How does merging work?")
    page.get_by_text("Paste an answer instead").click()
    page.get_by_label("Answer to cite").fill("Merge compares the first remaining elements of L and R and copies the "
                                             "smaller one into A. Taking from L when keys are equal makes merge "
                                             "sort stable.")
    asked = time.monotonic()
    page.get_by_role("button", name="Ask", exact=True).click()

    draft = page.get_by_text("Draft · the citations are being added")
    draft.wait_for(timeout=DELAY * 1000)  # before the first citation-stage reply could have come back
    seen_after = time.monotonic() - asked
    message = page.locator("[data-testid=stChatMessage]").last
    body = message.locator(".cite-answer__body")
    body.wait_for(timeout=5_000)
    assert "copies the smaller one into A" in (body.text_content() or "")
    assert message.locator("button.cite-chip").count() == 0, "the draft is uncited"
    assert page.get_by_text("Adding citations").count() >= 1

    page.get_by_text("Draft · the citations are being added").wait_for(state="detached", timeout=60_000)
    wait_idle(page, timeout=60_000)
    answer = page.locator("[data-testid=stChatMessage]").last
    answer.locator("button.cite-chip").first.wait_for(timeout=10_000)
    assert page.locator("[data-testid=stChatMessage]").count() == 2, "the cited answer replaced the draft"
    assert seen_after < DELAY, seen_after
    assert not errors, errors


def test_a_question_is_answered_although_the_page_reruns_while_it_is_cited(slow_app: str, new_page: Any) -> None:
    """A widget changed while the answer is being cited ends that run of the page; the question must not be
    lost with it (it was: "Adding citations…" stayed on the page, nothing was stored)."""
    page, errors = new_page(1400, 1000)
    open_ask(page, slow_app)
    stored = "() => document.querySelectorAll('[class*=\"st-key-msg-\"]').length"
    before = page.evaluate(stored)
    page.get_by_label("Question").fill("What does the merge step do?")
    page.get_by_role("button", name="Ask", exact=True).click()
    page.get_by_text("Draft · the citations are being added").wait_for(timeout=DELAY * 1000)
    page.get_by_label("Variant").click()  # a new run of the whole page while placement waits for its reply
    page.get_by_role("option", name="advanced", exact=True).click()
    page.wait_for_function(f"() => ({stored})() >= {before + 1}", timeout=60_000)
    wait_idle(page, timeout=60_000)
    answer = page.locator("[data-testid=stChatMessage]").last
    answer.locator("button.cite-chip").first.wait_for(timeout=10_000)
    assert page.locator("[data-testid=stChatMessage]").count() == 2, "asked once, answered once"
    assert page.get_by_text("Draft · the citations are being added").count() == 0
    assert not errors, errors
