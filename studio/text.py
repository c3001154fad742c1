"""Untrusted text (slide titles, unit names, transcripts, questions, error messages) for Streamlit's Markdown."""

from __future__ import annotations

import re

_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def md_escape(text: object) -> str:
    """Backslash-escape every Markdown-active character so the text shows literally (no links, images,
    emphasis, HTML or directives such as ``:red[...]``)."""
    return _SPECIAL.sub(r"\\\1", str(text))
