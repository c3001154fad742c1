"""Retrieval quality, BM25 alone beside BM25 fused with meaning, in one run (``python -m bench.retrieval``).

Each course question of the evaluation set (``tests/eval/<split>/course_questions*.yml``: a learner's
question and the slides that answer it) searches its unit's slides and transcript with each fusion of
``citation_core.retrieval``; a transcript cue counts as the slide the video shows when it starts.
Reported per fusion: the share of questions whose first hit is an answering slide (hit@1), and whose
first five hits hold one (hit@5). ``--split test`` reports the held-out part.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import get_args

from citation_core.material.timeline import page_at
from citation_core.retrieval import Fusion, LectureIndex
from citation_core.sources import PageChunk

from .quality import load_eval, material_of


def evaluate(split: str = "dev") -> dict[str, tuple[float, float, int]]:
    questions = load_eval("course_questions", split)
    out: dict[str, tuple[float, float, int]] = {}
    for fusion in get_args(Fusion):
        hit1 = hit5 = n = 0
        indexes: dict[tuple[str, int], LectureIndex] = {}
        for q in questions:
            material = material_of(q.get("material", "sample"))
            if material is None:
                continue
            uid = int(q["unit"])
            key = (q.get("material", "sample"), uid)
            if key not in indexes:
                um = material.unit(uid)
                indexes[key] = LectureIndex([*um.chunks, *um.segments], fusion=fusion)
            timeline = material.unit(uid).unit.timeline
            pages: list[int] = []
            for src in indexes[key].search(str(q["question"]), k=5):
                page = src.page_number if isinstance(src, PageChunk) else page_at(timeline, src.start)
                if page is not None:
                    pages.append(page)
            gold = {int(g) for g in q["gold"]}
            n += 1
            hit1 += bool(pages[:1] and pages[0] in gold)
            hit5 += bool(set(pages) & gold)
        out[fusion] = (hit1 / n if n else 0.0, hit5 / n if n else 0.0, n)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="dev", choices=["dev", "test", "all"])
    args = parser.parse_args(argv)
    results = evaluate(args.split)
    print(f"| fusion ({args.split}) | hit@1 | hit@5 | questions |")
    print("|---|---:|---:|---:|")
    for fusion, (h1, h5, n) in results.items():
        print(f"| {fusion} | {h1:.3f} | {h5:.3f} | {n} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
