"""The writer's tools: lecture_retrieval, faq_retrieval, switch_context (OpenAI function schemas)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..errors import UnknownUnitError
from ..material.library import CourseMaterial
from ..sources import FaqSource, LectureSource, PageChunk
from ..textutil import clock

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
    """A retrieved source as the writer sees it: printed slide number or title, never the deck index."""
    um = material.unit(int(src.lecture_unit_id))
    if isinstance(src, PageChunk):
        page = um.deck.page(src.page_number) if um.deck else None
        return {"kind": "slide", "unit": um.unit.name, "where": um.page_label(src.page_number),
                "printed": page.display_page_number if page else None, "title": page.title if page else "",
                "text": src.text}
    return {"kind": "video", "unit": um.unit.name, "where": f"video at {clock(src.start)}", "start": src.start,
            "text": src.text}


@dataclass
class ToolState:
    """What the writer's tool calls gathered in one turn (lives in that turn only)."""

    material: CourseMaterial
    retrieved: list[LectureSource] = field(default_factory=list)
    faqs: list[FaqSource] = field(default_factory=list)
    switched_to: int | None = None

    def lecture_retrieval(self, query: str, k: int = 5, unit_id: int | None = None) -> list[LectureSource]:
        hits = self.material.lecture_index.search(query, k=k, unit_id=unit_id)
        self.retrieved.extend(hits)
        return hits

    def faq_retrieval(self, query: str, k: int = 3) -> list[FaqSource]:
        hits = self.material.faq_index.search(query, k=k)
        self.faqs.extend(hits)
        return hits

    def run(self, name: str, args: dict[str, Any]) -> str:
        """Execute one tool call; the result is the JSON text given back to the model."""
        if name == "lecture_retrieval":
            hits = self.lecture_retrieval(str(args.get("query", "")))
            return json.dumps([passage(self.material, h) for h in hits], ensure_ascii=False)
        if name == "faq_retrieval":
            return json.dumps([{"question": f.question, "answer": f.answer}
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
