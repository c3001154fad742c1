"""Markdown to HTML for the LMS client, with citation marker candidates kept for the chip renderer.

``render_markdown`` renders CommonMark (plus tables and strikethrough) with raw HTML disabled, so
every character of model, slide or user text reaches the page escaped. An inline rule, run before
the link rule, turns every marker *candidate* ``[cite:`` … ``]`` outside code spans and code blocks
into ``<span class="cite-raw" data-cite="…">…</span>``; the candidate pattern is deliberately loose
so that broken markers reach the client too, where the Artemis client parser decides whether they
become a chip or stay raw text (DESIGN 6). Inside code the markers stay plain code text.

Answers come from models and from pasted text, so nothing in them may make the page load anything:
an image ``![alt](url)`` renders as the text label ``<span class="md-image">🖼 alt</span>``, never as
an ``<img>`` (no request to its URL). Answers longer than ``MAX_ANSWER_CHARS`` are refused with an
``InputError``: below it, time and memory grow linearly with the length.
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

from ..errors import InputError
from ..limits import MAX_ANSWER_CHARS, too_long

__all__ = ["CANDIDATE_RE", "MAX_ANSWER_CHARS", "cite_plugin", "render_markdown"]

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


def _alt_text(tokens: Sequence[Token] | None) -> str:
    """An image's description as plain text (markup dropped, markers kept as written, one line)."""
    out: list[str] = []
    for token in tokens or []:
        if token.type in ("text", "code_inline", "cite_raw", "html_inline"):
            out.append(token.content)
        elif token.type == "image":
            out.append(_alt_text(token.children))
        elif token.type in ("softbreak", "hardbreak"):
            out.append(" ")
    return "".join(out)


def _render_image(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    """A text label instead of ``<img>``: an answer must not make the browser fetch anything."""
    alt = " ".join(_alt_text(tokens[idx].children).split())
    return f'<span class="md-image">🖼 {escapeHtml(alt or "image")}</span>'


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
    md.add_render_rule("image", _render_image)
    md.validateLink = _validate_link  # type: ignore[method-assign]
    return md


_MD = _build()


def render_markdown(text: str) -> str:
    """Render ``text`` (an answer with final or stored markers) to escaped HTML with cite-raw spans.

    Raises ``InputError`` when ``text`` is too long (``limits.too_long``: longer than ``MAX_ANSWER_CHARS``
    without its markers, or than ``MAX_CITED_CHARS`` with them).
    """
    why = too_long(text)
    if why is not None:
        raise InputError(f"answer: {why}")
    env: dict[str, Any] = {}
    return str(_MD.render(text, env))
