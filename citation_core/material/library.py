"""A course with everything loaded once: decks, transcripts, source records, retrieval indexes.

``CourseMaterial`` is immutable after loading, so one instance can serve several sessions.

What students see, as instructors set it in ``course.yml``: a unit marked ``released: false`` or
with a ``release_date`` still ahead is withheld (not in ``units``, not retrieved, not openable; only
:meth:`CourseMaterial.preview` shows it), and the ``hidden_pages`` of a unit are never retrieved,
cited or shown: their text and title are removed from the loaded deck.

A unit whose deck or transcript cannot be read (a corrupt PDF, a broken text layer, a transcript that is not
one) never breaks its course: it is left out (in ``broken``, with the one-line reason naming its file), said
once among the course's warnings, and every other unit works.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import MaterialError, UnknownUnitError
from ..retrieval import FaqIndex, LectureIndex
from ..sources import FaqSource, LectureSource, PageChunk, Sources, TranscriptSegment
from .chunks import faq_sources, page_chunks, transcript_segments
from .course import load_course, validate_unit
from .deck import load_deck, needs_reading
from .models import Course, Deck, LectureUnit, Transcript
from .overlays import last_steps
from .transcript import load_transcript

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class UnitMaterial:
    unit: LectureUnit
    deck: Deck | None
    transcript: Transcript | None
    chunks: tuple[PageChunk, ...]
    segments: tuple[TranscriptSegment, ...]
    warnings: tuple[str, ...] = ()
    withheld: str | None = None  # why students do not see the unit, e.g. "not released before 2027-01-15"

    @property
    def released(self) -> bool:
        return self.withheld is None

    @property
    def timed_source(self) -> str:
        """What a cited second of the unit is in, as every list names it: "transcript" for a unit with a
        transcript but no video (its chips say "Transcript · 1:15–1:32"), else "video"."""
        return "transcript" if self.unit.video is None and self.transcript is not None else "video"

    def is_hidden(self, page_number: int) -> bool:
        """Whether the instructor hid this page (``hidden_pages`` in course.yml)."""
        return page_number in self.unit.hidden_pages

    def visible_pages(self) -> list[int]:
        """Deck indexes students may open, in order (every page but the hidden ones)."""
        count = len(self.deck.pages) if self.deck is not None else 0
        return [p for p in range(1, count + 1) if p not in self.unit.hidden_pages]

    def page_label(self, page_number: int) -> str:
        """How people name a page: its printed number ("slide 5"), else its place in the deck ("page 12 of 20"),
        with its title beside it when no other page has that title ("page 3 of 20 (“Agenda”)")."""
        if self.deck is None or not 1 <= page_number <= len(self.deck.pages):
            return f"page {page_number}"
        if self.is_hidden(page_number):
            return "a hidden slide"
        page = self.deck.page(page_number)
        if page.display_page_number:
            return f"slide {page.display_page_number}"
        place = f"page {page_number} of {len(self.deck.pages)}"
        return f"{place} (“{page.title}”)" if self.title_names(page_number) else place

    def title_names(self, page_number: int) -> bool:
        """Whether the page's title names it: it has one, and no other page of the deck has the same."""
        if self.deck is None or not 1 <= page_number <= len(self.deck.pages):
            return False
        title = self.deck.page(page_number).title
        return bool(title) and self._title_counts[title] == 1

    @functools.cached_property
    def _title_counts(self) -> Counter[str]:
        return Counter(p.title for p in self.deck.pages) if self.deck is not None else Counter()

    def caption(self, page_number: int) -> str:
        """Viewer caption: printed number and deck index, e.g. "Slide 5 (page 7 of 30)"."""
        total = len(self.deck.pages) if self.deck else 0
        if self.is_hidden(page_number) and 1 <= page_number <= total:
            return f"Hidden slide (page {page_number} of {total})"
        if self.deck is not None and 1 <= page_number <= total:
            printed = self.deck.page(page_number).display_page_number
            if printed:
                return f"Slide {printed} (page {page_number} of {total})"
        return f"Unnumbered slide (page {page_number} of {total})"


@dataclass(frozen=True)
class CourseMaterial:
    course: Course
    units: dict[int, UnitMaterial]  # what students see: released units only, in manifest order
    faqs: tuple[FaqSource, ...]
    lecture_index: LectureIndex  # over released units, hidden pages left out
    faq_index: FaqIndex
    warnings: tuple[str, ...] = field(default=())
    withheld: dict[int, UnitMaterial] = field(default_factory=dict)  # units not released (yet)
    loaded_at: dt.datetime | None = None  # the moment release dates were compared with
    broken: dict[int, str] = field(default_factory=dict)  # units left out: their material cannot be read (why)

    def unit(self, unit_id: int) -> UnitMaterial:
        if unit_id in self.broken:
            raise UnknownUnitError(f"unit {unit_id}: left out of the course: {self.broken[unit_id]}")
        if unit_id in self.withheld:
            raise UnknownUnitError(
                f"unit {unit_id}: {self.withheld[unit_id].withheld} (only an instructor preview shows it)"
            )
        if unit_id not in self.units:
            known = ", ".join(str(u) for u in self.units)
            raise UnknownUnitError(f"unit {unit_id}: no such unit in course {self.course.id} (known: {known})")
        return self.units[unit_id]

    @property
    def all_units(self) -> dict[int, UnitMaterial]:
        """Every unit of the manifest, released or not, in manifest order (for the Library)."""
        every = {**self.units, **self.withheld}
        return {u.id: every[u.id] for u in self.course.units if u.id in every}

    def sources(self) -> Sources:
        """Every page chunk, transcript segment and FAQ students may see (to audit any answer about the course)."""
        lecture: list[LectureSource] = []
        for um in self.units.values():
            lecture.extend(um.chunks)
            lecture.extend(um.segments)
        return Sources(tuple(lecture), self.faqs)

    def visible_units(self, preview: bool = False) -> list[UnitMaterial]:
        """The units a unit picker offers: released ones; with ``preview`` (an instructor) every unit."""
        return list((self.all_units if preview else self.units).values())

    @functools.cached_property
    def preview_material(self) -> CourseMaterial:
        """The course as it will be once every unit is released (an instructor preview).

        Hidden pages stay hidden. The same object as ``self`` when nothing is withheld.
        """
        if not self.withheld:
            return self
        units = {uid: replace(um, withheld=None) for uid, um in self.all_units.items()}
        return replace(self, units=units, withheld={}, lecture_index=_lecture_index(units.values()))

    def preview(self, on: bool = True) -> CourseMaterial:
        """``preview_material`` when ``on``, else this material (what students see)."""
        return self.preview_material if on else self

    @property
    def next_release(self) -> dt.date | dt.datetime | None:
        """The earliest release date still ahead: from then on, loading again releases a unit."""
        dates = [um.unit.release_date for um in self.withheld.values()
                 if um.unit.released and um.unit.release_date is not None]
        return min(dates, key=as_datetime) if dates else None


def as_datetime(value: dt.date | dt.datetime) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None)
    return dt.datetime.combine(value, dt.time())


def _lecture_index(units: Iterable[UnitMaterial]) -> LectureIndex:
    """The course's search index: each slide at its last overlay step (``overlays``), and the transcripts."""
    sources: list[LectureSource] = []
    for um in units:
        sources.extend(last_steps(um.chunks))
        sources.extend(um.segments)
    return LectureIndex(sources)


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


def without_hidden(deck: Deck, hidden: frozenset[int]) -> Deck:
    """The deck with the text and title of hidden pages removed (their place and printed number stay)."""
    if not hidden:
        return deck
    pages = tuple(replace(p, text="", title="") if p.page_number in hidden else p for p in deck.pages)
    return replace(deck, pages=pages)


def load_unit(course: Course, unit: LectureUnit, now: dt.datetime | None = None) -> UnitMaterial:
    """Load a unit's deck and transcript; hidden pages lose their text (no chunk, no title)."""
    deck = without_boilerplate(load_deck(unit.deck, unit.display_overrides)) if unit.deck else None
    transcript = load_transcript(unit.transcript) if unit.transcript else None
    warnings = list(validate_unit(unit, deck, transcript))
    if deck is not None:
        warnings.extend(deck.warnings)
        deck = without_hidden(deck, unit.hidden_pages)
    if transcript is not None:
        warnings.extend(transcript.warnings)
    chunks = tuple(page_chunks(course, unit, deck)) if deck else ()
    segments = tuple(transcript_segments(unit, transcript, course.id)) if transcript else ()
    return UnitMaterial(unit, deck, transcript, chunks, segments, tuple(warnings), unit.withheld_reason(now))


def load_material(root: Path, now: dt.datetime | None = None) -> CourseMaterial:
    """Load a course folder. A manifest that cannot be read is an error naming its file; a unit whose deck or
    transcript cannot be read is left out (``broken``, and one warning naming the unit and its file).

    Release dates are compared with ``now`` (default: this moment): units not released by then are
    in ``withheld``, not in ``units`` nor in the lecture index.
    """
    course = load_course(root)
    moment = now or dt.datetime.now()
    loaded: dict[int, UnitMaterial] = {}
    broken: dict[int, str] = {}
    for unit in course.units:
        try:
            loaded[unit.id] = load_unit(course, unit, moment)
        except MaterialError as err:
            broken[unit.id] = str(err)
        except Exception as err:  # a file no reader foresaw: the unit is left out, the course still works
            log.exception("unit %s of %s: its material cannot be read", unit.id, root)
            broken[unit.id] = " ".join(
                f"{_material_files(unit)}: cannot be read ({type(err).__name__}: {err})".split())
    units = {uid: um for uid, um in loaded.items() if um.released}
    withheld = {uid: um for uid, um in loaded.items() if not um.released}
    faqs = tuple(faq_sources(course))
    warnings = tuple(w for um in loaded.values() for w in um.warnings) + tuple(
        f"unit {uid} “{course.unit(uid).name}” is left out: {why}" for uid, why in broken.items())
    return CourseMaterial(course, units, faqs, _lecture_index(units.values()), FaqIndex(faqs), warnings,
                          withheld, moment, broken)


def _material_files(unit: LectureUnit) -> str:
    """The names of a unit's deck and transcript, e.g. "intro.pdf / intro.vtt"."""
    return " / ".join(p.name for p in (unit.deck, unit.transcript) if p is not None) or f"unit {unit.id}"


def decks_to_read(root: Path) -> list[LectureUnit]:
    """Units of the course at ``root`` whose deck still needs its page images read (see ``load_deck``).

    Reading them first (``load_deck(unit.deck, unit.display_overrides, progress=...)``) lets a caller
    show progress; loading the course afterwards finds what was read in the cache. Empty when the
    manifest cannot be read (loading the course reports that).
    """
    try:
        course = load_course(root)
    except MaterialError:
        return []
    return [unit for unit in course.units if unit.deck is not None and needs_reading(unit.deck)]
