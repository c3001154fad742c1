"""The chip component's data: UTF-8 JSON bytes with the units and FAQs the answer's markers name, and no fewer."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest

from citation_core.contract import parse
from citation_core.lms.chips import chip_data
from citation_core.lms.render import render_markdown
from citation_core.material.library import load_material
from studio.chips import chip_payload, cited_ids
from studio.services import chip_context
from tests.conftest import SAMPLE_COURSE

DATA_CITE = re.compile(r'<span class="cite-raw" data-cite="([^"]*)">')

AWKWARD = [
    "In code: `[cite:L:101:4:::A:B:va1]` and after it [cite:L:201:2:::A:B:va1].",
    "> quoted [cite:L:101:4:::A:B:va1]\n> and lazily\ncontinued [cite:F:3::::Q:A]",
    "| a | b |\n|---|---|\n| [cite:L:301:5:::A:B:va1] | x |",
    "Entity &#49;01 [cite:L:&#49;01:4:::A:B:va1] and [cite:L:10&#49;:4:::A:B:va1]",
    "Escaped \\[cite:L:101:4:::A:B:va1] and a line\r\nbreak [cite:L:201:3:::A:B:va1]\x00",
    "Nested [cite:L:101:[cite:L:201:2:::A:B:va1]:::A:B] and a broken [cite:L:101:oops]",
    "Spaces [cite:L: 101:4:::A:B:va1] [cite:F:1 ::::Q:A]",
]


def looked_up(text: str) -> set[str]:
    """The ids the renderer looks up: each candidate of the rendered HTML that is exactly one stored marker."""
    ids = set()
    for raw in (html.unescape(m.group(1)) for m in DATA_CITE.finditer(render_markdown(text))):
        found = parse(raw, "stored")
        if len(found) == 1 and tuple(found[0].span) == (0, len(raw)):
            ids.add(found[0].entity_id)
    return ids


def test_every_id_the_renderer_can_look_up_is_kept(contract_cases: list[dict[str, Any]]) -> None:
    texts = [case["text"] for case in contract_cases] + AWKWARD
    assert sum(bool(looked_up(t)) for t in texts) > 20
    for text in texts:
        assert looked_up(text) <= cited_ids(text), text


@pytest.fixture(scope="module")
def tables() -> dict[str, Any]:
    return chip_context(load_material(SAMPLE_COURSE))


def test_the_payload_is_chip_data_with_the_named_units_and_faqs(tables: dict[str, Any]) -> None:
    text = ("Merging is linear.[cite:L:101:6:::Merge:One comparison per element.:va1] "
            "Bring notes.[cite:F:1::::Aids:One sheet.] A unit nobody has: [cite:L:999:1:::X:Y:va1]")
    payload = chip_payload(text, tables["units"], tables["faqs"])
    assert isinstance(payload, bytes)
    data = json.loads(payload.decode("utf-8"))
    full = chip_data(text, tables["units"], tables["faqs"])
    assert data["html"] == full["html"]
    assert data["units"] == {"101": full["units"]["101"]}
    assert data["faqs"] == {"1": full["faqs"]["1"]}
    assert len(tables["units"]) > 1 and len(tables["faqs"]) > 1


def test_an_answer_without_markers_carries_no_tables(tables: dict[str, Any]) -> None:
    data = json.loads(chip_payload("No citation here.", tables["units"], tables["faqs"]))
    assert (data["units"], data["faqs"]) == ({}, {})


def test_the_cached_payload_is_the_same_bytes(tables: dict[str, Any]) -> None:
    import streamlit as st

    from studio import cached

    material = load_material(SAMPLE_COURSE)
    text = "Merging is linear.[cite:L:101:6:::Merge:One comparison per element.:va1]"
    st.cache_data.clear()
    st.cache_resource.clear()
    try:
        first = cached.chip_payload(text, material)
        assert first == chip_payload(text, tables["units"], tables["faqs"])
        assert cached.chip_payload(text, material) == first
        other = "Quicksort partitions.[cite:L:201:3:::Partition:Pick a pivot.:va1]"
        assert json.loads(cached.chip_payload(other, material))["units"].keys() == {"201"}
    finally:
        st.cache_data.clear()
        st.cache_resource.clear()


def test_a_conversation_payloads_are_its_answers_built_once_per_new_message_and_material(
        tables: dict[str, Any], tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rerun looks the whole conversation up at once; a new answer or other material tables build it again,
    and an answer the renderer refuses is its error, not a crash of the page."""
    import streamlit as st

    from citation_core.errors import InputError
    from citation_core.lms.render import MAX_ANSWER_CHARS
    from citation_core.lms.store import LmsStore
    from studio import cached

    monkeypatch.setenv("CITATION_STUDIO_DB", str(tmp_path / "lms.sqlite3"))
    st.cache_data.clear()
    st.cache_resource.clear()
    try:
        material = load_material(SAMPLE_COURSE)
        store = LmsStore(tmp_path / "lms.sqlite3")
        first = "Merging is linear.[cite:L:101:6:::Merge:One comparison per element.:va1]"
        turn = store.save_turn("k" * 32, None, "How?", first, course_id=1, unit_id=101, title="How?",
                               answer_meta={"audits": []})

        def stored() -> tuple[Any, ...]:
            return cached.messages(turn.conversation_id)

        payloads = cached.conversation_payloads(stored(), material)
        assert list(payloads) == [turn.answer_id]
        assert payloads[turn.answer_id] == chip_payload(first, tables["units"], tables["faqs"])
        assert cached.conversation_payloads(stored(), material) is payloads  # not built again

        long = "x" * (MAX_ANSWER_CHARS + 1)
        second = store.save_turn("k" * 32, turn.conversation_id, "More?", long, course_id=1, unit_id=101,
                                 title="How?")
        again = cached.conversation_payloads(stored(), material)
        assert again is not payloads and list(again) == [turn.answer_id, second.answer_id]
        assert again[turn.answer_id] == payloads[turn.answer_id]
        assert isinstance(again[second.answer_id], InputError)

        # the same course loaded again (a new object, the same tables): nothing is built again
        assert cached.conversation_payloads(stored(), load_material(SAMPLE_COURSE)) is again
    finally:
        st.cache_data.clear()
        st.cache_resource.clear()
