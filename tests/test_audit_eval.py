"""The support audit on the labelled evaluation set: wrong citations flagged, right ones kept (bench/audit.py)."""

from __future__ import annotations

from bench.audit import TARGET, evaluate


def test_the_audit_flags_wrong_citations_with_high_precision_and_recall() -> None:
    counts = evaluate()
    assert counts.wrong_flagged + counts.wrong_kept >= 90  # the sample course alone gives 92; the real decks add more
    assert counts.precision >= TARGET and counts.recall >= TARGET
    assert counts.copied_covered >= 0.8 * counts.copied
