"""Placement validation on long and changed replies: today's validator beside the character alignment
it replaced, in one run (``python -m bench.hostile_validation``).

Cases: an answer of N KB whose reply has one changed word; the same reply with its sentences
shuffled; and a 5 KB answer with a reply more than a hundred times longer. The old validator aligned
the whole reply to the answer character by character (``difflib.SequenceMatcher``, quadratic); it is
measured only up to a size where it still ends in reasonable time, and the ratio is printed.
"""

from __future__ import annotations

import random
import string
import sys
import time
from difflib import SequenceMatcher

from citation_core.pipeline.placement import strip, validate_placement

IDS = {"[cite:L:1:1::!1]": 1, "[cite:L:1:2::!2]": 2, "[cite:L:1:3::!3]": 3}
OLD_LIMIT = 12_000  # characters: beyond this the old alignment takes minutes


def case(kb: int, seed: int = 1) -> tuple[str, list[str]]:
    rng = random.Random(seed)
    vocab = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(2000)]
    sentences: list[str] = []
    while sum(len(s) + 1 for s in sentences) < kb * 1000:
        sentences.append(" ".join(rng.choice(vocab) for _ in range(rng.randint(6, 18))).capitalize() + ".")
    return " ".join(sentences), sentences


def with_markers(sentences: list[str]) -> str:
    ids = list(IDS)
    return " ".join(f"{s}{ids[i % 3]}" for i, s in enumerate(sentences))


def old_align(answer: str, reply: str) -> int:
    """The character alignment the validator used before (kept here only to measure against)."""
    stripped = strip(answer, reply, IDS)
    blocks = SequenceMatcher(None, stripped.text, answer, autojunk=False).get_matching_blocks()
    return len(blocks)


def timed(fn: object, *args: object) -> float:
    t0 = time.perf_counter()
    fn(*args)  # type: ignore[operator]
    return time.perf_counter() - t0


def main() -> int:
    rows = []
    for kb in (5, 10, 20, 40):
        answer, sentences = case(kb)
        changed = with_markers(sentences).replace(sentences[len(sentences) // 2].split()[2], "CHANGED", 1)
        shuffled_sentences = sentences[:]
        random.Random(2).shuffle(shuffled_sentences)
        for name, reply in (("one changed word", changed), ("sentences shuffled", with_markers(shuffled_sentences))):
            new = timed(validate_placement, answer, reply, IDS)
            old = timed(old_align, answer, reply) if len(answer) <= OLD_LIMIT else None
            rows.append((f"{kb} KB, {name}", new, old))
    answer, sentences = case(5)
    huge = with_markers(sentences) + " padding words" * 45_000
    rows.append(("5 KB answer, 640 KB reply", timed(validate_placement, answer, huge, IDS), None))
    print("| case | validator (s) | old character alignment (s) | old / new |")
    print("|---|---:|---:|---:|")
    for name, new, old in rows:
        ratio = f"{old / new:.0f}×" if old else "—"
        print(f"| {name} | {new:.3f} | {'' if old is None else f'{old:.2f}'} | {ratio} |")
    worst = max(new for _, new, _ in rows)
    print(f"\nslowest validator case: {worst:.3f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
