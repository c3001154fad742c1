"""Turn loaded material into the source records the citation pipeline cites (DESIGN 4.1).

UUIDs are stable: the same course, unit and position always give the same id.
"""

from __future__ import annotations

import re
import uuid

from ..sources import FaqSource, PageChunk, TranscriptSegment
from .models import Course, Deck, LectureUnit, Transcript
from .timeline import page_at

__all__ = ["UUID_NAMESPACE", "faq_sources", "page_chunks", "split_text", "transcript_segments"]

# uuid5 namespace of every material source id
UUID_NAMESPACE = uuid.NAMESPACE_URL

_PARAGRAPH = re.compile(r"\n\s*\n")


def page_chunks(course: Course, unit: LectureUnit, deck: Deck, max_chars: int = 1200) -> list[PageChunk]:
    """One chunk per page with text; a page longer than ``max_chars`` is split further.

    uuid: uuid5 over ``"{course.id}:{unit.id}:page:{page_number}:{chunk_index}"``.
    """
    chunks: list[PageChunk] = []
    for page in deck.pages:
        for index, text in enumerate(split_text(page.text, max_chars)):
            key = f"{course.id}:{unit.id}:page:{page.page_number}:{index}"
            chunks.append(
                PageChunk(
                    uuid=str(uuid.uuid5(UUID_NAMESPACE, key)),
                    lecture_unit_id=unit.id,
                    page_number=page.page_number,
                    text=text,
                    display_page_number=page.display_page_number,
                    course_id=course.id,
                    lecture_id=unit.lecture_id,
                    lecture_unit_name=unit.name,
                )
            )
    return chunks


def transcript_segments(
    unit: LectureUnit, transcript: Transcript, course_id: int | None = None
) -> list[TranscriptSegment]:
    """One segment per cue with text; ``page_number`` is the slide shown when the cue starts.

    uuid: uuid5 over ``"{course_id}:{unit.id}:cue:{cue_index}"`` (0-based index in the
    transcript, so skipping empty cues never shifts ids); without ``course_id`` the key is
    ``"{unit.id}:cue:{cue_index}"`` (unit ids are unique within a course).
    """
    prefix = f"{course_id}:{unit.id}" if course_id is not None else f"{unit.id}"
    segments: list[TranscriptSegment] = []
    for index, cue in enumerate(transcript.cues):
        if not cue.text.strip():
            continue
        segments.append(
            TranscriptSegment(
                uuid=str(uuid.uuid5(UUID_NAMESPACE, f"{prefix}:cue:{index}")),
                lecture_unit_id=unit.id,
                start=cue.start,
                end=cue.end,
                text=cue.text,
                page_number=page_at(unit.timeline, cue.start),
            )
        )
    return segments


def faq_sources(course: Course) -> list[FaqSource]:
    return [FaqSource(id=faq.id, question=faq.question, answer=faq.answer) for faq in course.faqs]


def split_text(text: str, max_chars: int) -> list[str]:
    """Split text into pieces of at most ``max_chars``, preferring paragraph, then line, then
    word boundaries; a single word longer than ``max_chars`` is cut. Empty text gives no piece.
    """
    if max_chars < 1:
        raise ValueError(f"max_chars must be positive, got {max_chars}")
    text = text.strip()
    if not text:
        return []
    if len(text) <= max_chars:
        return [text]
    pieces: list[tuple[str, str]] = []  # (separator before it, text)
    for p_index, paragraph in enumerate(_PARAGRAPH.split(text)):
        lines = [line.strip() for line in paragraph.split("\n") if line.strip()]
        for l_index, line in enumerate(lines):
            separator = "\n\n" if p_index and not l_index else "\n"
            for w_index, word in enumerate(_words(line, max_chars)):
                pieces.append((separator if not w_index else " ", word))
    chunks: list[str] = []
    current = ""
    for separator, piece in pieces:
        if current and len(current) + len(separator) + len(piece) <= max_chars:
            current += separator + piece
        else:
            if current:
                chunks.append(current)
            current = piece
    if current:
        chunks.append(current)
    return chunks


def _words(line: str, max_chars: int) -> list[str]:
    """A line as pieces of at most ``max_chars``: whole if it fits, else words (cut if needed)."""
    if len(line) <= max_chars:
        return [line]
    words: list[str] = []
    for word in line.split():
        words.extend(word[i : i + max_chars] for i in range(0, len(word), max_chars))
    return words
