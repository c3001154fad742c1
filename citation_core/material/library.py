"""A course with everything loaded once: decks, transcripts, source records, retrieval indexes.

``CourseMaterial`` is immutable after loading, so one instance can serve several sessions.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import UnknownUnitError
from ..retrieval import FaqIndex, LectureIndex
from ..sources import FaqSource, LectureSource, PageChunk, TranscriptSegment
from .chunks import faq_sources, page_chunks, transcript_segments
from .course import load_course, validate_unit
from .deck import load_deck
from .models import Course, Deck, LectureUnit, Transcript
from .transcript import load_transcript


@dataclass(frozen=True)
class UnitMaterial:
    unit: LectureUnit
    deck: Deck | None
    transcript: Transcript | None
    chunks: tuple[PageChunk, ...]
    segments: tuple[TranscriptSegment, ...]
    warnings: tuple[str, ...] = ()

    def page_label(self, page_number: int) -> str:
        """How people name a page: its printed number, else its title (never the deck index)."""
        if self.deck is None or not 1 <= page_number <= len(self.deck.pages):
            return f"page {page_number}"
        page = self.deck.page(page_number)
        if page.display_page_number:
            return f"slide {page.display_page_number}"
        return f"the slide “{page.title}”" if page.title else "an unnumbered slide"

    def caption(self, page_number: int) -> str:
        """Viewer caption: printed number and deck index, e.g. "Slide 5 (page 7 of 30)"."""
        total = len(self.deck.pages) if self.deck else 0
        if self.deck is not None and 1 <= page_number <= total:
            printed = self.deck.page(page_number).display_page_number
            if printed:
                return f"Slide {printed} (page {page_number} of {total})"
        return f"Unnumbered slide (page {page_number} of {total})"


@dataclass(frozen=True)
class CourseMaterial:
    course: Course
    units: dict[int, UnitMaterial]
    faqs: tuple[FaqSource, ...]
    lecture_index: LectureIndex
    faq_index: FaqIndex
    warnings: tuple[str, ...] = field(default=())

    def unit(self, unit_id: int) -> UnitMaterial:
        if unit_id not in self.units:
            known = ", ".join(str(u) for u in self.units)
            raise UnknownUnitError(f"unit {unit_id}: no such unit in course {self.course.id} (known: {known})")
        return self.units[unit_id]


def without_boilerplate(deck: Deck) -> Deck:
    """The deck with lines that repeat on most pages (course footers, logos) removed from page texts."""
    if len(deck.pages) < 4:
        return deck
    counts: Counter[str] = Counter()
    for page in deck.pages:
        counts.update({ln.strip() for ln in page.text.splitlines() if ln.strip()})
    common = {ln for ln, c in counts.items() if c >= max(3, len(deck.pages) // 2) and not ln.isdigit()}
    if not common:
        return deck
    pages = tuple(
        replace(p, text="\n".join(ln for ln in p.text.splitlines() if ln.strip() not in common)) for p in deck.pages
    )
    return replace(deck, pages=pages)


def load_unit(course: Course, unit: LectureUnit) -> UnitMaterial:
    deck = without_boilerplate(load_deck(unit.deck, unit.display_overrides)) if unit.deck else None
    transcript = load_transcript(unit.transcript) if unit.transcript else None
    warnings = list(validate_unit(unit, deck, transcript))
    if deck is not None:
        warnings.extend(deck.warnings)
    if transcript is not None:
        warnings.extend(transcript.warnings)
    chunks = tuple(page_chunks(course, unit, deck)) if deck else ()
    segments = tuple(transcript_segments(unit, transcript, course.id)) if transcript else ()
    return UnitMaterial(unit, deck, transcript, chunks, segments, tuple(warnings))


def load_material(root: Path) -> CourseMaterial:
    """Load a course folder; a broken unit is an error naming its file."""
    course = load_course(root)
    units = {unit.id: load_unit(course, unit) for unit in course.units}
    lecture: list[LectureSource] = []
    for um in units.values():
        lecture.extend(um.chunks)
        lecture.extend(um.segments)
    faqs = tuple(faq_sources(course))
    warnings = tuple(w for um in units.values() for w in um.warnings)
    return CourseMaterial(course, units, faqs, LectureIndex(lecture), FaqIndex(faqs), warnings)
