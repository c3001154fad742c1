"""Server side: lecture citations resolved to their lecture metadata (like IrisCitationService)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..contract import parse
from ..material.library import CourseMaterial


@dataclass(frozen=True)
class CitationInfo:
    entityId: int  # noqa: N815 (the Artemis DTO field names)
    lectureTitle: str  # noqa: N815
    lectureUnitTitle: str  # noqa: N815
    lectureId: int  # noqa: N815
    courseId: int  # noqa: N815

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def resolve_citations(answer: str, material: CourseMaterial) -> list[CitationInfo]:
    """One entry per distinct lecture unit cited (server pattern: L only, numeric ids), in order."""
    seen: dict[int, CitationInfo] = {}
    for m in parse(answer, "server"):
        uid = int(m.entity_id)
        if uid in seen or uid not in material.units:
            continue
        unit = material.units[uid].unit
        seen[uid] = CitationInfo(uid, unit.lecture_name, unit.name, unit.lecture_id, material.course.id)
    return list(seen.values())


def unit_table(material: CourseMaterial) -> dict[str, dict[str, Any]]:
    """What the chip renderer needs per unit: titles, ids, current material versions, what it has.

    ``slides`` maps each deck index (``page_number``, as a string) to how people name that slide:
    ``{"printed": display_page_number or None, "title": page title}``; empty when there is no deck.

    Every unit of the manifest is listed, released or not, so that a marker pointing at withheld
    material can say why it does not open: ``released`` is false for a unit students do not see yet
    (``withheldReason`` says why, e.g. "not released before 2027-01-15", ``releaseDate`` is its ISO
    date or None) and then ``slides`` is empty; ``hiddenPages`` lists the deck indexes the instructor
    hid, whose ``slides`` entries keep the printed number, lose the title and carry ``"hidden": true``.
    """
    table: dict[str, dict[str, Any]] = {}
    for uid, um in material.all_units.items():
        hidden = um.unit.hidden_pages
        slides: dict[str, dict[str, Any]] = {}
        if um.deck is not None and um.released:
            for p in um.deck.pages:
                slide: dict[str, Any] = {"printed": p.display_page_number or None, "title": p.title}
                if p.page_number in hidden:
                    slide = {"printed": p.display_page_number or None, "title": "", "hidden": True}
                slides[str(p.page_number)] = slide
        release = um.unit.release_date
        table[str(uid)] = {
            "lectureTitle": um.unit.lecture_name,
            "lectureUnitTitle": um.unit.name,
            "lectureId": um.unit.lecture_id,
            "courseId": material.course.id,
            "attachmentVersion": um.unit.versions.attachment,
            "videoVersion": um.unit.versions.video,
            "hasDeck": um.deck is not None,
            "hasVideo": um.unit.video is not None,
            "hasTranscript": um.transcript is not None,
            "slides": slides,
            "released": um.released,
            "withheldReason": um.withheld,
            "releaseDate": release.isoformat() if release is not None else None,
            "hiddenPages": sorted(hidden),
        }
    return table


def faq_table(material: CourseMaterial) -> dict[str, dict[str, Any]]:
    return {str(f.id): {"question": f.question} for f in material.faqs}
