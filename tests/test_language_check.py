"""Language QA verdicts from lingua."""

from __future__ import annotations

from citation_core.contract import SourceRef
from citation_core.pipeline import Citation
from citation_core.sources import PageChunk
from studio.language_check import check_citations, detect, judge

SRC = PageChunk("u", 1, 1, "x")


def test_detects_the_languages_of_longer_texts() -> None:
    assert detect("Die Liste wird in zwei Hälften geteilt und rekursiv sortiert.").code == "de"
    assert detect("The list is split into two halves and sorted recursively.").code == "en"
    assert detect("La liste est divisée en deux moitiés puis triée récursivement.").code == "fr"
    assert detect("").code is None


def test_summary_in_the_wrong_language_is_a_mismatch_and_right_one_ok() -> None:
    _, verdict = judge("The list is split into two halves and sorted recursively.", "de")
    assert verdict == "mismatch"
    _, verdict = judge("Die Liste wird in zwei Hälften geteilt und rekursiv sortiert.", "de")
    assert verdict == "ok"


def test_rows_per_keyword_and_summary() -> None:
    cites = [Citation(1, SourceRef.of_page(1, 1), "Mischen", "Zwei sortierte Folgen werden zu einer sortierten "
                      "Folge zusammengeführt.", SRC, ""),
             Citation(2, SourceRef.of_page(1, 2), "", "", SRC, "")]
    rows = check_citations(cites, "de")
    assert [(r.seq, r.field) for r in rows] == [(1, "keyword"), (1, "summary"), (2, "keyword"), (2, "summary")]
    assert rows[1].verdict == "ok" and rows[1].detected == "de"
    assert rows[2].verdict == "empty" and rows[3].verdict == "empty"
