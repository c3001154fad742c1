"""The labelled evaluation (tests/eval, bench/quality.py) meets its targets offline.

Offline placement, keywords, summaries and the writer are deterministic, so these are quality
assertions, not timing ones. Cases over the real decks and transcript are skipped (and counted) when
../shared/real is absent; the sample course's cases always run.
"""

from __future__ import annotations

from functools import cache

import yaml

from bench.quality import EVAL_DIR, TARGETS, Report, evaluate, table


@cache
def report() -> Report:
    return evaluate()


def test_the_evaluation_set_is_large_paraphrased_and_bilingual() -> None:
    cases = yaml.safe_load((EVAL_DIR / "dev" / "placement.yml").read_text(encoding="utf-8"))
    sents = [s for c in cases for s in c["sentences"]]
    assert len(sents) >= 100
    assert sum(s["style"] == "paraphrase" for s in sents) * 3 >= len(sents)
    assert {c.get("language", "en") for c in cases} == {"en", "de"}
    assert {c["material"] for c in cases} >= {"sample", "metropolis", "elte", "python", "painless"}
    assert all(isinstance(s.get("gold"), list) for s in sents)


def test_placement_precision_and_recall_meet_the_targets() -> None:
    r = report()
    assert r.precision() >= TARGETS["precision"], table(r)
    assert r.recall() >= TARGETS["recall"], table(r)


def test_keywords_and_summaries_break_no_rule() -> None:
    r = report()
    assert r.citations > 100
    assert r.keyword_violations == [] and r.summary_violations == []


def test_answers_about_the_open_slide_cite_it() -> None:
    r = report()
    missed = [(qid, answer[:160]) for qid, ok, answer in r.open_questions if not ok]
    assert r.open_slide() >= TARGETS["open_slide"], missed


def test_questions_about_other_slides_are_answered_from_the_slides_that_answer_them() -> None:
    r = report()
    missed = [(a.case, a.gold, a.cited) for a in r.course_questions if not a.cited or a.cited[0] not in a.gold]
    assert len(r.course_questions) >= 25
    assert r.course_lead() >= TARGETS["course_lead"], missed
    assert r.course_hit() >= TARGETS["course_hit"], missed
