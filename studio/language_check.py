"""Language QA: which language each keyword and summary came out in (lingua), and mismatches."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

from lingua import IsoCode639_1, Language, LanguageDetector, LanguageDetectorBuilder

from citation_core.pipeline.citation_pipeline import Citation
from citation_core.pipeline.languages import LANGUAGES

Verdict = Literal["ok", "mismatch", "uncertain", "empty"]
MIN_CONFIDENCE = 0.5


@cache
def detector() -> LanguageDetector:
    """One detector over the supported languages (built once; read-only afterwards)."""
    langs = [Language.from_iso_code_639_1(getattr(IsoCode639_1, code.upper())) for code in LANGUAGES]
    return LanguageDetectorBuilder.from_languages(*langs).build()


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


def judge(text: str, expected: str) -> tuple[Detection, Verdict]:
    d = detect(text)
    if d.code is None:
        return d, "empty"
    if d.code == expected:
        return d, "ok" if d.confidence >= MIN_CONFIDENCE or len(text.split()) >= 3 else "uncertain"
    # a one- or two-word keyword is often a technical term shared by many languages
    return d, "mismatch" if d.confidence >= MIN_CONFIDENCE else "uncertain"


def check_citations(citations: Sequence[Citation], expected: str) -> list[FieldCheck]:
    rows: list[FieldCheck] = []
    for c in citations:
        for name, text in (("keyword", c.keyword), ("summary", c.summary)):
            d, verdict = judge(text, expected)
            rows.append(FieldCheck(c.seq, name, text, d.code, round(d.confidence, 2), verdict))  # type: ignore[arg-type]
    return rows
