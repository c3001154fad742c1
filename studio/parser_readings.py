"""The Chip preview's table of what each parser reads: one row per match of each parser, in text order.

The readings of one marker by the four parsers stand in rows next to each other (ordered by where the match
starts, then by parser), every field in its own column, so that the table fits the page at any width the app
supports instead of four narrow tables side by side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

FIELDS = ("type", "entity_id", "page", "start", "end", "keyword", "summary", "seq", "version")
NOT_CARRIED = "—"  # the parser's pattern has no such field (an empty field shows as an empty cell)


def reading_columns(readings: Mapping[str, Sequence[Mapping[str, Any]]],
                    order: Sequence[str]) -> dict[str, list[str]]:
    """``readings`` (each parser's matches as ``MarkerMatch.to_json``) as table columns: "parser", the fields,
    and "span" (start–end offsets in the text, kept on one line); parsers in ``order`` where matches start at
    the same offset."""
    rows = sorted(((m["span"][0], order.index(parser), parser, m) for parser, found in readings.items()
                   for m in found), key=lambda r: (r[0], r[1]))
    columns: dict[str, list[str]] = {"parser": [parser for _, _, parser, _ in rows]}
    for field in FIELDS:
        columns[field] = [NOT_CARRIED if m.get(field) is None else str(m[field]) for _, _, _, m in rows]
    columns["span"] = [f"{m['span'][0]}\u2060–\u2060{m['span'][1]}" for _, _, _, m in rows]  # one line (word joiners)
    return columns
