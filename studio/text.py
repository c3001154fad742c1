"""Untrusted text (slide titles, unit names, transcripts, questions, error messages) for Streamlit's Markdown."""

from __future__ import annotations

import re

_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def md_escape(text: object) -> str:
    """Backslash-escape every Markdown-active character so the text shows literally (no links, images,
    emphasis, HTML or directives such as ``:red[...]``)."""
    return _SPECIAL.sub(r"\\\1", str(text))


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``1 conversation``, ``2 conversations``, ``0 mismatches``: the count with the right form."""
    word = singular if count == 1 else (plural_form or (singular + ("es" if singular.endswith(("s", "x", "ch", "sh"))
                                                                      else "s")))
    return f"{count:,} {word}"
