"""Untrusted text (slide titles, unit names, transcripts, questions, error messages) for Streamlit's Markdown."""

from __future__ import annotations

import re

_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")
# Where Streamlit's renderer would link a bare address: "http://", "https://" and "www." at the start of a word,
# and the "@" of an e-mail address. Its GitHub autolinks are found in the text after escapes are read, so
# escaping cannot stop them; the first letters (or the "@") in a span of their own do, as the renderer looks
# for an address within one run of text.
_LINK_START = re.compile(r"(?<![^\W_])(?:https?(?=://)|www(?=\.))|(?<=[\w.+-])@(?=[\w-]+\.[\w-])", re.I)
_OWN_SPAN = ":color[{}]{{}}"  # Streamlit's colour directive without a colour: a plain <span>, nothing shown


def md_escape(text: object) -> str:
    """Backslash-escape every Markdown-active character so the text shows literally (no links, images,
    emphasis, HTML or directives such as ``:red[...]``). A bare web or e-mail address stays text too: the start
    of each goes into a span of its own, which the reader neither sees nor copies."""
    raw = str(text)
    out: list[str] = []
    pos = 0
    for m in _LINK_START.finditer(raw):
        out += [_SPECIAL.sub(r"\\\1", raw[pos:m.start()]), _OWN_SPAN.format(m.group())]
        pos = m.end()
    out.append(_SPECIAL.sub(r"\\\1", raw[pos:]))
    return "".join(out)


def internal_error(exc: BaseException, what: str) -> str:
    """One line for an error the library does not expect (a bug): what failed, the error's kind and the start
    of its message, and where the rest is."""
    detail = " ".join(str(exc).split())
    detail = f": {detail[:160]}{'…' if len(detail) > 160 else ''}" if detail else ""
    return f"{what}: internal error ({type(exc).__name__}{detail}). The details are in the app's log."


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``1 conversation``, ``2 conversations``, ``0 mismatches``: the count with the right form."""
    word = singular if count == 1 else (plural_form or (singular + ("es" if singular.endswith(("s", "x", "ch", "sh"))
                                                                      else "s")))
    return f"{count:,} {word}"


def short_title(text: str, limit: int = 40) -> str:
    """``text`` cut to at most ``limit`` characters at a word boundary, with "…" when it was cut.

    A single word longer than the limit is cut inside it (nothing else fits); punctuation and spaces left
    at the cut go.
    """
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    if text[limit - 1] != " " and " " in head:
        head = head[: head.rfind(" ")]
    return head.rstrip(" ,;:–—-·/") + "…"
