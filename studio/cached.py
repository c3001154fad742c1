"""Process-wide caches for the app (read-only objects shared by all sessions)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import streamlit as st

from citation_core.errors import InputError
from citation_core.llm.config import LlmConfig, default_config
from citation_core.lms.store import LmsStore, Message
from citation_core.material.deck import render_page_png
from citation_core.material.library import CourseMaterial, load_material

from .chips import chip_payload as _payload_of
from .services import chip_context, course_roots, manifest_stamp, material_now
from .settings import Settings, load_settings


@st.cache_resource(show_spinner=False)
def config() -> LlmConfig:
    cfg = default_config()
    if any(m.type == "openai_chat" for m in cfg.models.values()):
        # the SDK takes about half a second to import: at start, not on the first question
        import citation_core.llm.openai_chat  # noqa: F401
    return cfg


@st.cache_resource(show_spinner=False)
def settings() -> Settings:
    return load_settings()


@st.cache_resource(show_spinner="Loading lecture material…")
def _material(root: str, stamp: float, release_epoch: str) -> CourseMaterial:
    material = load_material(Path(root))
    # the embedding model and each unit's statements are read now, once per process, not on the first ask
    for unit_id in material.units:
        material.lecture_index.prepare(unit_id)
    return material


def material(root: Path) -> CourseMaterial:
    """The course at ``root``; reloaded when its manifest changes (an upload bumps it) and when a unit's
    release date has passed since it was loaded."""
    stamp = manifest_stamp(root)
    return material_now(lambda epoch: _material(str(root), stamp, epoch))


def courses() -> dict[str, CourseMaterial]:
    out: dict[str, CourseMaterial] = {}
    for root in course_roots(settings()):
        m = material(root)
        out[f"{m.course.name} (id {m.course.id})"] = m
    return out


@st.cache_resource(show_spinner=False)
def store() -> LmsStore:
    """The store of ``storage.database`` (or $CITATION_STUDIO_DB); raises ``StoreProblem`` (nothing is cached then)."""
    app = settings()
    return LmsStore(app.database, connect_timeout=app.connect_timeout)


@st.cache_data(show_spinner=False, max_entries=512)
def page_png(path: str, stamp: float, page: int, width: int) -> bytes:
    return render_page_png(Path(path), page, width=width)


def deck_png(path: Path, page: int, width: int = 960) -> bytes:
    return page_png(str(path), path.stat().st_mtime_ns / 1e9, page, width)


@st.cache_data(show_spinner=False, max_entries=256)
def _highlighted_png(path: str, stamp: float, page: int, width: int, evidence: str) -> tuple[bytes, int]:
    from citation_core.material.highlight import draw_bands, evidence_boxes

    boxes = evidence_boxes(Path(path), page, evidence)
    return draw_bands(page_png(path, stamp, page, width), boxes), len(boxes)


def highlighted_png(path: Path, page: int, evidence: str, width: int = 960) -> tuple[bytes, int]:
    """The page image with the evidence lines lit up, and how many lines were found on the page (0: none)."""
    return _highlighted_png(str(path), path.stat().st_mtime_ns / 1e9, page, width, evidence)


# A material is a frozen object loaded once (``material``): its chip tables are built once per object. The
# entry holds the material itself, so while it exists no other object can have that id.
@st.cache_resource(show_spinner=False, max_entries=16, hash_funcs={CourseMaterial: id})
def _chip_tables(material: CourseMaterial) -> tuple[CourseMaterial, dict[str, Any], str]:
    tables = chip_context(material)
    digest = hashlib.sha256(json.dumps(tables, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()
    return material, tables, digest


@st.cache_data(show_spinner=False, max_entries=4096)
def _chip_payload(answer: str, tables_digest: str, audits: str, _tables: Mapping[str, Any]) -> bytes:
    # keyed by the tables' content (``_tables`` itself is not hashed)
    return _payload_of(answer, _tables["units"], _tables["faqs"], json.loads(audits) or None)


def chip_payload(answer: str, material: CourseMaterial, audits: Sequence[Mapping[str, Any]] | None = None) -> bytes:
    """``studio.chips.chip_payload`` of an answer against ``material``, built once per answer and material.

    Raises ``InputError`` for an answer the renderer refuses (nothing is cached then).
    """
    _, tables, digest = _chip_tables(material)
    return _chip_payload(answer, digest, json.dumps(list(audits or ()), sort_keys=True, ensure_ascii=False), tables)


@st.cache_resource(show_spinner=False, max_entries=128)
def _messages(database: str, conversation_id: int, last_id: int | None) -> tuple[Message, ...]:
    return tuple(store().messages(conversation_id))


def messages(conversation_id: int) -> tuple[Message, ...]:
    """The conversation's messages, read (and their stored JSON parsed) once per new message, not per rerun;
    shared read-only between the sessions that open it."""
    db = store()
    return _messages(str(db.path), conversation_id, db.last_message_id(conversation_id))


@st.cache_resource(show_spinner=False, max_entries=128)
def _conversation_payloads(database: str, conversation_id: int, last_id: int, tables_digest: str,
                           _messages: Sequence[Message], _material: CourseMaterial) -> Mapping[int, bytes | InputError]:
    # keyed by scalars: a rerun looks the whole conversation up at once instead of hashing every answer's
    # text and audits (``last_id`` stands for ``_messages``, ``tables_digest`` for what the chips read of
    # ``_material``; neither object is hashed)
    out: dict[int, bytes | InputError] = {}
    for msg in _messages:
        if msg.role != "assistant":
            continue
        try:
            out[msg.id] = chip_payload(msg.content, _material, msg.meta.get("audits"))
        except InputError as exc:
            out[msg.id] = exc
    return out


def conversation_payloads(messages: Sequence[Message], material: CourseMaterial) -> Mapping[int, bytes | InputError]:
    """The chip payload of each stored answer in ``messages`` (one conversation, as ``messages`` reads it) against
    ``material``, by message id, or the ``InputError`` of an answer the renderer refuses; built once per new
    message and material, not per rerun."""
    if not messages:
        return {}
    _, _, digest = _chip_tables(material)
    return _conversation_payloads(str(store().path), messages[-1].conversation_id, messages[-1].id, digest,
                                  messages, material)
