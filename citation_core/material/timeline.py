"""Slide timeline of a lecture video: which deck page is shown from which second."""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence

from ..errors import MaterialError
from .models import TimelineEntry

__all__ = ["check_timeline_pages", "describe_value", "page_at", "parse_timeline"]


def parse_timeline(
    raw: object,
    source: str,
    field: str = "timeline",
    page_count: int | None = None,
) -> tuple[TimelineEntry, ...]:
    """Validate a YAML/JSON list of ``{at: seconds, page: N}`` mappings.

    ``source`` names the file and ``field`` the place in it, e.g. ``course.yml`` and
    ``lectures[0].units[1].timeline``; errors read ``course.yml: <field>[2].page: ...``.
    Entries must be sorted by strictly increasing ``at`` (>= 0), pages are 1-based and, when
    ``page_count`` is given, within the deck.
    """
    if not isinstance(raw, list):
        raise MaterialError(f"{source}: {field}: expected a list of {{at, page}} entries, got {describe_value(raw)}")
    entries: list[TimelineEntry] = []
    for index, item in enumerate(raw):
        where = f"{source}: {field}[{index}]"
        if not isinstance(item, Mapping):
            raise MaterialError(f"{where}: expected a mapping {{at, page}}, got {describe_value(item)}")
        unknown = sorted(str(key) for key in item if key not in ("at", "page"))
        if unknown:
            raise MaterialError(f"{where}: unknown field '{unknown[0]}' (allowed: at, page)")
        for key in ("at", "page"):
            if key not in item:
                raise MaterialError(f"{where}: missing '{key}'")
        at, page = item["at"], item["page"]
        if isinstance(at, bool) or not isinstance(at, int | float) or not math.isfinite(at):
            raise MaterialError(f"{where}.at: expected a number of seconds, got {describe_value(at)}")
        if at < 0:
            raise MaterialError(f"{where}.at: must not be negative, got {at}")
        if isinstance(page, bool) or not isinstance(page, int):
            raise MaterialError(f"{where}.page: expected an integer, got {describe_value(page)}")
        if page < 1:
            raise MaterialError(f"{where}.page: pages start at 1, got {page}")
        if entries and at <= entries[-1].at:
            raise MaterialError(
                f"{where}.at: timeline must be sorted by time: {at} s does not come after "
                f"{entries[-1].at:g} s of {field}[{index - 1}]"
            )
        entries.append(TimelineEntry(at=float(at), page=page))
    timeline = tuple(entries)
    if page_count is not None:
        check_timeline_pages(timeline, page_count, source, field)
    return timeline


def check_timeline_pages(
    timeline: Sequence[TimelineEntry], page_count: int, source: str, field: str = "timeline"
) -> None:
    """Raise MaterialError when an entry shows a page past the deck's ``page_count`` pages."""
    for index, entry in enumerate(timeline):
        if not 1 <= entry.page <= page_count:
            raise MaterialError(
                f"{source}: {field}[{index}].page: page {entry.page} is past the deck's {page_count} pages"
            )


def page_at(timeline: Sequence[TimelineEntry], second: float) -> int | None:
    """The deck page shown at ``second``: the last entry at or before it; None before the first."""
    if not timeline or second < timeline[0].at:
        return None
    index = bisect.bisect_right([entry.at for entry in timeline], second) - 1
    return timeline[index].page


def describe_value(value: object) -> str:
    """A short rendering of a manifest value for error messages."""
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:37] + "...")
    if value is None:
        return "nothing"
    if isinstance(value, list | dict | tuple):
        return f"a {type(value).__name__}"
    return repr(value)
