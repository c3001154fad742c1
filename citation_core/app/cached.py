"""Process-wide caches for the app (read-only objects shared by all sessions)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ..llm.config import AppConfig, default_config
from ..lms.store import LmsStore
from ..material.deck import render_page_png
from ..material.library import CourseMaterial, load_material
from .services import course_roots, manifest_stamp


@st.cache_resource(show_spinner=False)
def config() -> AppConfig:
    return default_config()


@st.cache_resource(show_spinner="Loading lecture material…")
def _material(root: str, stamp: float) -> CourseMaterial:
    return load_material(Path(root))


def material(root: Path) -> CourseMaterial:
    """The course at ``root``; reloaded when its manifest changes (an upload bumps it)."""
    return _material(str(root), manifest_stamp(root))


def courses() -> dict[str, CourseMaterial]:
    out: dict[str, CourseMaterial] = {}
    for root in course_roots(config()):
        m = material(root)
        out[f"{m.course.name} (id {m.course.id})"] = m
    return out


@st.cache_resource(show_spinner=False)
def store() -> LmsStore:
    return LmsStore(config().path(config().database))


@st.cache_data(show_spinner=False, max_entries=512)
def page_png(path: str, stamp: float, page: int, width: int) -> bytes:
    return render_page_png(Path(path), page, width=width)


def deck_png(path: Path, page: int, width: int = 960) -> bytes:
    return page_png(str(path), path.stat().st_mtime_ns / 1e9, page, width)
