"""Language QA: which language each keyword and summary came out in (lingua), and mismatches.

lingua's detector takes a few seconds and about 250 MiB to build, so nothing here imports lingua until
the first detection: the app starts, and its other pages run, without it. ``detector_loaded`` tells a
page whether the next detection has to build it first (and should say so).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Literal

from citation_core.pipeline.citation_pipeline import Citation
from citation_core.pipeline.languages import LANGUAGES

if TYPE_CHECKING:
    from lingua import LanguageDetector

Verdict = Literal["ok", "mismatch", "uncertain", "empty"]
MIN_CONFIDENCE = 0.5

_BUILDING = threading.Lock()  # two sessions detecting at once build one detector, not two


@cache
def _build() -> LanguageDetector:
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    langs = [Language.from_iso_code_639_1(getattr(IsoCode639_1, code.upper())) for code in LANGUAGES]
    return LanguageDetectorBuilder.from_languages(*langs).build()


def detector() -> LanguageDetector:
    """One detector over the supported languages (built on first use; read-only afterwards)."""
    with _BUILDING:
        return _build()


def detector_loaded() -> bool:
    """Whether the detector is built, i.e. the next detection does not have to wait for it."""
    return _build.cache_info().currsize > 0


@dataclass(frozen=True)
class Detection:
    code: str | None
    confidence: float


def detect(text: str) -> Detection:
    if not text.strip():
        return Detection(None, 0.0)
    values = detector().compute_language_confidence_values(text)
    if not values:
        return Detection(None, 0.0)
    top = values[0]
    return Detection(top.language.iso_code_639_1.name.lower(), float(top.value))


@dataclass(frozen=True)
class FieldCheck:
    seq: int
    field: Literal["keyword", "summary"]
    text: str
    detected: str | None
    confidence: float
    verdict: Verdict


MIN_WORDS = 4  # a text of this many words is judged even when lingua is unsure of it


def words(text: str) -> int:
    """How many words ``text`` has (runs of two or more letters; "O(n)" and "x.key" count as one each)."""
    return len(re.findall(r"[^\W\d_]{2,}", text))


def judge(text: str, expected: str) -> tuple[Detection, Verdict]:
    """The detected language of ``text`` and its verdict in the column of ``expected``.

    Whether a text can be judged depends on the text alone, never on the column: an empty text is "empty",
    and one of fewer than four words that lingua is unsure of (confidence under 0.5: a technical term such
    as "Merge Sort" reads as several languages) is "uncertain" (too short to judge) in every column. Any
    other text is "ok" where its detected language is the column's and a "mismatch" wherever it is not.
    """
    d = detect(text)
    if d.code is None:
        return d, "empty"
    if d.confidence < MIN_CONFIDENCE and words(text) < MIN_WORDS:
        return d, "uncertain"
    return d, "ok" if d.code == expected else "mismatch"


def check_citations(citations: Sequence[Citation], expected: str) -> list[FieldCheck]:
    rows: list[FieldCheck] = []
    for c in citations:
        for name, text in (("keyword", c.keyword), ("summary", c.summary)):
            d, verdict = judge(text, expected)
            rows.append(FieldCheck(c.seq, name, text, d.code, round(d.confidence, 2), verdict))  # type: ignore[arg-type]
    return rows
