"""Statements: what a source says, one claim at a time, as semantic matching compares them.

A whole slide's vector blurs what it says (the mean of a title, five bullets and a figure label); its
statements keep each claim apart. A slide gives each bullet (with its sub-bullets), table row or line of
prose prefixed with the slide's title; a transcript or an FAQ answer gives its sentences (an FAQ's
question is one more statement, and prefixes its answer's sentences). Code lines are left out.
"""

from __future__ import annotations

import functools

from .sentences import sentences
from .slides import BOILERPLATE, slide_units

MAX_STATEMENTS = 40  # per source: a page of 40 bullets is read by its first 40


@functools.lru_cache(maxsize=4096)
def slide_statements(text: str) -> tuple[str, ...]:
    """The statements of a slide's text: "<title>: <bullet>" per bullet, row or line; the title alone when
    the slide has nothing else."""
    slide = slide_units(text)
    title = slide.title.strip()
    out = [f"{title}: {u.full()}" if title else u.full() for u in slide.units
           if u.kind != "code" and len(u.full().split()) >= 2 and not BOILERPLATE.search(u.full())]
    if not out and title:
        out = [title]
    return tuple(out[:MAX_STATEMENTS])


@functools.lru_cache(maxsize=4096)
def prose_statements(text: str, heading: str = "") -> tuple[str, ...]:
    """The sentences of spoken or written prose (``heading``, e.g. an FAQ's question, prefixes each)."""
    flat = " ".join(text.split())
    parts = [s.text for s in sentences(flat)] if flat else []
    out = [f"{heading} {p}" if heading else p for p in parts if p.strip()]
    if heading:
        out.insert(0, heading)
    return tuple(out[:MAX_STATEMENTS])


def statements(text: str) -> tuple[str, ...]:
    """The statements of a source's text of unknown kind: a slide's when it has several lines, else prose."""
    return slide_statements(text) if "\n" in text.strip() else prose_statements(text)
