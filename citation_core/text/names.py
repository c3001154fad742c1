"""A name as people read it: the names of courses, lectures and units (from a manifest or an upload form) are
shown in pages, chips, tables and terminals, so nothing in them may steer a terminal, reorder a line or hide."""

from __future__ import annotations

import unicodedata

__all__ = ["clean_name"]


def clean_name(text: str) -> str:
    """``text`` with control characters (ESC, BEL, NUL, line breaks) as spaces, format characters (U+202E, U+200B,
    U+FEFF) and lone surrogates removed, and runs of white space made one space."""
    kept = []
    for ch in text:
        category = unicodedata.category(ch)
        if category == "Cc":
            kept.append(" ")
        elif category not in ("Cf", "Cs"):
            kept.append(ch)
    return " ".join("".join(kept).split())
