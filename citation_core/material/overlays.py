"""Overlay steps: pages of a deck that build one slide up step by step (Beamer's ``\\pause``, a
presentation app's animations printed one page per step).

Such a page shows part of what the slide's last step shows; its text layer often holds all of it anyway
(Beamer keeps hidden text in the PDF). A page is *superseded* when the next page carries the same printed
number (or both carry none) and every line of its text is on the next page too: the next page shows at least
as much, so a search finds the slide there and a citation opens the step where everything is visible.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from ..sources import PageChunk


def _lines(text: str) -> Counter[str]:
    return Counter(" ".join(line.split()).lower() for line in text.splitlines() if line.strip())


def superseded_pages(chunks: Iterable[PageChunk]) -> set[tuple[int | str, int]]:
    """(unit id, page number) of every page whose next page is a later step of the same slide."""
    texts: dict[tuple[int | str, int], list[str]] = defaultdict(list)
    printed: dict[tuple[int | str, int], str | None] = {}
    for c in chunks:
        key = (c.lecture_unit_id, c.page_number)
        texts[key].append(c.text)
        printed.setdefault(key, c.display_page_number)
    out: set[tuple[int | str, int]] = set()
    for (unit, page), parts in texts.items():
        following = (unit, page + 1)
        if following not in texts or printed[following] != printed[(unit, page)]:
            continue
        mine, theirs = _lines("\n".join(parts)), _lines("\n".join(texts[following]))
        if mine and not mine - theirs:
            out.add((unit, page))
    return out


def last_steps(chunks: Iterable[PageChunk]) -> list[PageChunk]:
    """``chunks`` without those of superseded pages, in their order."""
    every = list(chunks)
    gone = superseded_pages(every)
    return [c for c in every if (c.lecture_unit_id, c.page_number) not in gone]
