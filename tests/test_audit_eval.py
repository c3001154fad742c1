"""The support audit on the labelled evaluation set: wrong citations flagged, right ones kept (bench/audit.py)."""

from __future__ import annotations

import pytest

from bench.audit import evaluate
from bench.quality import REAL


def test_the_audit_flags_wrong_citations_with_high_precision_and_recall() -> None:
    counts = evaluate(split="dev")
    assert counts.wrong_flagged + counts.wrong_kept >= 90  # the sample course alone gives 92; the real decks add more
    assert counts.precision >= 0.8 and counts.recall >= 0.92
    assert counts.copied_covered >= 0.8 * counts.copied


@pytest.mark.skipif(not REAL.is_dir(), reason="the real material (../shared/real) is absent")
def test_meaning_keeps_faithful_paraphrases_from_being_called_unsupported(monkeypatch: pytest.MonkeyPatch) -> None:
    """Held-out paraphrases of their cited source: fewer are flagged with the embedding model than by shared
    words alone, and wrong citations are still flagged."""
    with_meaning = evaluate(split="test")
    monkeypatch.setenv("CITATION_STUDIO_EMBEDDINGS", "off")
    words_only = evaluate(split="test")
    assert with_meaning.paraphrases and with_meaning.paraphrases == words_only.paraphrases
    assert with_meaning.paraphrases_flagged <= words_only.paraphrases_flagged - 0.1 * with_meaning.paraphrases
    assert with_meaning.recall >= 0.9
