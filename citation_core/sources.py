"""Source records handed to the citation pipeline (DESIGN 4.1)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageChunk:
    """One chunk of one deck page. A page may give several chunks."""

    uuid: str
    lecture_unit_id: int | str
    page_number: int
    text: str
    display_page_number: str | None = None
    course_id: int | str | None = None
    lecture_id: int | str | None = None
    lecture_unit_name: str = ""
    score: float = 0.0


@dataclass(frozen=True)
class TranscriptSegment:
    """One transcript cue (or a merged run of cues) of a lecture video."""

    uuid: str
    lecture_unit_id: int | str
    start: float
    end: float
    text: str
    page_number: int | None = None
    score: float = 0.0


@dataclass(frozen=True)
class FaqSource:
    """A course FAQ entry."""

    id: int | str
    question: str
    answer: str
    score: float = 0.0

    @property
    def content(self) -> str:
        return f"{self.question} {self.answer}"


LectureSource = PageChunk | TranscriptSegment
Source = PageChunk | TranscriptSegment | FaqSource
