"""Typed records of lecture material: courses, units, decks, transcripts, FAQs."""

from __future__ import annotations

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
