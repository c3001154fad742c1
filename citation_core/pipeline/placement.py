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

from ..contract.patterns import ANY_MARKER_RE, IRIS_RE

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


def _protect(offset: int, spans: list[tuple[int, int]]) -> int:
    for a, b in spans:
        if a < offset < b:
            return b
    return offset


def validate_placement(answer: str, output: str, allowed: Mapping[str, int]) -> Placement:
    """Turn the model output into insertions on ``answer`` (``allowed`` maps marker id -> seq)."""
    pieces: list[str] = []
    found: list[tuple[int, int]] = []  # (offset in the marker-free output, seq)
    removed: list[str] = []
    # marker text that the answer itself contains is answer text, not a citation
    in_answer = Counter(m.group(0) for m in IRIS_RE.finditer(answer))
    pos = 0
    length = 0
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
    stripped = "".join(pieces)

    # whitespace-only differences are not a changed text; markers are still aligned onto the original
    changed = _WS.sub(" ", stripped).strip() != _WS.sub(" ", answer).strip()
    reanchored: list[int] = []
    dropped: list[int] = []
    mapped: list[tuple[int, int]] = []
    if stripped == answer:
        mapped = found
    else:
        blocks = SequenceMatcher(None, stripped, answer, autojunk=False).get_matching_blocks()
        for off, seq in found:
            target = None
            for i, j, size in blocks:
                if size and i < off <= i + size:
                    target = j + (off - i)
                    break
            if target is None:
                for i, j, size in blocks:
                    if size and off == i:
                        target = j
                        break
            if target is None:
                dropped.append(seq)
            else:
                if changed:
                    reanchored.append(seq)
                mapped.append((target, seq))

    spans = protected_spans(answer)
    moved: list[int] = []
    insertions: list[Insertion] = []
    seen: set[tuple[int, int]] = set()
    for off, seq in mapped:
        safe = _protect(off, spans)
        if safe != off:
            moved.append(seq)
        if (safe, seq) in seen:
            continue
        seen.add((safe, seq))
        insertions.append(Insertion(safe, seq))
    insertions.sort(key=lambda ins: ins.offset)  # stable: same offset keeps the model's order
    return Placement(tuple(insertions), tuple(removed), changed, tuple(reanchored), tuple(dropped), tuple(moved))


def render_insertions(answer: str, insertions: tuple[Insertion, ...], marker_for: Mapping[int, str]) -> str:
    """The original answer with ``marker_for[seq]`` inserted at each insertion's offset."""
    out: list[str] = []
    pos = 0
    for ins in insertions:
        out.append(answer[pos : ins.offset])
        out.append(marker_for[ins.seq])
        pos = ins.offset
    out.append(answer[pos:])
    return "".join(out)
