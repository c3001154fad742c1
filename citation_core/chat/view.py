"""The student's current position: an open deck page or a second of the lecture video."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import PositionError
from ..material.library import CourseMaterial, UnitMaterial
from ..material.timeline import page_at
from ..sources import LectureSource, TranscriptSegment
from ..text import clock


@dataclass(frozen=True)
class ViewPosition:
    unit_id: int
    page: int | None = None  # deck index
    second: float | None = None


@dataclass(frozen=True)
class CurrentView:
    unit_id: int
    unit_name: str
    lecture_name: str
    page: int | None  # deck index of the open (or, for video, the shown) slide
    display_page_number: str | None
    label: str  # how the answer may name it: "slide 5" or the slide's title
    title: str
    second: float | None
    sources: tuple[LectureSource, ...]

    def describe(self) -> str:
        """For the writer's system prompt: printed numbers only, never the deck index."""
        text = "\n".join(s.text for s in self.sources) or "(no text)"
        if self.second is not None:
            at = clock(self.second)
            where = f"the video of “{self.unit_name}” at {at}"
            if self.page is not None:
                where += f", while {self.label} is shown"
            return f"{where}. The lecturer says:\n{text}"
        return f"{self.label} of “{self.unit_name}” ({self.lecture_name}). Its text:\n{text}"

    def to_json(self) -> dict[str, Any]:
        return {
            "unit_id": self.unit_id,
            "unit_name": self.unit_name,
            "page": self.page,
            "display_page_number": self.display_page_number,
            "label": self.label,
            "second": self.second,
            "sources": [s.uuid for s in self.sources],
        }


def segment_at(um: UnitMaterial, second: float) -> TranscriptSegment | None:
    """The transcript segment playing at ``second`` (else the last one that started before it)."""
    playing = [s for s in um.segments if s.start <= second < s.end]
    if playing:
        return playing[0]
    before = [s for s in um.segments if s.start <= second]
    return before[-1] if before else None


def segments_around(um: UnitMaterial, second: float, before: int = 1, after: int = 2) -> list[TranscriptSegment]:
    """The segment playing at ``second`` with ``before`` segments before it and ``after`` after it."""
    current = segment_at(um, second)
    if current is None:
        return list(um.segments[: after + 1])
    at = um.segments.index(current)
    return list(um.segments[max(0, at - before) : at + after + 1])


def current_view(material: CourseMaterial, position: ViewPosition) -> CurrentView:
    """What the student has open. A hidden page cannot be opened (``PositionError``); a second of the video
    that shows a hidden page is the video alone (no slide number, title or label)."""
    um = material.unit(position.unit_id)
    unit = um.unit
    if (position.page is None) == (position.second is None):
        raise PositionError("position: give exactly one of page or second")
    if position.page is not None:
        if um.deck is None:
            raise PositionError(f"unit {unit.id}: has no deck, so no page can be opened")
        total = len(um.deck.pages)
        if not 1 <= position.page <= total:
            raise PositionError(f"page {position.page}: out of range, unit {unit.id} has pages 1..{total}")
        if um.is_hidden(position.page):
            raise PositionError(f"page {position.page}: hidden, unit {unit.id} does not show it to students")
        page = um.deck.page(position.page)
        sources = tuple(c for c in um.chunks if c.page_number == position.page)
        return CurrentView(unit.id, unit.name, unit.lecture_name, position.page, page.display_page_number,
                           um.page_label(position.page), page.title, None, sources)
    second = float(position.second or 0.0)
    if um.transcript is None:
        raise PositionError(f"unit {unit.id}: has no transcript, so no second can be opened")
    end = um.transcript.cues[-1].end if um.transcript.cues else 0.0
    if not 0 <= second <= end:
        raise PositionError(f"second {second:g}: out of range, the video of unit {unit.id} lasts {end:g} s")
    seg = segment_at(um, second)
    shown = page_at(unit.timeline, second)
    if shown is not None and um.is_hidden(shown):
        shown = None  # the video only: a hidden slide is neither named nor numbered
    printed = um.deck.page(shown).display_page_number if (um.deck and shown) else None
    title = um.deck.page(shown).title if (um.deck and shown) else ""
    label = um.page_label(shown) if shown else "the video"
    return CurrentView(unit.id, unit.name, unit.lecture_name, shown, printed, label, title, second,
                       (seg,) if seg else ())
