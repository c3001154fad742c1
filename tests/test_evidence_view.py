"""What a reader sees of the evidence: quotes in the tooltip, bands on the slide, cues in the transcript,
and the audit table (every text escaped, wrong citations flagged)."""

from __future__ import annotations

import io

from PIL import Image

from citation_core.chat.chat_pipeline import ChatPipeline
from citation_core.chat.view import ViewPosition
from citation_core.contract import parse
from citation_core.lms.chips import chip_data
from citation_core.lms.evidence_view import QUOTE_CHARS, chip_evidence, elide
from citation_core.lms.versions import stamp_versions
from citation_core.material.deck import load_deck, render_page_png
from citation_core.material.highlight import Box, draw_bands, evidence_boxes, evidence_cues
from citation_core.material.library import load_material
from citation_core.material.models import Cue
from citation_core.pipeline.audit import audit
from citation_core.sources import PageChunk, Sources
from studio.audit_table import audit_rows, audit_table_html
from studio.services import answer_views, versions_lookup
from tests.fakes import config

from .conftest import SAMPLE_COURSE


def test_a_quote_is_at_most_200_characters_cut_at_a_word_and_without_bullets() -> None:
    text = "• " + " ".join(f"word{i}" for i in range(80)) + "\n  – second line"
    quote = elide(text)
    assert len(quote) <= QUOTE_CHARS and quote.endswith("…")
    assert quote.startswith("word0 word1") and quote[:-1].split()[-1].startswith("word")
    assert text.split()[1:len(quote[:-1].split()) + 1] == quote[:-1].split(), "whole words only"
    assert elide("• Taking from L\n- when keys are equal") == "Taking from L when keys are equal"
    assert elide("2019 was a year; -5 is negative") == "2019 was a year; -5 is negative"
    assert len(elide("x" * 500)) == QUOTE_CHARS


def _cited_turn() -> tuple[str, list[dict[str, object]]]:
    material = load_material(SAMPLE_COURSE)
    result = ChatPipeline(config(), material)("How does the merge procedure combine two sorted halves?",
                                              ViewPosition(101, page=6))
    stored = stamp_versions(result.answer, versions_lookup(material))
    return stored, answer_views(result)["audits"]


def test_each_marker_of_a_stored_answer_gets_its_own_evidence_in_order() -> None:
    stored, audits = _cited_turn()
    markers = parse(stored, "stored")
    assert len(audits) == len(markers) >= 3
    evidence = chip_evidence(stored, audits)
    assert sum(len(v) for v in evidence.values()) == len(markers)
    for entries in evidence.values():
        for entry in entries:
            assert entry["quote"] and len(entry["quote"]) <= QUOTE_CHARS
            assert entry["verdict"] in {"supported", "partial", "unsupported"}
    # the quote is the source's own words
    material = load_material(SAMPLE_COURSE)
    first = markers[0]
    if first.page:
        page_text = material.units[int(first.entity_id)].deck.page(int(first.page)).text  # type: ignore[union-attr]
        raw = stored[first.span[0]:first.span[1]]
        assert evidence[raw][0]["full"] in page_text
    assert chip_data(stored, {}, {}, audits)["evidence"] == evidence
    assert "evidence" not in chip_data(stored, {}, {}), "an answer stored without audits renders as before"


def test_the_same_marker_twice_keeps_one_evidence_per_sentence() -> None:
    chunk = PageChunk(text="Heaps keep the minimum at the root.\nQueues serve in arrival order.", lecture_unit_id=7,
                      page_number=2, uuid="u1")
    marker = "[cite:L:7:2:::Structures:Heaps and queues.]"
    answer = f"A heap keeps the minimum at the root.{marker} A queue serves in arrival order.{marker}"
    audits = [{**a.to_json(), "index": a.index} for a in audit(answer, Sources.of([chunk]))]
    quotes = [e["full"] for e in chip_evidence(answer, audits)[marker]]
    assert quotes == ["Heaps keep the minimum at the root.", "Queues serve in arrival order."]
    assert chip_evidence(answer, [{"index": 99, "evidence": {"text": "x"}}])[marker][0]["quote"] == ""


def test_bands_are_drawn_over_the_evidence_lines_only() -> None:
    pdf = SAMPLE_COURSE / "decks" / "merge_sort.pdf"
    deck = load_deck(pdf)
    page = next(p for p in deck.pages if "stable" in p.text)
    line = next(ln for ln in page.text.splitlines() if "stable" in ln)
    boxes = evidence_boxes(pdf, page.page_number, line)
    assert boxes
    plain = render_page_png(pdf, page.page_number, width=800)
    lit = draw_bands(plain, boxes)
    a, b = Image.open(io.BytesIO(plain)).convert("RGB"), Image.open(io.BytesIO(lit)).convert("RGB")
    assert a.size == b.size
    w, h = a.size
    box = boxes[0]
    changed_inside = changed_outside = 0
    for y in range(0, h, 4):
        for x in range(0, w, 4):
            fx, fy = x / w, y / h
            inside = box.left - 0.02 <= fx <= box.right + 0.01 and box.top - 0.01 <= fy <= box.bottom + 0.01
            if a.getpixel((x, y)) != b.getpixel((x, y)):
                if inside or any(o.left - 0.02 <= fx <= o.right + 0.01 and o.top - 0.01 <= fy <= o.bottom + 0.01
                                 for o in boxes):
                    changed_inside += 1
                else:
                    changed_outside += 1
    assert changed_inside > 50 and changed_outside == 0
    assert draw_bands(plain, []) == plain
    assert draw_bands(plain, [Box(0.5, 0.5, 0.5, 0.5)]) != b""  # an empty box draws nothing, no error


def test_the_cues_a_video_citation_quotes_are_the_ones_lit_up() -> None:
    cues = [Cue(0, 5, "Welcome to the lecture."), Cue(5, 10, "We split the array in two halves."),
            Cue(10, 15, "Then we sort each half recursively."), Cue(15, 20, "Finally we merge them."),
            Cue(20, 25, "Questions?")]
    assert evidence_cues(cues, 5, 20, "Then we sort each half recursively. Finally we merge them.") == [2, 3]
    assert evidence_cues(cues, 5, 20, None) == [1, 2, 3], "without a quote, the cited span"
    assert evidence_cues(cues, 5, 20, "nothing like any cue") == [1, 2, 3]
    assert evidence_cues(cues, 12, None, None) == [2], "no end: the cue playing at the start"
    assert evidence_cues(cues, 99, None, None) == [4]
    assert evidence_cues([], 3, 9, "x") == []


def test_the_audit_table_flags_a_claim_cited_to_an_unrelated_slide_and_escapes_everything() -> None:
    material = load_material(SAMPLE_COURSE)
    merge = next(c for c in material.lecture_index.search("merge sort stable equal keys", k=5, unit_id=101)
                 if isinstance(c, PageChunk) and "stable" in c.text)
    hashing = next(c for c in material.lecture_index.search("hash table chaining", k=5, unit_id=201)
                   if isinstance(c, PageChunk))
    answer = (f"Taking from L when keys are equal makes merge sort stable.[cite:L:101:{merge.page_number}:::Merge:m]"
              f" The <script>alert(1)</script> master theorem solves every recurrence in constant time."
              f"[cite:L:201:{hashing.page_number}:::Hashing:h]")
    audits = [{**a.to_json(), "index": a.index} for a in audit(answer, Sources.of([merge, hashing]))]
    rows = audit_rows(audits, material)
    assert [r.verdict for r in rows][0] == "supported" and rows[1].flagged
    assert rows[0].chip.startswith("Merge · Slide ") and "Merge Sort" in rows[0].chip
    page = audit_table_html(rows)
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert page.count("<tr class='is-flagged'") == 1
