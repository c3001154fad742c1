"""A slide's statement as an answer quotes it: whole sentences, and an ellipsis wherever the quote is cut.

A statement up to ``MAX_QUOTE`` characters is quoted whole. A longer one is quoted by its sentences (pysbd,
``text.sentences``): the one that says most about the question and those around it that fit; a sentence that
alone is too long is cut after a clause (a comma, semicolon or colon). Whatever is left out is marked with "…",
and so is a statement that stops inside its sentence on the slide itself ("Language model evaluation can be").
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..text import sentences
from ..text.slides import ends_inside_sentence

MAX_QUOTE = 300  # characters of one quoted statement (on the real decks, 99 % of statements are shorter)
ELLIPSIS = "…"
_CLAUSE_END = re.compile(r"[,;:](?=\s)")


def excerpt(text: str, lang: str, weight: Callable[[str], float] | None = None, goes_on: bool = False) -> str:
    """``text`` as the answer quotes it. ``weight`` scores a sentence by what it says about the question (the
    first sentence of a long statement is quoted where nothing tells them apart). ``goes_on``: the answer quotes
    what the statement leads into right after it (its code), so its open end is no cut."""
    text = " ".join(text.split())
    if len(text) <= MAX_QUOTE:
        return text if goes_on else _mark_open_end(text)
    parts = [s.text for s in sentences(text, lang)] or [text]
    scores = [weight(p) if weight is not None else 0.0 for p in parts]
    best = max(range(len(parts)), key=lambda i: (scores[i], -i))
    first = last = best
    size = len(parts[best])
    while True:  # the sentences after the best one first (they go on with it), then those before it
        if last + 1 < len(parts) and size + 1 + len(parts[last + 1]) <= MAX_QUOTE:
            last += 1
            size += 1 + len(parts[last])
        elif first > 0 and size + 1 + len(parts[first - 1]) <= MAX_QUOTE:
            first -= 1
            size += 1 + len(parts[first])
        else:
            break
    quoted = " ".join(parts[first : last + 1])
    cut = last + 1 < len(parts)
    if len(quoted) > MAX_QUOTE:
        quoted, cut = _clause_cut(quoted), True
    if first > 0:
        quoted = f"{ELLIPSIS} {quoted}"
    if cut:
        return f"{quoted} {ELLIPSIS}"
    return quoted if goes_on else _mark_open_end(quoted)


def _clause_cut(sentence: str) -> str:
    """``sentence`` cut after its last clause that ends within ``MAX_QUOTE`` characters (else after a word)."""
    ends = [m.end() for m in _CLAUSE_END.finditer(sentence, 0, MAX_QUOTE) if m.end() >= MAX_QUOTE // 3]
    if ends:
        return sentence[: ends[-1] - 1].rstrip()
    space = sentence.rfind(" ", 0, MAX_QUOTE)
    return sentence[: space if space > 0 else MAX_QUOTE].rstrip(" ,;:")


def _mark_open_end(text: str) -> str:
    """``text`` with an ellipsis where it stops inside its sentence."""
    return f"{text} {ELLIPSIS}" if ends_inside_sentence(text) and not text.endswith(ELLIPSIS) else text
