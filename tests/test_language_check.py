"""Language QA verdicts from lingua."""

from __future__ import annotations

import pytest

from citation_core.contract import SourceRef
from citation_core.pipeline import Citation
from citation_core.pipeline.languages import LANGUAGES
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


# Texts lingua is unsure of (confidence under 0.5), German and English, short and long.
UNSURE = ["Zeit O(n log n) im Worst Case", "Merge step combines halves", "Merge Sort", "Divide and Conquer",
          "Master Theorem Fall 2"]


def test_a_text_in_another_language_is_a_mismatch_however_unsure_lingua_is_of_it() -> None:
    """A German summary in the English column is flagged, also when lingua gives German only 0.31."""
    d, verdict = judge("Zeit O(n log n) im Worst Case", "en")
    assert (d.code, verdict) == ("de", "mismatch") and d.confidence < 0.5
    assert judge("Zeit O(n log n) im Worst Case", "de")[1] == "ok"
    assert judge("Suchbaum", "en")[1] == "mismatch"  # one word, but clearly German
    assert judge("Merge step combines halves", "de")[1] == "mismatch"


@pytest.mark.parametrize("text", UNSURE)
def test_whether_a_text_is_too_short_to_judge_is_the_same_in_every_column(text: str) -> None:
    verdicts = {code: judge(text, code)[1] for code in LANGUAGES}
    short = [code for code, v in verdicts.items() if v == "uncertain"]
    assert short in ([], list(LANGUAGES)), verdicts
    if not short:  # judged: ok in the detected language's column, a mismatch in every other
        assert sorted(verdicts.values()).count("ok") == 1, verdicts


def test_short_technical_terms_are_too_short_everywhere_and_four_words_are_judged() -> None:
    assert judge("Merge Sort", "en")[1] == judge("Merge Sort", "de")[1] == "uncertain"
    assert judge("Divide and Conquer", "en")[1] == "uncertain"
    assert judge("Merge step combines halves", "en")[1] == "ok"
