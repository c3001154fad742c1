"""What the chips show of a citation's evidence: the quote under the summary and the support verdict.

The stored answer keeps one audit per marker (sentence, evidence, verdict) beside it; the chip
renderer finds a marker's audit by the marker as written, in the order of the answer (the same
source cited behind two sentences has two audits, each with its own evidence).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..contract import parse

QUOTE_CHARS = 200


_BULLET = re.compile(r"^\s*(?:[•▪▸►‣◦∙·*–—-]|\d{1,2}[.)])\s+")


def elide(text: str, limit: int = QUOTE_CHARS) -> str:
    """``text`` on one line without its bullets, at most ``limit`` characters: cut at a word boundary, ended
    with "…"."""
    flat = " ".join(" ".join(_BULLET.sub("", line).split()) for line in text.splitlines() if line.strip())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:  # a word boundary not too far back; else cut inside an overlong word
        cut = cut[:space]
    return cut.rstrip(" ,;:–-") + "…"


def chip_evidence(stored_answer: str, audits: Sequence[Mapping[str, Any]] | None) -> dict[str, list[dict[str, Any]]]:
    """For each marker as written in ``stored_answer``: its audits in answer order, as the chips show them.

    ``audits`` are the stored per-marker audits (``index`` = position among the answer's markers);
    entries for markers that are not there any more are left out.
    """
    markers = parse(stored_answer, "stored")
    raws = [stored_answer[m.span[0]:m.span[1]] for m in markers]
    by_index: dict[int, Mapping[str, Any]] = {}
    for stored in audits or ():
        index = stored.get("index")
        if isinstance(index, int) and 0 <= index < len(raws):
            by_index[index] = stored
    out: dict[str, list[dict[str, Any]]] = {}
    for index, raw in enumerate(raws):
        a: Mapping[str, Any] | None = by_index.get(index)
        evidence = a.get("evidence") if a is not None else None
        quote = evidence.get("text") if isinstance(evidence, Mapping) else None
        entry: dict[str, Any] = {"quote": elide(quote) if isinstance(quote, str) and quote.strip() else "",
                                 "full": quote if isinstance(quote, str) else "",
                                 "verdict": a.get("verdict") if a is not None else None,
                                 "reason": a.get("reason") if a is not None else None}
        out.setdefault(raw, []).append(entry)
    return out
