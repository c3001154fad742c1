"""The writer's tools: lecture_retrieval, faq_retrieval, switch_context (OpenAI function schemas)."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import UnknownUnitError
from ..material.library import CourseMaterial, UnitMaterial
from ..sources import FaqSource, LectureSource, PageChunk
from ..text import GENERIC_TITLES, clock, slide_units, terms

if TYPE_CHECKING:
    from ..pipeline.registry import CitationRegistry

TOOLS: tuple[dict[str, Any], ...] = (
    {"type": "function", "function": {
        "name": "lecture_retrieval",
        "description": "Search the slides and video transcripts of this course. Returns passages with where they are.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    }},
    {"type": "function", "function": {
        "name": "faq_retrieval",
        "description": "Search the frequently asked questions of this course.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    }},
    {"type": "function", "function": {
        "name": "switch_context",
        "description": "Switch the conversation to another lecture unit of this course when the question is about it.",
        "parameters": {"type": "object", "properties": {"unit_id": {"type": "integer"}}, "required": ["unit_id"]},
    }},
)


def passage(material: CourseMaterial, src: LectureSource) -> dict[str, Any]:
    """A retrieved source as the writer sees it: printed slide number or title, never the deck index.

    Lines the unit's deck repeats on many pages (an outline sidebar, a course footer) are left out of the
    text; ``filler`` marks title, agenda and divider pages, which answer no question about the content.
    """
    um = material.unit(int(src.lecture_unit_id))
    if isinstance(src, PageChunk):
        page = um.deck.page(src.page_number) if um.deck else None
        return {"kind": "slide", "uuid": src.uuid, "unit": um.unit.name, "where": um.page_label(src.page_number),
                "printed": page.display_page_number if page else None, "title": page.title if page else "",
                **place_of(um, src.page_number),
                "text": without_repeated_lines(src.text, repeated_lines(material, um.unit.id),
                                               page.title if page else None),
                "filler": is_filler(src.text, src.page_number, page.display_page_number if page else None)}
    where = "video" if um.unit.video is not None else "transcript"  # a unit may have a transcript and no video
    return {"kind": "video", "uuid": src.uuid, "unit": um.unit.name, "where": f"{where} at {clock(src.start)}",
            "no_video": um.unit.video is None,
            "start": src.start, "end": src.end, "text": src.text}


def place_of(um: UnitMaterial, page_number: int) -> dict[str, Any]:
    """Where a page stands in its deck, for naming a slide that prints no number ("page 12 of 20"), and whether
    its title names it alone (no other page has it)."""
    return {"page": page_number, "pages": len(um.deck.pages) if um.deck else 0,
            "title_unique": um.title_names(page_number)}


FILLER_TITLES = GENERIC_TITLES | frozenset(("table of contents", "part", "teil", "thank you", "vielen dank"))
_DIVIDER_TITLE = re.compile(r"^(?:part|teil|partie|parte|deel|część|section|abschnitt|chapter|kapitel)\s+\d+\b",
                            re.I)


def is_filler(text: str, page_number: int, printed: str | None) -> bool:
    """A title, agenda, divider, "Questions?" or references page: it frames the lecture, it does not teach."""
    slide = slide_units(text)
    title = slide.title.strip(" ?!.:").lower()
    if title in FILLER_TITLES or _DIVIDER_TITLE.match(title) or title.startswith(("reference", "literatur")):
        return True
    if page_number == 1 and not printed:
        return True  # the title page
    words = sum(len(u.full().split()) for u in slide.units)
    return words <= 8 and len(slide.units) <= 2


def repeated_lines(material: CourseMaterial, unit_id: int) -> frozenset[str]:
    """Lines that stand on at least three pages and a quarter of the unit's deck (navigation, footers)."""
    key = (id(material), unit_id)
    cached = _REPEATED.get(key)
    if cached is not None and cached[0] is material:
        return cached[1]
    um = material.unit(unit_id)
    counts: Counter[str] = Counter()
    for chunk in um.chunks:
        counts.update({_line_key(ln) for ln in chunk.text.splitlines() if ln.strip()})
    pages = len({c.page_number for c in um.chunks}) or 1
    found = frozenset(ln for ln, c in counts.items() if c >= 3 and c >= pages / 4 and not ln.isdigit())
    _REPEATED[key] = (material, found)
    return found


_REPEATED: dict[tuple[int, int], tuple[CourseMaterial, frozenset[str]]] = {}
_RARITY: dict[tuple[int, int | None], tuple[CourseMaterial, dict[str, float]]] = {}


def course_rarity(material: CourseMaterial, unit_id: int | None = None) -> dict[str, float]:
    """How rare each term is among the page chunks and transcript segments of one unit (idf), or of the whole
    course without ``unit_id``: a word on every slide of the unit ("Knoten" in a unit on search trees) says
    less about which of its slides answers than a rare one ("löschen"), however rare it is in other units."""
    key = (id(material), unit_id)
    cached = _RARITY.get(key)
    if cached is not None and cached[0] is material:
        return cached[1]
    units = [material.unit(unit_id)] if unit_id is not None else list(material.units.values())
    texts = [c.text for um in units for c in um.chunks] + [s.text for um in units for s in um.segments]
    df: Counter[str] = Counter()
    for text in texts:
        df.update(terms(text))
    n = len(texts) or 1
    rarity = {t: math.log(1 + n / (c + 0.5)) for t, c in df.items()}
    _RARITY[key] = (material, rarity)
    return rarity


_PAGE_NUMBER = re.compile(r"^\d{1,4}\s{2,}|\s{2,}\d{1,4}$")


def _line_key(line: str) -> str:
    """A line as it repeats from page to page: without the page number a footer prints beside it ("5      Lecture
    11 — Retrieval augmented generation      TrustHLT — Prof. Dr. Ivan Habernal")."""
    return " ".join(_PAGE_NUMBER.sub("", line.strip()).split())


def without_repeated_lines(text: str, repeated: frozenset[str], title: str | None = None) -> str:
    """``text`` without the lines of ``repeated`` (``repeated_lines``). The first line stays where it is the page's
    ``title`` (or no title is known), though the deck's sidebar lists it too; so does a line that goes on with the
    sentence of a line kept before it ("The chain rule based formulation of sequence" / "probabilities")."""
    if not repeated:
        return text
    kept: list[str] = []
    last_kept = False
    for i, ln in enumerate(text.splitlines()):
        goes_on = last_kept and bool(kept) and ln.strip()[:1].islower() and not re.search(r"[.!?:;]$", kept[-1].strip())
        is_title = i == 0 and (title is None or " ".join(ln.split()).startswith(" ".join(title.split())))
        last_kept = is_title or _line_key(ln) not in repeated or goes_on
        if last_kept:
            kept.append(ln)
    return "\n".join(kept)


@dataclass
class ToolState:
    """What the writer's tool calls gathered in one turn (lives in that turn only)."""

    material: CourseMaterial
    retrieved: list[LectureSource] = field(default_factory=list)
    faqs: list[FaqSource] = field(default_factory=list)
    switched_to: int | None = None
    # inline citing: every source a tool returns gets its handle, given to the writer as ``cite``
    registry: CitationRegistry | None = None

    def handle(self, source: LectureSource | FaqSource) -> str | None:
        """The handle of ``source`` (``[cite:3]``) when the turn cites inline, else None."""
        return None if self.registry is None else f"[cite:{self.registry.register(source)}]"

    def _cite(self, item: dict[str, Any], source: LectureSource | FaqSource) -> dict[str, Any]:
        handle = self.handle(source)
        return item if handle is None else {"cite": handle, **item}

    def lecture_retrieval(self, query: str, k: int = 5, unit_id: int | None = None,
                          context: str = "") -> list[LectureSource]:
        """Search slides and transcripts for ``query``; ``context`` (the recent turns) adds its terms with
        less weight, so that a follow-up ("and the second case?") still finds its slide."""
        hits = self.material.lecture_index.search(query, k=k, unit_id=unit_id, context=context)
        self.retrieved.extend(hits)
        return hits

    def faq_retrieval(self, query: str, k: int = 3, context: str = "") -> list[FaqSource]:
        hits = self.material.faq_index.search(query, k=k, context=context)
        self.faqs.extend(hits)
        return hits

    def run(self, name: str, args: dict[str, Any]) -> str:
        """Execute one tool call; the result is the JSON text given back to the model."""
        if name == "lecture_retrieval":
            hits = self.lecture_retrieval(str(args.get("query", "")))
            return json.dumps([self._cite(passage(self.material, h), h) for h in hits], ensure_ascii=False)
        if name == "faq_retrieval":
            return json.dumps([self._cite({"question": f.question, "answer": f.answer}, f)
                               for f in self.faq_retrieval(str(args.get("query", "")))], ensure_ascii=False)
        if name == "switch_context":
            try:
                unit_id = int(args.get("unit_id", -1))
                um = self.material.unit(unit_id)
            except (UnknownUnitError, TypeError, ValueError) as exc:
                return json.dumps({"ok": False, "error": str(exc)})
            self.switched_to = unit_id
            return json.dumps({"ok": True, "unit": um.unit.name}, ensure_ascii=False)
        return json.dumps({"ok": False, "error": f"unknown tool {name}"})
