"""How long an answer may be, in one place for every part of the product that takes or shows one."""

from __future__ import annotations

__all__ = ["MAX_ANSWER_CHARS", "MAX_CITED_CHARS", "too_long"]

# The longest answer written, cited and rendered (characters): the writer's text and a pasted answer are
# cut there; rendering about 2.5 s and 130 MB for its most expensive shapes (tables, runs of "[" or "!["),
# measured by bench/hostile_render.py.
MAX_ANSWER_CHARS = 200_000
# ... and with its citation markers: an answer cut at MAX_ANSWER_CHARS is still cited, stored and shown
MAX_CITED_CHARS = 2 * MAX_ANSWER_CHARS


def too_long(text: str) -> str | None:
    """Why an answer (its markers included) is too long to render or store, as the end of a message; None when
    it is not: its text without markers is longer than ``MAX_ANSWER_CHARS``, or the whole, markers included,
    longer than ``MAX_CITED_CHARS``."""
    from .contract import strip_markers

    if len(text) <= MAX_ANSWER_CHARS:
        return None
    if len(text) > MAX_CITED_CHARS:
        return (f"{len(text):,} characters with its citations, more than the limit of {MAX_CITED_CHARS:,} "
                "characters (MAX_CITED_CHARS)")
    plain = len(strip_markers(text))
    if plain > MAX_ANSWER_CHARS:
        return f"{plain:,} characters, more than the limit of {MAX_ANSWER_CHARS:,} characters (MAX_ANSWER_CHARS)"
    return None
