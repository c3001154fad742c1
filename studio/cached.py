"""Process-wide caches for the app (read-only objects shared by all sessions)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from citation_core.llm.config import LlmConfig, default_config
from citation_core.lms.store import LmsStore
from citation_core.material.deck import render_page_png
from citation_core.material.library import CourseMaterial, load_material

from .services import course_roots, manifest_stamp, material_now
from .settings import Settings, load_settings


@st.cache_resource(show_spinner=False)
def config() -> LlmConfig:
    return default_config()


@st.cache_resource(show_spinner=False)
def settings() -> Settings:
    return load_settings()


@st.cache_resource(show_spinner="Loading lecture material…")
def _material(root: str, stamp: float, release_epoch: str) -> CourseMaterial:
    return load_material(Path(root))


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
    return LmsStore(settings().database)


@st.cache_data(show_spinner=False, max_entries=512)
def page_png(path: str, stamp: float, page: int, width: int) -> bytes:
    return render_page_png(Path(path), page, width=width)


def deck_png(path: Path, page: int, width: int = 960) -> bytes:
    return page_png(str(path), path.stat().st_mtime_ns / 1e9, page, width)
