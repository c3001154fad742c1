"""What the app pages use, without Streamlit: configuration, courses, pipelines, the LMS store.

Nothing here is per session; everything per session lives in Streamlit's session state.
"""

from __future__ import annotations

import datetime as dt
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citation_core.chat.chat_pipeline import ChatPipeline, ChatResult
from citation_core.contract import parse
from citation_core.errors import InputError
from citation_core.limits import too_long
from citation_core.llm.config import CHAT_PIPELINE, CITATION_PIPELINE, KeywordStrategy, LlmConfig
from citation_core.lms.resolve import faq_table, unit_table
from citation_core.lms.store import Conversation, LmsStore, Message
from citation_core.lms.versions import stamp_versions
from citation_core.material.library import CourseMaterial, as_datetime
from citation_core.material.models import MaterialVersions
from citation_core.pipeline.languages import LANGUAGES

from .settings import Settings
from .view_state import Catalog, CourseInfo, Place, UnitInfo


def course_roots(settings: Settings) -> list[Path]:
    roots = list(settings.course_dirs)
    library = settings.library_dir
    if (library / "course.yml").is_file():
        roots.append(library)
    return [r for r in roots if (r / "course.yml").is_file()]


def manifest_stamp(root: Path) -> float:
    """Changes whenever the course manifest is rewritten (e.g. after an upload)."""
    return (root / "course.yml").stat().st_mtime_ns / 1e9


def material_now(load: Callable[[str], CourseMaterial], now: dt.datetime | None = None) -> CourseMaterial:
    """The course as students see it at ``now``: ``load(epoch)`` loads it for a release epoch (a cache key).

    A cached course would keep a unit withheld after its release date passed; the epoch names the last
    release date already passed, so the first request after a release loads the course again (at most
    twice per request: the second load releases everything due by now).
    """
    now = now or dt.datetime.now()
    epoch = ""
    while True:
        material = load(epoch)
        due = material.next_release
        if due is None or as_datetime(due) > now:
            return material
        epoch = as_datetime(due).isoformat()


def role_models(config: LlmConfig, variant: str) -> dict[str, tuple[str, bool]]:
    """Which model serves each role for ``variant`` (its name as people read it), and whether it is the offline
    model."""
    out = {}
    for label, pipeline, role in (
        ("answer writer", CHAT_PIPELINE, "chat"),
        ("citation placement", CITATION_PIPELINE, "chat"),
        ("keywords and summaries", CITATION_PIPELINE, "keyword_summary"),
    ):
        m = config.resolve(pipeline, variant, role)
        offline = m.type == "offline"
        out[label] = (m.model if offline or m.id == m.model else f"{m.id} ({m.model})", offline)
    return out


def chip_context(material: CourseMaterial) -> dict[str, Any]:
    return {"units": unit_table(material), "faqs": faq_table(material)}


def versions_lookup(material: CourseMaterial) -> Any:
    def lookup(entity_id: str) -> MaterialVersions | None:
        if entity_id.isdigit() and int(entity_id) in material.units:
            return material.units[int(entity_id)].unit.versions
        return None

    return lookup


@dataclass(frozen=True)
class SavedAnswer:
    """A stored turn: its conversation, the answer as stored (what the page shows of it) and which parts of
    the turn held text no store can keep and were cleaned (``Turn.cleaned``)."""

    conversation_id: int
    answer: str
    cleaned: tuple[str, ...] = ()


def store_answer(store: LmsStore, material: CourseMaterial, session_id: str, conversation_id: int | None,
                 unit_id: int, result: ChatResult, meta: dict[str, Any],
                 extra_answer_meta: dict[str, Any] | None = None) -> SavedAnswer:
    """Persist a turn in one transaction: a new conversation when ``conversation_id`` is None, the question,
    then the answer in stored form (versions stamped, text no store can keep cleaned).

    An answer the chips could not render (``limits.too_long``) is not stored: ``InputError``; one cut at
    ``MAX_ANSWER_CHARS`` is stored with its citations.
    ``extra_answer_meta`` (e.g. what the answer's trace view needs) is stored with the answer as well.
    """
    stored = stamp_versions(result.answer, versions_lookup(material))
    why = too_long(stored)
    if why is not None:  # the chips could not render it
        raise InputError(f"answer: {why}: not stored")
    turn = store.save_turn(session_id, conversation_id, result.question, stored, course_id=material.course.id,
                           unit_id=unit_id, title=result.question.strip()[:80], question_meta=meta, answer_meta={
                               **(extra_answer_meta or {}),
                               "citations": len(parse(stored, "stored")),
                               "failures": [f.to_json() for f in result.failures],
                               "context_switched": result.context_switched,
                               "usage": result.usage(),
                           })
    return SavedAnswer(turn.conversation_id, turn.answer, turn.cleaned)


def writer_cuts(meta: dict[str, Any]) -> list[str]:
    """What cut a stored answer short (a stream that stopped early, the length limit), from its failures."""
    failures = meta.get("failures")
    return [str(f.get("message", "")) for f in failures if isinstance(f, dict) and f.get("kind") == "writer"] \
        if isinstance(failures, list) else []


def answer_views(result: ChatResult) -> dict[str, Any]:
    """What the Trace view of an answer needs, stored with the answer so a reopened conversation has it."""
    return {"traces": {name: trace.to_json() for name, trace in result.traces.items()},
            "models": dict(result.models), "context_switched": result.context_switched,
            "switched_to": result.switched_to,
            # per marker, in order: the chips quote the evidence, the viewer lights it up, the audit table lists it
            "audits": [{**a.to_json(), "index": a.index} for a in result.audits]}


def catalog_of(courses: dict[str, CourseMaterial], preview: bool = False) -> Catalog:
    """The courses and units that can be opened, for the view state (studio/view_state.py): released units,
    or with ``preview`` (an instructor) every unit; hidden pages are listed so that they are never opened."""
    return Catalog(tuple(
        CourseInfo(m.course.id, m.course.name, tuple(
            UnitInfo(um.unit.id, um.unit.name, len(um.deck.pages) if um.deck is not None else 0,
                     um.unit.video is not None, frozenset(um.unit.hidden_pages),
                     um.transcript.cues[-1].end if um.transcript is not None and um.transcript.cues else None,
                     um.transcript is not None)
            for um in m.visible_units(preview)),
            withheld=tuple((uid, f"left out: {why}") for uid, why in m.broken.items()) + (
                () if preview else tuple((uid, um.withheld or "not released") for uid, um in m.withheld.items())))
        for m in courses.values()))


def conversation_place(store: LmsStore, conversation: Conversation) -> Place:
    """Where a conversation was asked: its course, and the unit, page or second and answer language of its
    last question."""
    unit_id, page, second, language = conversation.unit_id, None, None, None
    for message in reversed(store.messages(conversation.id)):
        if message.role != "user":
            continue
        meta = message.meta
        if isinstance(meta.get("unit"), int):
            unit_id = meta["unit"]
        if isinstance(meta.get("page"), int):
            page = meta["page"]
        elif isinstance(meta.get("second"), (int, float)):
            second = float(meta["second"])
        if isinstance(meta.get("language"), str) and meta["language"] in LANGUAGES:
            language = meta["language"]
        break
    return Place(conversation.course_id, unit_id, page, second, language)


def latest_conversation(store: LmsStore, history: str, course_id: int, unit_id: int) -> tuple[int, Place] | None:
    """The newest conversation of ``history`` that was started in this unit of this course, and where it was
    asked; None when the unit has none."""
    conv = next((c for c in store.conversations(history) if (c.course_id, c.unit_id) == (course_id, unit_id)), None)
    return (conv.id, conversation_place(store, conv)) if conv is not None else None


# A history key: 24 random bytes (192 bits) in URL-safe base64, as ``secrets.token_urlsafe(24)`` writes them.
HISTORY_KEY_RE = re.compile(r"[A-Za-z0-9_-]{32}")


def history_key(given: str | None) -> str:
    """The history key from the URL when it has the form of a generated key, else a new random one.

    The key is a bearer secret: whoever has it sees that history.
    """
    if given is not None and HISTORY_KEY_RE.fullmatch(given):
        return given
    return secrets.token_urlsafe(24)


def turns_so_far(messages: Sequence[Message]) -> list[tuple[str, str]]:
    """The conversation so far as (question, answer) pairs, oldest first, for a follow-up question."""
    turns: list[tuple[str, str]] = []
    question: str | None = None
    for m in messages:
        if m.role == "user":
            question = m.content
        elif question is not None:
            turns.append((question, m.content))
            question = None
    return turns


def chat_pipeline(config: LlmConfig, material: CourseMaterial,
                  keyword_strategy: KeywordStrategy | None = None) -> ChatPipeline:
    return ChatPipeline(config, material, keyword_strategy=keyword_strategy)
