"""What the app pages use, without Streamlit: configuration, courses, pipelines, the LMS store.

Nothing here is per session; everything per session lives in Streamlit's session state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from citation_core.chat.chat_pipeline import ChatPipeline, ChatResult
from citation_core.contract import parse
from citation_core.llm.config import CHAT_PIPELINE, CITATION_PIPELINE, KeywordStrategy, LlmConfig
from citation_core.lms.resolve import faq_table, unit_table
from citation_core.lms.store import LmsStore
from citation_core.lms.versions import stamp_versions
from citation_core.material.library import CourseMaterial
from citation_core.material.models import MaterialVersions

from .settings import Settings


def course_roots(settings: Settings) -> list[Path]:
    roots = list(settings.course_dirs)
    library = settings.library_dir
    if (library / "course.yml").is_file():
        roots.append(library)
    return [r for r in roots if (r / "course.yml").is_file()]


def manifest_stamp(root: Path) -> float:
    """Changes whenever the course manifest is rewritten (e.g. after an upload)."""
    return (root / "course.yml").stat().st_mtime_ns / 1e9


def role_models(config: LlmConfig, variant: str) -> dict[str, tuple[str, bool]]:
    """Which model serves each role for ``variant``, and whether it is the offline model."""
    out = {}
    for label, pipeline, role in (
        ("answer writer", CHAT_PIPELINE, "chat"),
        ("citation placement", CITATION_PIPELINE, "chat"),
        ("keywords and summaries", CITATION_PIPELINE, "keyword_summary"),
    ):
        m = config.resolve(pipeline, variant, role)
        out[label] = (f"{m.id} · {m.model}", m.type == "offline")
    return out


def chip_context(material: CourseMaterial) -> dict[str, Any]:
    return {"units": unit_table(material), "faqs": faq_table(material)}


def versions_lookup(material: CourseMaterial) -> Any:
    def lookup(entity_id: str) -> MaterialVersions | None:
        if entity_id.isdigit() and int(entity_id) in material.units:
            return material.units[int(entity_id)].unit.versions
        return None

    return lookup


def store_answer(store: LmsStore, material: CourseMaterial, conversation_id: int, result: ChatResult,
                 meta: dict[str, Any]) -> str:
    """Persist a turn: the question, then the answer in stored form (versions stamped). Returns that form."""
    stored = stamp_versions(result.answer, versions_lookup(material))
    store.add_message(conversation_id, "user", result.question, meta)
    store.add_message(conversation_id, "assistant", stored, {
        "citations": len(parse(stored, "stored")),
        "failures": [f.to_json() for f in result.failures],
        "context_switched": result.context_switched,
        "usage": result.usage(),
    })
    return stored


def chat_pipeline(config: LlmConfig, material: CourseMaterial,
                  keyword_strategy: KeywordStrategy | None = None) -> ChatPipeline:
    return ChatPipeline(config, material, keyword_strategy=keyword_strategy)
