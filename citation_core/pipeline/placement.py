"""Phases 2–3 checked: what the placement model wrote, validated against the original answer.

The model's output is never trusted as text. Its valid markers become insertions (offset into the
original answer, sequence number); markers whose id was not given to the model are removed; when the
text around the markers differs from the answer, markers are re-anchored onto the original by a
character alignment or dropped. The answer text itself is never changed.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from ..contract.patterns import ANY_MARKER_RE, IRIS_RE, insert_at

_WS = re.compile(r"\s+")
_CODE = re.compile(r"^[ \t]*```.*?(?:^[ \t]*```[^\n]*$|\Z)|(`+)(?!`).+?(?<!`)\1(?!`)", re.S | re.M)


@dataclass(frozen=True)
class Insertion:
    offset: int  # position in the original answer
    seq: int


@dataclass(frozen=True)
class Placement:
    insertions: tuple[Insertion, ...]
    removed_markers: tuple[str, ...] = ()  # ids not given to the model (invented or altered)
    text_changed: bool = False  # the model altered the text around its markers
    reanchored: tuple[int, ...] = ()  # seqs moved onto the original answer by alignment
    dropped: tuple[int, ...] = ()  # seqs that could not be anchored
    moved_out_of_code: tuple[int, ...] = field(default=())

    @property
    def used_seqs(self) -> tuple[int, ...]:
        """Phase 3: sequence numbers in order of first occurrence, deduplicated."""
        seen: dict[int, None] = {}
        for ins in self.insertions:
            seen.setdefault(ins.seq, None)
        return tuple(seen)


def protected_spans(text: str) -> list[tuple[int, int]]:
    """Markers already in the answer and code (spans, fenced blocks): nothing is inserted inside them."""
    spans = [m.span() for m in ANY_MARKER_RE.finditer(text)]
    spans += [m.span() for m in _CODE.finditer(text)]
    return sorted(spans)


@dataclass(frozen=True)
class Stripped:
    """The placement output without its markers: the text, and where each known marker stood in it."""

    text: str
    found: tuple[tuple[int, int], ...]  # (offset in ``text``, seq)
    removed: tuple[str, ...]  # markers whose id was not given to the model


def strip(answer: str, output: str, allowed: Mapping[str, int]) -> Stripped:
    """Take the markers out of ``output``; marker text that the answer itself contains stays text."""
    in_answer = Counter(m.group(0) for m in IRIS_RE.finditer(answer))
    pieces: list[str] = []
    found: list[tuple[int, int]] = []
    removed: list[str] = []
    pos = length = 0
    for m in IRIS_RE.finditer(output):
        if in_answer[m.group(0)] > 0:
            in_answer[m.group(0)] -= 1
            continue
        chunk = output[pos : m.start()]
        pieces.append(chunk)
        length += len(chunk)
        pos = m.end()
        seq = allowed.get(m.group(0))
        if seq is None:
            removed.append(m.group(0))
        else:
            found.append((length, seq))
    pieces.append(output[pos:])
    return Stripped("".join(pieces), tuple(found), tuple(removed))


@dataclass(frozen=True)
class Aligned:
    mapped: tuple[tuple[int, int], ...]  # (offset in the original answer, seq)
    changed: bool
    reanchored: tuple[int, ...]
    dropped: tuple[int, ...]


def _same_text(a: str, b: str) -> bool:
    """Whitespace-only differences are not a changed text."""
    return _WS.sub(" ", a).strip() == _WS.sub(" ", b).strip()


def align(answer: str, stripped: Stripped) -> Aligned:
    """Map each marker's offset in the model's text onto the original answer, or drop it."""
    if stripped.text == answer:
        return Aligned(stripped.found, False, (), ())
    changed = not _same_text(stripped.text, answer)
    blocks = [b for b in SequenceMatcher(None, stripped.text, answer, autojunk=False).get_matching_blocks() if b.size]
    mapped: list[tuple[int, int]] = []
    reanchored: list[int] = []
    dropped: list[int] = []
    for off, seq in stripped.found:
        target = next((j + (off - i) for i, j, size in blocks if i < off <= i + size), None)
        if target is None:
            target = next((j for i, j, _ in blocks if off == i), None)
        if target is None:
            dropped.append(seq)
            continue
        if changed:
            reanchored.append(seq)
        mapped.append((target, seq))
    return Aligned(tuple(mapped), changed, tuple(reanchored), tuple(dropped))


def protect(answer: str, mapped: tuple[tuple[int, int], ...]) -> tuple[tuple[Insertion, ...], tuple[int, ...]]:
    """Move insertions out of markers and code to the end of that span; drop repeats. Returns (insertions,
    seqs moved)."""
    spans = protected_spans(answer)
    moved: list[int] = []
    insertions: list[Insertion] = []
    seen: set[tuple[int, int]] = set()
    for off, seq in mapped:
        safe = next((b for a, b in spans if a < off < b), off)
        if safe != off:
            moved.append(seq)
        if (safe, seq) not in seen:
            seen.add((safe, seq))
            insertions.append(Insertion(safe, seq))
    insertions.sort(key=lambda ins: ins.offset)  # stable: same offset keeps the model's order
    return tuple(insertions), tuple(moved)


def validate_placement(answer: str, output: str, allowed: Mapping[str, int]) -> Placement:
    """Turn the model output into insertions on ``answer`` (``allowed`` maps marker id -> seq)."""
    stripped = strip(answer, output, allowed)
    aligned = align(answer, stripped)
    insertions, moved = protect(answer, aligned.mapped)
    return Placement(insertions, stripped.removed, aligned.changed, aligned.reanchored, aligned.dropped, moved)


def render_insertions(answer: str, insertions: tuple[Insertion, ...], marker_for: Mapping[int, str]) -> str:
    """The original answer with ``marker_for[seq]`` inserted at each insertion's offset."""
    return insert_at(answer, ((ins.offset, marker_for[ins.seq]) for ins in insertions))
