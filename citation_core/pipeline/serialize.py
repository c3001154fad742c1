"""Phase 1: sources to the JSON array of {"id", "content"} the placement model sees."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from ..contract import IntermediateMarker, SourceRef
from ..sources import FaqSource, LectureSource, PageChunk, Source, TranscriptSegment


@dataclass(frozen=True)
class SerializedSource:
    seq: int
    marker: str  # the intermediate marker used as id
    ref: SourceRef
    content: str
    source: Source


@dataclass(frozen=True)
class Serialized:
    json_text: str
    entries: tuple[SerializedSource, ...]

    def by_seq(self) -> dict[int, SerializedSource]:
        return {e.seq: e for e in self.entries}


def _entries(items: Sequence[tuple[SourceRef, str, Source]]) -> Serialized:
    entries: list[SerializedSource] = []
    for ref, content, src in items:
        if not content.strip():
            continue  # empty texts are skipped
        seq = len(entries) + 1
        entries.append(SerializedSource(seq, IntermediateMarker(ref, seq).format(), ref, content, src))
    payload = [{"id": e.marker, "content": e.content} for e in entries]
    return Serialized(json.dumps(payload, ensure_ascii=False, indent=2), tuple(entries))


def serialize_lecture(sources: Sequence[LectureSource]) -> Serialized:
    """Page chunks first, then transcript segments, each in the order given."""
    items: list[tuple[SourceRef, str, Source]] = []
    for s in sources:
        if isinstance(s, PageChunk):
            items.append((SourceRef.of_page(s.lecture_unit_id, s.page_number), s.text, s))
    for s in sources:
        if isinstance(s, TranscriptSegment):
            items.append((SourceRef.of_span(s.lecture_unit_id, s.start, s.end), s.text, s))
    return _entries(items)


def serialize_faqs(faqs: Sequence[FaqSource]) -> Serialized:
    return _entries([(SourceRef.of_faq(f.id), f.content, f) for f in faqs])
