"""Markdown to HTML for the LMS client, with citation marker candidates kept for the chip renderer.

``render_markdown`` renders CommonMark (plus tables and strikethrough) with raw HTML disabled, so
every character of model, slide or user text reaches the page escaped. An inline rule, run before
the link rule, turns every marker *candidate* ``[cite:`` … ``]`` outside code spans and code blocks
into ``<span class="cite-raw" data-cite="…">…</span>``; the candidate pattern is deliberately loose
so that broken markers reach the client too, where the Artemis client parser decides whether they
become a chip or stay raw text (DESIGN 6). Inside code the markers stay plain code text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

__all__ = ["CANDIDATE_RE", "cite_plugin", "render_markdown"]

# A marker candidate: the client parser (citation_parser.js) decides what it really is.
CANDIDATE_RE = re.compile(r"\[cite:[^\[\]\n]*\]")

_BAD_SCHEME_RE = re.compile(r"^\s*(javascript|vbscript|file|data):", re.IGNORECASE)


def _cite_candidate(state: StateInline, silent: bool) -> bool:
    pos = state.pos
    if not state.src.startswith("[cite:", pos):
        return False
    m = CANDIDATE_RE.match(state.src, pos, state.posMax)
    if m is None:
        return False
    if not silent:
        token = state.push("cite_raw", "span", 0)
        token.content = m.group(0)
    state.pos = m.end()
    return True


def _render_cite_raw(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    raw = escapeHtml(tokens[idx].content)
    return f'<span class="cite-raw" data-cite="{raw}">{raw}</span>'


def _validate_link(url: str) -> bool:
    """Stricter than markdown-it's default: no javascript:, vbscript:, file: and no data: at all."""
    return _BAD_SCHEME_RE.match(url) is None


def cite_plugin(md: MarkdownIt) -> None:
    """markdown-it-py plugin: marker candidates become ``cite-raw`` spans (outside code), before links."""
    md.inline.ruler.before("link", "cite_raw", _cite_candidate)
    md.add_render_rule("cite_raw", _render_cite_raw)


def _build() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"]).use(cite_plugin)
    md.validateLink = _validate_link  # type: ignore[method-assign]
    return md


_MD = _build()


def render_markdown(text: str) -> str:
    """Render ``text`` (an answer with final or stored markers) to escaped HTML with cite-raw spans."""
    env: dict[str, Any] = {}
    return str(_MD.render(text, env))
