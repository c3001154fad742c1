"""Two app processes on one PostgreSQL store, as behind a load balancer: a conversation asked in one opens
by its history link in the other, with the same chips and the same audit."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from citation_core.contract import parse
from citation_core.lms.store import LmsStore

from .harness import ask, history_of, open_ask, running_app, wait_idle

QUESTION = "Is merge sort stable?"
WRONG = "[cite:L:201:3:::Hashing:Direct addressing.]"
PASTED = (f"Merge sort runs in Theta of n log n time on every input.{WRONG} "
          "Taking from L when keys are equal makes merge sort stable.")


def markers(labels: list[str]) -> int:
    """How many markers the chip labels stand for: a group's label ends in "+n" for its n further members."""
    return sum(1 + int(m.group(1)) if (m := re.search(r"\+(\d+)$", label)) else 1 for label in labels)


def chips_and_audit(page: Any) -> tuple[list[str], list[str]]:
    """The last answer's chip labels, and the rows of its audit table (the Trace view)."""
    answer = page.locator("[class*=st-key-msg-]").last
    answer.locator("button.cite-chip").first.wait_for(timeout=30_000)
    labels = [str(text).strip() for text in answer.locator("button.cite-chip").all_inner_texts()]
    page.get_by_text("Trace", exact=True).last.click()
    wait_idle(page)
    table = page.get_by_test_id("audit-table").last
    table.wait_for(timeout=15_000)
    rows = [" ".join(str(text).split()) for text in table.locator("tbody tr").all_inner_texts()]
    return labels, rows


def test_a_conversation_asked_in_one_process_opens_in_another(postgres_url: str, new_page: Any,
                                                              tmp_path: Path) -> None:
    env = {"CITATION_STUDIO_DB": postgres_url, "CITATION_STUDIO_LIBRARY": str(tmp_path / "library")}
    with running_app(env, timeout=120) as first, running_app(env, timeout=120) as second:
        page, errors = new_page(1400, 1000)
        open_ask(page, first)
        ask(page, QUESTION, pasted=PASTED)
        key = history_of(page)
        asked = chips_and_audit(page)
        # one audit row per marker; a group chip ("Hashing +1") stands for more than one
        assert len(asked[0]) >= 2 and len(asked[1]) == markers(asked[0]), asked

        # what the first process stored is on the server, whole: the question and the cited answer
        store = LmsStore(postgres_url)
        (conversation,) = store.conversations(key)
        question, answer = store.messages(conversation.id)
        assert question.content == QUESTION and WRONG[:-1] in answer.content
        assert len(parse(answer.content, "stored")) == markers(asked[0]) == len(answer.meta["audits"])

        other, other_errors = new_page(1400, 1000)  # another browser, served by the other process
        other.goto(f"{second}/?history={key}")
        other.get_by_text("Ask about what you see").wait_for(timeout=60_000)
        wait_idle(other)
        assert other.get_by_text(QUESTION).count() >= 1
        assert chips_and_audit(other) == asked
        flagged = other.get_by_test_id("audit-table").last.locator("tbody tr.is-flagged")
        assert flagged.count() >= 1 and "Theta of n log n" in (flagged.first.text_content() or "")
        assert errors == [] and other_errors == []
