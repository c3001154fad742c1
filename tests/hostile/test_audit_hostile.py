"""The support audit under long and odd answers: the answer is split into sentences once (the work grows
with its length, not with its square), a marker inside a sentence or a word stands for the whole sentence,
and a marker that breaks the contract is named in one line (exit 2), never an internal error."""

from __future__ import annotations

import importlib
import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from citation_core import Sources
from citation_core.cli.main import main
from citation_core.contract import FinalMarker, SourceRef, parse, strip_markers
from citation_core.errors import MarkerError
from citation_core.pipeline import audit as audit_module
from citation_core.pipeline.audit import audit
from citation_core.pipeline.evidence import sentence_before

from ..fakes import EXAM, MERGE, MERGE_STEP, TREE

SOURCES = Sources((MERGE, MERGE_STEP, TREE), (EXAM,))
ON_MERGE = FinalMarker(SourceRef.of_page(12, 3), "Merge sort", "Splits the list.").format()
ON_STEP = FinalMarker(SourceRef.of_page(12, 4), "Merge step", "Linear time.").format()
ON_EXAM = FinalMarker(SourceRef.of_faq(17), "Exam", "Open book.").format()
CLAIMS = (
    ("Merge sort divides the list into two halves and sorts each half recursively.", ON_MERGE),
    ("The merge step combines two sorted lists in linear time.", ON_STEP),
    ("The final exam is open book.", ON_EXAM),
)


def long_answer(claims: int) -> str:
    """``claims`` cited sentences in paragraphs of three, a marker behind every sentence."""
    parts = []
    for i in range(claims):
        sentence, marker = CLAIMS[i % 3]
        parts.append(sentence + marker + ("\n\n" if i % 3 == 2 else " "))
    return "".join(parts)


@pytest.fixture
def split_texts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the sentence splitter is given (also those its cache answers)."""
    seen: list[str] = []
    sentences_module = importlib.import_module("citation_core.text.sentences")
    split = sentences_module._sentence_tuple

    def counted(text: str, lang: str | None) -> object:
        seen.append(text)
        return split(text, lang)

    monkeypatch.setattr(sentences_module, "_sentence_tuple", counted)
    return seen


def answer_texts(seen: list[str]) -> list[str]:
    """The split texts that are not (part of) a source's own text: the answer's."""
    own = [MERGE.text, MERGE_STEP.text, TREE.text, EXAM.question, EXAM.answer, EXAM.content]
    return [t for t in seen if not any(t in o for o in own)]


# --- linear work ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("claims", [30, 120])
def test_the_audit_splits_the_answer_into_sentences_once(split_texts: list[str], claims: int) -> None:
    answer = long_answer(claims)
    audits = audit(answer, SOURCES)
    assert len(audits) == claims
    texts = answer_texts(split_texts)
    assert len(texts) == 1  # was one split per marker, of all the text before it
    assert sum(len(t) for t in texts) <= len(answer)  # linear in the answer's length


def test_the_audit_of_a_long_answer_gives_each_marker_its_own_sentence() -> None:
    answer = long_answer(60)
    audits = audit(answer, SOURCES)
    assert [a.sentence for a in audits] == [CLAIMS[i % 3][0] for i in range(60)]
    assert [a.index for a in audits] == list(range(60))
    assert {a.support.verdict for a in audits} == {"supported"}


def test_the_audit_finds_the_same_sentences_as_one_split_of_the_whole_answer() -> None:
    """Markers at the end of sentences, in groups, in list items and headings, behind code: each stands for the
    sentence before it, as ``sentence_before`` on the answer without markers gives it."""
    answer = (
        "# Merge sort" + ON_MERGE + "\n\n"
        "Merge sort divides the list into two halves." + ON_MERGE + ON_STEP + " It is stable.\n"
        "- The merge step combines two sorted lists in linear time." + ON_STEP + "\n"
        "- Printed notes are allowed in the exam." + ON_EXAM + "\n\n"
        "```python\nmerge(a, b)\n```\n"
        "After the code." + ON_STEP + " And a last sentence without a period" + ON_EXAM
    )
    audits = audit(answer, SOURCES)
    expected = []
    for m in parse(answer, "stored"):
        before = strip_markers(answer[: m.span[0]])
        expected.append(sentence_before(before, len(before)))  # the former split, one per marker
    assert [a.sentence for a in audits] == expected
    assert expected[1] == expected[2] == "Merge sort divides the list into two halves."


# --- where a marker stands ----------------------------------------------------------------------------------

def test_a_marker_in_the_middle_of_a_sentence_stands_for_the_whole_sentence() -> None:
    answer = f"Merge sort divides the list{ON_MERGE} into two halves and sorts each half recursively. Next."
    (a,) = audit(answer, SOURCES)
    assert a.sentence == "Merge sort divides the list into two halves and sorts each half recursively."
    assert a.support.verdict == "supported"


def test_a_marker_inside_a_word_stands_for_the_whole_sentence_not_the_cut_word() -> None:
    answer = f"Merge sort divi{ON_MERGE}des the list into two halves. The exam is open book."
    (a,) = audit(answer, SOURCES)
    assert a.sentence == "Merge sort divides the list into two halves."  # was "Merge sort divi"


def test_a_wrong_citation_inside_a_sentence_is_not_hidden_by_the_words_before_it() -> None:
    # "Merge sort" alone would pass against the merge sort slide; the sentence claims the exam rule
    answer = f"Merge sort{ON_MERGE} is what the final exam allows you to bring as printed notes."
    (a,) = audit(answer, SOURCES)
    assert a.sentence == "Merge sort is what the final exam allows you to bring as printed notes."
    assert a.support.verdict != "supported"


def test_a_marker_at_the_start_of_the_next_sentence_belongs_to_the_sentence_before() -> None:
    answer = f"Merge sort divides the list into two halves. {ON_MERGE}The exam is open book."
    (a,) = audit(answer, SOURCES)
    assert a.sentence == "Merge sort divides the list into two halves."


def test_a_marker_before_any_text_audits_an_empty_sentence() -> None:
    (a,) = audit(f"{ON_MERGE}Merge sort divides the list.", SOURCES)
    assert a.sentence == "" and a.support.verdict == "unsupported"


# --- markers that break the contract ------------------------------------------------------------------------

@pytest.mark.parametrize(("field", "reason"), [
    ("9" * 5000, "a number of more than 18 digits"),
    ("9" * 19, "a number of more than 18 digits"),
    ("²", "not a whole number: '²'"),
    ("nan", "not a whole number: 'nan'"),
])
def test_a_page_that_is_no_whole_number_is_a_marker_error(field: str, reason: str) -> None:
    answer = f"Merge sort divides the list.[cite:L:12:{field}:::Merge:Splits.] The merge step is linear.{ON_STEP}"
    (m, _) = parse(answer, "stored")
    with pytest.raises(MarkerError, match=reason):
        m.source_ref()
    audits = audit(answer, SOURCES)  # the library's audit leaves it out; the other marker keeps its index
    assert [a.index for a in audits] == [1]
    with pytest.raises(MarkerError, match=rf"^marker 1 \(\[cite:L:12:[^)]{{1,40}}\): page: {reason}$"):
        audit(answer, SOURCES, strict=True)


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("page", ["9" * 5000, "nan", "²", "-1"])
def test_cli_audit_of_a_marker_with_a_broken_page_exits_2_with_one_line(tmp_path: Path, page: str) -> None:
    sources = write(tmp_path / "sources.json", json.dumps({"lecture": {"pages": [
        {"uuid": "p3", "lecture_unit_id": 12, "page_number": 3, "text": MERGE.text}]}}))
    answer = write(tmp_path / "answer.md", f"Merge sort divides the list.{ON_MERGE} Again.[cite:L:12:{page}:::k:s]\n")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["audit", "--sources", sources, "--answer", answer])
    assert code == 2
    lines = err.getvalue().splitlines()
    assert len(lines) == 1 and "internal error" not in lines[0]
    assert lines[0].startswith(f"citation-studio: {answer}: marker 2 ([cite:L:12:")
    assert len(lines[0]) < 300
    assert out.getvalue() == ""


def test_the_audit_is_unchanged_for_a_plain_answer_with_one_marker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(audit_module, "meaning_matcher", lambda sources: None)
    (a,) = audit(f"Merge sort divides the list into two halves.{ON_MERGE}", SOURCES)
    assert a.sentence == "Merge sort divides the list into two halves."
    assert a.evidence is not None and a.evidence.text.startswith("Divide the list")


def test_evidence_and_verdict_together_equal_the_two_steps_apart(sample_course: Path) -> None:
    """The audit reuses the closeness of a one-unit passage for its verdict: the verdict stays what
    ``find_evidence`` then ``judge_support`` give."""
    from citation_core.material.library import load_material
    from citation_core.pipeline.evidence import (
        evidence_and_support,
        find_evidence,
        judge_support,
        meaning_matcher,
        term_weights,
    )

    sources = load_material(sample_course).sources()
    every = [*sources.lecture, *sources.faqs]
    weight, matcher = term_weights(every), meaning_matcher(every)
    claims = [c for c, _ in CLAIMS] + ["Hash tables resolve collisions by chaining.",
                                      "Der binäre Suchbaum hält links die kleineren Schlüssel."]
    for source in every[::3]:
        for claim in claims:
            found = find_evidence(claim, source, weight, matcher)
            assert evidence_and_support(claim, source, weight, matcher) == (
                found, judge_support(claim, found, source, weight, matcher))
