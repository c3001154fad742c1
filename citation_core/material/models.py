"""Typed records of lecture material: courses, units, decks, transcripts, FAQs."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..errors import UnknownUnitError

DisplaySource = Literal["manifest", "page_labels", "text", "ocr", "none"]


@dataclass(frozen=True)
class DeckPage:
    page_number: int  # 1-based position in the PDF (deck index)
    display_page_number: str | None  # number printed on the slide, or None
    display_source: DisplaySource
    text: str
    title: str = ""  # first meaningful line of the page text


@dataclass(frozen=True)
class Deck:
    path: Path
    pages: tuple[DeckPage, ...]
    warnings: tuple[str, ...] = ()

    def page(self, page_number: int) -> DeckPage:
        return self.pages[page_number - 1]


@dataclass(frozen=True)
class Cue:
    start: float
    end: float
    text: str


@dataclass(frozen=True)
class Transcript:
    path: Path
    cues: tuple[Cue, ...]
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class TimelineEntry:
    at: float  # second from which this page is shown
    page: int  # deck index


@dataclass(frozen=True)
class MaterialVersions:
    attachment: int = 1
    video: int = 1


@dataclass(frozen=True)
class LectureUnit:
    id: int
    name: str
    lecture_id: int
    lecture_name: str
    deck: Path | None = None  # absolute path
    video: Path | None = None
    transcript: Path | None = None
    timeline: tuple[TimelineEntry, ...] = ()
    versions: MaterialVersions = MaterialVersions()
    display_overrides: dict[int, str | None] = field(default_factory=dict)
    language: str = "en"
    released: bool = True  # ``released: false`` in the manifest: withheld whatever the date
    release_date: dt.date | dt.datetime | None = None  # withheld before this day (or moment)
    hidden_pages: frozenset[int] = frozenset()  # deck indexes students never see

    def is_released(self, now: dt.datetime | None = None) -> bool:
        """Whether students see the unit at ``now`` (default: this moment, local time)."""
        return self.withheld_reason(now) is None

    def withheld_reason(self, now: dt.datetime | None = None) -> str | None:
        """Why students do not see the unit yet, e.g. "not released before 2027-01-15"; None once released."""
        if not self.released:
            return "not released"
        if self.release_date is None:
            return None
        moment = now or dt.datetime.now()
        if isinstance(self.release_date, dt.datetime):
            release = self.release_date
            if release.tzinfo is not None and moment.tzinfo is None:
                moment = moment.astimezone()
            elif release.tzinfo is None and moment.tzinfo is not None:
                release = release.replace(tzinfo=moment.tzinfo)
            if moment < release:
                return f"not released before {self.release_date.isoformat(sep=' ', timespec='minutes')}"
            return None
        if moment.date() < self.release_date:
            return f"not released before {self.release_date.isoformat()}"
        return None


@dataclass(frozen=True)
class Lecture:
    id: int
    name: str
    units: tuple[LectureUnit, ...]


@dataclass(frozen=True)
class Faq:
    id: int
    question: str
    answer: str
    language: str = "en"


@dataclass(frozen=True)
class Course:
    id: int
    name: str
    language: str
    root: Path
    lectures: tuple[Lecture, ...]
    faqs: tuple[Faq, ...] = ()

    @property
    def units(self) -> tuple[LectureUnit, ...]:
        return tuple(u for lec in self.lectures for u in lec.units)

    def unit(self, unit_id: int) -> LectureUnit:
        for u in self.units:
            if u.id == unit_id:
                return u
        raise UnknownUnitError(f"unit {unit_id}: no such unit in course {self.id}")
