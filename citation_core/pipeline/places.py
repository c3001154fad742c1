"""Placement by sentence numbers ("places" mode): the model names sentences, the pipeline writes the markers.

The answer is cut into numbered units: its sentences (``text.sentences``; a list item, a heading and a quote
line always end one) and its fenced code blocks, each one unit. The model sees the units and the sources,
each with a number, and replies with one small JSON object that maps unit numbers to source numbers, e.g.
``{"2": [3], "5": [1, 4]}``. Its reply grows with what it cites, not with the answer.

``read_reply`` reads that object strictly: a reply that is no JSON object (after an optional Markdown fence
around it) cannot be read and raises ``PlacesReplyError``; unknown unit numbers, entries of the wrong type,
ids that were never given and repeats are left out and counted. ``placement`` then puts each id at the end
of its unit (after markers already there, before trailing whitespace). A code block's ids go behind the
sentence that introduces it ("Git marks the conflict:"), never into the code; one without such a sentence
is left out and counted. The insertions go through the same ``protect`` and ``one_chip_per_run`` as the
Iris mode's, so every later phase sees the same ``Placement``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from ..contract.patterns import ANY_MARKER_RE
from ..text import detect_language, sentences
from ..text.fences import fenced_blocks
from .placement import Placement, one_chip_per_run, protect
from .serialize import SerializedSource

_FENCED_REPLY = re.compile(r"\A(`{3,}|~{3,})[^\n]*\n(.*?)\n?[ \t]*\1[`~]*\Z", re.S)
_NUMBER = re.compile(r"[1-9][0-9]{0,8}")
SHOWN = 40  # characters of a left-out entry kept for the trace


class PlacesReplyError(ValueError):
    """The placement reply is not a JSON object of unit numbers to source ids."""


@dataclass(frozen=True)
class Unit:
    number: int  # 1, 2, ... in the order of the answer
    start: int
    end: int  # a sentence: after its punctuation and any markers behind it; a code block: after its closing fence
    code: bool = False  # a fenced code block


def number_units(answer: str) -> tuple[Unit, ...]:
    """The answer's sentences and fenced code blocks, numbered in order."""
    spans = [(s.start, s.end, False) for s in sentences(answer, detect_language(answer))]
    spans += [(start, end, True) for start, end in fenced_blocks(answer)]  # the blocks ``sentences`` leaves out
    spans.sort()
    return tuple(Unit(i, start, end, code) for i, (start, end, code) in enumerate(spans, 1))


def units_json(answer: str, units: Sequence[Unit]) -> str:
    """The units as the model sees them: one ``{"n", "text"}`` object a line (markers already there left out)."""
    rows = [json.dumps({"n": u.number, "text": ANY_MARKER_RE.sub("", answer[u.start:u.end]).strip()},
                       ensure_ascii=False) for u in units]
    return "[\n" + ",\n".join(rows) + "\n]"


def sources_json(entries: Sequence[SerializedSource]) -> str:
    """The sources as the model sees them: ``{"id": <number>, "content"}``, the number being the entry's seq."""
    return json.dumps([{"id": e.seq, "content": e.content} for e in entries], ensure_ascii=False, indent=2)


@dataclass(frozen=True)
class PlacesReply:
    """What a places reply says, read strictly: (unit number, source ids) in the reply's order, and what was
    left out of it."""

    cites: tuple[tuple[int, tuple[int, ...]], ...]
    invented: tuple[str, ...] = ()  # ids that were not given
    unknown_units: tuple[str, ...] = ()  # keys that are no unit number of the answer
    wrong_types: tuple[str, ...] = ()  # values that are no list of ids, ids that are no whole numbers
    repeated: tuple[str, ...] = ()  # a unit named again, an id named again for one unit
    fenced: bool = False  # the object came wrapped in a Markdown code fence
    empty: bool = False


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its (key, value) pairs, in order, repeats kept."""


def _shown(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def _kind(value: object) -> str:
    if isinstance(value, _Pairs):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return "a number"


def read_reply(output: str, units: int, ids: Collection[int]) -> PlacesReply:
    """Read a places reply for an answer of ``units`` units whose sources were numbered ``ids``.

    Raises ``PlacesReplyError`` (one line) when the reply is not a JSON object."""
    text = output.strip()
    if not text:
        return PlacesReply((), empty=True)
    fence = _FENCED_REPLY.match(text)
    if fence is not None:
        text = fence.group(2).strip()
    try:
        value = json.loads(text, object_pairs_hook=_Pairs)
    except (ValueError, RecursionError) as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
        raise PlacesReplyError(f"the placement reply is not JSON ({reason}); it begins {_shown(output.strip())!r}"
                               ) from None
    if not isinstance(value, _Pairs):
        raise PlacesReplyError(f"the placement reply is {_kind(value)}, not a JSON object of sentence numbers "
                               f"to source ids; it begins {_shown(output.strip())!r}")
    cites: list[tuple[int, tuple[int, ...]]] = []
    invented: list[str] = []
    unknown: list[str] = []
    wrong: list[str] = []
    repeated: list[str] = []
    seen_units: set[int] = set()
    for key, given in value:
        number = int(key) if _NUMBER.fullmatch(key) else 0
        if not 1 <= number <= units:
            unknown.append(_shown(key))
            continue
        if number in seen_units:
            repeated.append(f"sentence {number}")
            continue
        seen_units.add(number)
        if not isinstance(given, list) or isinstance(given, _Pairs):
            wrong.append(f"{number}: {_kind(given)}")
            continue
        chosen: list[int] = []
        for item in given:
            if not isinstance(item, int) or isinstance(item, bool):
                wrong.append(f"{number}: {_shown(item)}")
            elif item not in ids:
                invented.append(str(item))
            elif item in chosen:
                repeated.append(f"{number}: {item}")
            else:
                chosen.append(item)
        if chosen:
            cites.append((number, tuple(chosen)))
    cites.sort(key=lambda cite: cite[0])  # the answer's order
    return PlacesReply(tuple(cites), tuple(invented), tuple(unknown), tuple(wrong), tuple(repeated),
                       fenced=fence is not None)


def anchors(units: Sequence[Unit]) -> dict[int, int | None]:
    """Per unit number, where its markers go: a sentence's end; for a code block, the end of the sentence
    before it (its introduction), or None when no sentence comes before it."""
    out: dict[int, int | None] = {}
    before: int | None = None
    for unit in units:
        if unit.code:
            out[unit.number] = before
        else:
            out[unit.number] = before = unit.end
    return out


def placement(answer: str, units: Sequence[Unit], reply: PlacesReply) -> Placement:
    """The reply's citations as insertions on ``answer``, with every correction counted."""
    where = anchors(units)
    mapped: list[tuple[int, int]] = []
    no_place: list[int] = []
    for number, seqs in reply.cites:
        offset = where.get(number)
        if offset is None:
            no_place += seqs
            continue
        mapped += [(offset, seq) for seq in seqs]
    safe = protect(answer, tuple(mapped))
    insertions, merged = one_chip_per_run(answer, safe.insertions)
    return Placement(insertions, removed_markers=reply.invented, moved_out_of_code=safe.moved,
                     moved_out_of_words=safe.out_of_words, empty_reply=reply.empty, merged=merged,
                     unknown_units=reply.unknown_units, wrong_types=reply.wrong_types, repeated=reply.repeated,
                     fenced_reply=reply.fenced, no_place=(*no_place, *safe.no_place))
