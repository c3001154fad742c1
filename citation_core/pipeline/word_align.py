"""Words of one text matched to the words of another that says the same with a few words changed, in time
linear in their length.

``difflib.SequenceMatcher`` compares every stretch with every other: on a long answer whose placement reply
changed a word in each sentence that is quadratic (a 100,000-character answer took minutes). Here the two
word lists are cut at anchors first, as patience diff does: words that occur once in each (in the same order,
the longest such chain), plus the equal words around them. What lies between two anchors is short in any
text a model rewrote lightly, and is compared by ``SequenceMatcher``; a long stretch without anchors (text
that repeats itself) is compared a window of ``WINDOW`` words at a time, the windows moving along with the
matches found.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher

__all__ = ["match_words"]

SMALL = 250 * 250  # stretches whose word counts multiply to at most this are compared word by word
WINDOW = 250  # words per piece of a long stretch without anchors
MAX_DEPTH = 6  # rounds of anchors within anchors; deeper stretches are compared in pieces


def match_words(a: Sequence[str], b: Sequence[str]) -> dict[int, int]:
    """Index of each word of ``a`` matched to the index of the same word in ``b``; matches keep their order."""
    out: dict[int, int] = {}
    todo = [(0, len(a), 0, len(b), 0)]
    while todo:
        alo, ahi, blo, bhi, depth = todo.pop()
        while alo < ahi and blo < bhi and a[alo] == b[blo]:  # the same head
            out[alo] = blo
            alo, blo = alo + 1, blo + 1
        while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:  # the same tail
            ahi, bhi = ahi - 1, bhi - 1
            out[ahi] = bhi
        if alo == ahi or blo == bhi:
            continue
        if (ahi - alo) * (bhi - blo) <= SMALL:
            _compare(a, b, alo, ahi, blo, bhi, out)
            continue
        anchors = _anchors(a, b, alo, ahi, blo, bhi) if depth < MAX_DEPTH else []
        if not anchors:
            _in_pieces(a, b, alo, ahi, blo, bhi, out)
            continue
        for i, j in anchors:
            out[i] = j
            todo.append((alo, i, blo, j, depth + 1))
            alo, blo = i + 1, j + 1
        todo.append((alo, ahi, blo, bhi, depth + 1))
    return out


def _compare(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int,
             out: dict[int, int]) -> None:
    matcher = SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
    for i, j, n in matcher.get_matching_blocks():
        for k in range(n):
            out[alo + i + k] = blo + j + k


def _in_pieces(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int,
               out: dict[int, int]) -> None:
    """A long stretch without anchors, compared a window of ``WINDOW`` words of each at a time: the matches
    in the first half of a window are kept, and the next window starts after the last of them (at least
    half a window on), so that words inserted or left out shift the windows with them."""
    half = WINDOW // 2
    while alo < ahi and blo < bhi:
        aend, bend = min(ahi, alo + WINDOW), min(bhi, blo + WINDOW)
        if aend == ahi and bend == bhi:
            _compare(a, b, alo, ahi, blo, bhi, out)
            return
        matcher = SequenceMatcher(None, a[alo:aend], b[blo:bend], autojunk=False)
        last_a, last_b = alo - 1, blo - 1
        for i, j, n in matcher.get_matching_blocks():
            for k in range(n):
                if i + k >= half and j + k >= half:
                    break
                out[alo + i + k] = blo + j + k
                last_a, last_b = alo + i + k, blo + j + k
        lag = max(0, half - max(last_a + 1 - alo, last_b + 1 - blo))  # on by half a window at least
        alo, blo = last_a + 1 + lag, last_b + 1 + lag


def _anchors(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int]]:
    """Words found once in each stretch, as (index in a, index in b): the longest chain whose indexes rise
    in both."""
    in_a, in_b = Counter(a[alo:ahi]), Counter(b[blo:bhi])
    where_b = {b[j]: j for j in range(blo, bhi) if in_b[b[j]] == 1}
    pairs = [(i, where_b[a[i]]) for i in range(alo, ahi) if in_a[a[i]] == 1 and a[i] in where_b]
    # the longest rising chain of b-indexes (patience sorting): tails[k] ends the best chain of length k + 1
    tails: list[int] = []
    ends: list[int] = []  # index into pairs of each tail
    before: list[int] = []  # per pair, the pair before it in its chain (-1: none)
    for n, (_, j) in enumerate(pairs):
        k = bisect.bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            ends.append(n)
        else:
            tails[k], ends[k] = j, n
        before.append(ends[k - 1] if k else -1)
    chain: list[tuple[int, int]] = []
    n = ends[-1] if ends else -1
    while n >= 0:
        chain.append(pairs[n])
        n = before[n]
    return chain[::-1]
