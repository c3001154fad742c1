"""Evidence and support: the supporting passage of every citation, and an audit that flags wrong citations."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from citation_core import CitationPipeline, Sources, cite
from citation_core.pipeline import PHASES, PassRun, replace_phase
from citation_core.pipeline.audit import audit
from citation_core.pipeline.evidence import find_evidence, judge_support
from citation_core.sources import PageChunk, TranscriptSegment
from citation_core.text.similarity import StaticEmbedding, semantic_model

from .fakes import ANSWER, EXAM, MERGE, MERGE_STEP, TREE

SLIDE = PageChunk("p7", 30, 7, "Löschen: drei Fälle\n• Blatt: einfach entfernen\n• ein Kind: Kind rückt nach\n"
                  "• zwei Kinder: durch den Inorder-Nachfolger ersetzen,\n  dann diesen löschen\nFolie 7")
HASH = PageChunk("p8", 12, 8, "Hash tables\nA hash function maps keys to buckets; collisions are chained.")


def test_every_citation_carries_the_passage_that_supports_its_sentence() -> None:
    answer = "The final exam is open book. " + ANSWER
    result = cite(answer, Sources((MERGE, MERGE_STEP, TREE), (EXAM,)))
    assert len(result.citations) == 4
    for c in result.citations:
        assert c.evidence is not None and c.support is not None
        text = c.source.answer if c.ref.type == "F" else c.source.text  # type: ignore[union-attr]
        assert text[c.evidence.start : c.evidence.end] == c.evidence.text
        assert c.support.verdict == "supported"
    merge = next(c for c in result.citations if c.ref.page == 3)
    assert merge.evidence is not None and merge.evidence.text.startswith("Divide the list")
    assert merge.sentence.startswith("Merge sort divides the list")


def test_slide_evidence_is_up_to_three_consecutive_lines_of_the_slide() -> None:
    found = find_evidence("Einen Knoten mit zwei Kindern ersetzt man durch den Inorder-Nachfolger und löscht "
                          "dann diesen.", SLIDE)
    assert found is not None
    assert found.text == "• zwei Kinder: durch den Inorder-Nachfolger ersetzen,\n  dann diesen löschen"
    assert SLIDE.text[found.start : found.end] == found.text


def test_transcript_evidence_is_the_sentences_of_the_segment() -> None:
    seg = TranscriptSegment("t", 12, 60.0, 90.0, "Now the merge step. It walks both halves with two pointers. "
                                                 "Each comparison places one element.")
    found = find_evidence("Merging walks both halves with two pointers.", seg)
    assert found is not None and "It walks both halves with two pointers." in found.text
    assert "Each comparison" not in found.text


def test_a_claim_cited_to_an_unrelated_slide_is_unsupported_and_numbers_must_agree() -> None:
    wrong = judge_support("Collisions in a hash table are chained.", find_evidence("x", MERGE), MERGE)
    assert wrong.verdict == "unsupported"
    sentence = "The recursion tree has 7 levels with cost n per level."
    found = find_evidence(sentence, TREE)
    assert judge_support(sentence, found, TREE).verdict == "partial"
    assert "does not have 7" in judge_support(sentence, found, TREE).reason


def test_the_audit_flags_wrong_citations_in_a_pasted_answer() -> None:
    answer = ("Merge sort divides the list into two halves and sorts each half recursively."
              "[cite:L:12:3:::Merge sort:Splits and merges.] "
              "A hash function maps keys to buckets.[cite:L:12:3:::Merge:Wrong slide.] "
              "The exam is open book.[cite:F:17::::Exam:Open book.:va1] "
              "Quicksort picks a pivot.[cite:L:12:9:::Pivot:Not given.]")
    audits = audit(answer, Sources((MERGE, HASH), (EXAM,)))
    assert [a.support.verdict for a in audits] == ["supported", "unsupported", "supported", "unsupported"]
    assert audits[1].sentence == "A hash function maps keys to buckets."
    assert audits[3].support.reason == "the cited source is not among the given sources"


def test_cli_audit_json_and_cite_json_report_evidence(tmp_path: Path) -> None:
    from citation_core.cli.main import main

    sources = {"lecture": {"pages": [{"uuid": "p3", "lecture_unit_id": 12, "page_number": 3, "text": MERGE.text},
                                     {"uuid": "p8", "lecture_unit_id": 12, "page_number": 8, "text": HASH.text}]}}
    (tmp_path / "s.json").write_text(json.dumps(sources), encoding="utf-8")
    (tmp_path / "a.md").write_text("A hash function maps keys to buckets.[cite:L:12:3:::Merge:Wrong.]\n",
                                   encoding="utf-8")
    out = tmp_path / "out.json"
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["audit", "--sources", str(tmp_path / "s.json"), "--answer", str(tmp_path / "a.md"), "--json"]) == 0
    (row,) = json.loads(buf.getvalue())["audits"]
    assert row["verdict"] == "unsupported" and row["citation"]["page"] == 3
    assert set(row) == {"sentence", "citation", "evidence", "verdict", "score", "reason"}
    buf = io.StringIO()
    (tmp_path / "b.md").write_text("A hash function maps keys to buckets.\n", encoding="utf-8")
    with contextlib.redirect_stdout(buf):
        assert main(["cite", "--sources", str(tmp_path / "s.json"), "--answer", str(tmp_path / "b.md"), "--json"]) == 0
    (cited,) = json.loads(buf.getvalue())["citations"]
    assert cited["evidence"]["text"] == "A hash function maps keys to buckets; collisions are chained."
    assert cited["support"]["verdict"] == "supported"
    out.unlink(missing_ok=True)


def test_a_failing_evidence_phase_keeps_the_citations() -> None:
    def broken(run: PassRun) -> dict[str, object]:
        raise RuntimeError("boom")

    result = CitationPipeline(phases=replace_phase(PHASES, "evidence", broken)).run_pass(ANSWER, [MERGE, MERGE_STEP])
    assert result.rewritten and len(result.citations) == 2
    assert all(c.evidence is None for c in result.citations)
    assert [f.kind for f in result.trace.failures] == ["internal"]


def test_a_configured_judge_gives_the_verdicts_and_each_is_asked_once() -> None:
    from citation_core.testing import ScriptedModel

    judge = ScriptedModel({"judge": lambda req: "UNSUPPORTED - the slide is about merging, not hashing"})
    pipe = CitationPipeline(judge=judge)
    answer = ("A hash function maps keys to buckets.[cite:L:12:3:::Merge:Wrong slide.] "
              "And again: a hash function maps keys to buckets.[cite:L:12:3:::Merge:Wrong slide.]")
    first = audit(answer, Sources((MERGE, HASH)), pipe.judge)
    assert [a.support.verdict for a in first] == ["unsupported", "unsupported"]
    assert first[0].support.reason.startswith("judge scripted: the slide is about merging")
    audit(answer, Sources((MERGE, HASH)), pipe.judge)
    assert judge.tasks() == ["judge", "judge"]  # two sentences; the second audit came from the cache


def test_a_failing_judge_keeps_the_lexical_verdict() -> None:
    from citation_core.errors import ModelCallError
    from citation_core.testing import ScriptedModel

    pipe = CitationPipeline(judge=ScriptedModel({"judge": ModelCallError("judge down")}))
    result = pipe.run_pass(ANSWER, [MERGE, MERGE_STEP])
    assert [c.support.verdict for c in result.citations if c.support] == ["supported", "supported"]
    assert all("judge failed: judge down" in c.support.reason for c in result.citations if c.support)


STEPS = PageChunk("p5", 12, 5, "Merge sort in three steps\n• Divide the list into two halves\n"
                  "• Sort each half recursively\n• Merge the two sorted halves in linear time")


def test_the_audit_reads_each_line_of_a_slide_into_tokens_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three sentences cited to one slide: every line of it is compared with each sentence by meaning, and
    read into the model's tokens once."""
    assert semantic_model() is not None
    answer = cite("Merge sort first divides the list into two halves. Then it sorts each half recursively. "
                  "Finally it merges the two sorted halves in linear time.", Sources((STEPS,))).answer
    assert answer.count("[cite:L:12:5:") == 3
    tokenized: list[str] = []
    token_ids = StaticEmbedding.token_ids

    def counted(self: StaticEmbedding, texts: Sequence[str]) -> list[list[int]]:
        tokenized.extend(texts)
        return token_ids(self, texts)

    monkeypatch.setattr(StaticEmbedding, "token_ids", counted)
    audits = audit(answer, Sources((STEPS,)))
    assert [a.support.verdict for a in audits] == ["supported"] * 3
    times = Counter(tokenized)
    assert {line: times[line] for line in STEPS.text.splitlines()} == dict.fromkeys(STEPS.text.splitlines(), 1)
