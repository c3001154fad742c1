"""The second rendering: the answer followed by a de-duplicated, sorted "Sources:" list (seed 004)."""

from __future__ import annotations

from dataclasses import dataclass

from ..contract import parse, strip_markers
from ..errors import MarkerError
from ..material.library import CourseMaterial
from ..text import clock

_TIMED_ICON = {"video": "🎬", "transcript": "📝"}  # a cited second: in the video, or in a transcript without one


@dataclass(frozen=True, order=True)
class SourceLine:
    document: str
    order: tuple[int, float]  # printed slide number (or deck index) / second, for sorting only
    text: str


def source_lines(answer: str, material: CourseMaterial) -> list[str]:
    """One line per cited source, de-duplicated, sorted by document then position; printed numbers, or for a slide
    that prints none its place in the deck ("page 12 of 20"). A time span is shown only for a unit with a video or
    transcript (else the line names the unit alone), named "transcript" for a unit with a transcript but no video,
    as its chips name it."""
    lines: dict[str, SourceLine] = {}
    for m in parse(answer, "stored"):
        try:
            ref = m.source_ref()
        except MarkerError:
            continue
        if ref.type == "F":
            faq = next((f for f in material.faqs if str(f.id) == ref.entity_id), None)
            if faq is not None:
                text = f"❓ Course FAQ (question: {faq.question})"
                lines.setdefault(text, SourceLine("\uffff FAQ", (0, 0), text))
            continue
        unit_id = ref.entity_id
        if not (unit_id.isascii() and unit_id.isdigit() and len(unit_id) < 19) or int(unit_id) not in material.units:
            continue
        um = material.units[int(unit_id)]
        doc = um.unit.name
        if ref.page is not None and um.deck is not None and 1 <= ref.page <= len(um.deck.pages):
            page = um.deck.page(ref.page)
            if page.display_page_number:
                parts = [f"slide {page.display_page_number}"] + ([f"section: {page.title}"] if page.title else [])
            else:  # named by its place in the deck, and by its title when no other page has it
                parts = [f"page {ref.page} of {len(um.deck.pages)}"]
                parts += [f"“{page.title}”"] if um.title_names(ref.page) else []
            text = f"📄 {doc} ({', '.join(parts)})" if parts else f"📄 {doc}"
            printed = page.display_page_number or ""
            order = (int(printed) if printed.isdigit() else ref.page, 0.0)
        elif ref.start is not None and (um.unit.video is not None or um.transcript is not None):
            span = clock(ref.start) + (f"–{clock(ref.end)}" if ref.end is not None else "")
            text = f"{_TIMED_ICON[um.timed_source]} {doc} ({um.timed_source} {span})"
            order = (10**6, float(ref.start))
        else:
            text, order = f"📄 {doc}", (0, 0.0)
        lines.setdefault(text, SourceLine(doc, order, text))
    return [line.text for line in sorted(lines.values())]


def with_sources_list(answer: str, material: CourseMaterial) -> str:
    """The answer without markers, then "Sources:" and one line per source (nothing when none)."""
    body = strip_markers(answer).strip()
    lines = source_lines(answer, material)
    return f"{body}\n\nSources:\n" + "\n".join(lines) if lines else body
