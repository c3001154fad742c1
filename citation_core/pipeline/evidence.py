"""Evidence and support: which words of a cited source support an answer sentence, and how well.

For every (answer sentence, cited source) pair the best supporting passage is found in the source's
own text: one to three consecutive lines of a slide, one to three consecutive sentences of a
transcript segment, or one or two sentences of an FAQ answer. It is kept as offsets into that text
plus the quoted words (``Evidence``). The verdict (``Support``) says whether the passage supports
the sentence by two signals: the share of the sentence's content terms (stemmed, per language) found
in it, and how close in meaning the two are (``text.similarity``), so that a faithful paraphrase is
supported although it shares few words; a number the sentence states must stand in the source either
way. Without the embedding model the verdict is lexical alone. The same code runs for every model; the
marker contract is not touched.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..sources import FaqSource, PageChunk, Source
from ..text import Sentence, sentences, stems
from ..text.similarity import Matcher, semantic_model
from ..text.statements import statements

Verdict = Literal["supported", "partial", "unsupported"]
SUPPORTED = 0.5  # share of the sentence's terms the evidence holds
PARTIAL = 0.25
MEANS_SUPPORTED = 0.45  # closeness of sentence and evidence (Matcher F): says the same in other words
MEANS_PARTIAL = 0.35
EVIDENCE_MEANING = 0.5  # weight of the closeness in meaning beside the term share when choosing the passage
MAX_LINES = 3
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?(?![\w])")
_LINE = re.compile(r"[^\n]+")
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Evidence:
    """A passage of a source's text: ``text == source_text[start:end]``."""

    text: str
    start: int
    end: int

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "start": self.start, "end": self.end}


@dataclass(frozen=True)
class Support:
    verdict: Verdict
    score: float
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "score": self.score, "reason": self.reason}


def source_text(source: Source) -> str:
    """The text evidence offsets point into: a slide's or segment's text, an FAQ's answer."""
    return source.answer if isinstance(source, FaqSource) else source.text


def _spans(source: Source) -> list[tuple[int, int]]:
    """The units a passage is built of: slide lines, else sentences."""
    text = source_text(source)
    if isinstance(source, PageChunk):
        units: list[tuple[int, int]] = []
        for m in _LINE.finditer(text):
            line = m.group(0)
            if not line.strip():
                continue
            if units and _continues(text[units[-1][0] : units[-1][1]], line):
                units[-1] = (units[-1][0], m.end())  # a wrapped bullet: its lines are one unit
            else:
                units.append((m.start(), m.end()))
        return units
    return [(s.start, s.end) for s in sentences(text)] or ([(0, len(text))] if text.strip() else [])


def _continues(previous: str, line: str) -> bool:
    """``line`` carries on the bullet or sentence of ``previous`` (PDF text breaks long bullets)."""
    stripped = line.lstrip()
    return bool(stripped) and not previous.rstrip().endswith((".", "!", "?", ":")) and (
        line[:1].isspace() or stripped[:1].islower())


def _numbers(text: str) -> set[str]:
    return {n.replace(",", ".") for n in _NUMBER.findall(text)}


def _overlap(sentence_terms: set[str], passage: str, weight: Callable[[str], float]) -> float:
    total = math.fsum(weight(t) for t in sentence_terms)  # fsum: the same sum whatever order a set's terms come in
    return math.fsum(weight(t) for t in sentence_terms & stems(passage)) / total if total else 0.0


def _one(_: str) -> float:
    return 1.0


def meaning_matcher(sources: Iterable[Source]) -> Matcher | None:
    """A ``Matcher`` over the statements of ``sources`` (tokens weighted by their rarity among them), or None
    without the embedding model."""
    model = semantic_model()
    if model is None:
        return None
    return model.matcher([st for s in sources for st in statements(source_text(s))])


def _closeness(sentence: str, texts: Sequence[str], source: Source, matcher: Matcher | None) -> list[float]:
    """How closely each text says what ``sentence`` says (``Matcher`` F; zeros without the model)."""
    matcher = matcher or meaning_matcher([source])
    if matcher is None:
        return [0.0] * len(texts)
    return [max(0.0, float(c)) for c in matcher.compare(sentence, texts)]


def find_evidence(sentence: str, source: Source, weight: Callable[[str], float] = _one,
                  matcher: Matcher | None = None) -> Evidence | None:
    """The passage of ``source`` that best supports ``sentence``: most of its (weighted) terms and closest
    in meaning (``matcher``: over all sources of the answer, else over this one); shorter wins a tie."""
    return _find_evidence(sentence, source, weight, matcher)[0]


def _find_evidence(sentence: str, source: Source, weight: Callable[[str], float],
                   matcher: Matcher | None) -> tuple[Evidence | None, float | None]:
    """``find_evidence`` and, when the passage is one unit, its closeness in meaning to ``sentence`` (what
    ``judge_support`` would compute again), else None."""
    text = source_text(source)
    spans = _spans(source)
    if not spans:
        return None, None
    wanted = stems(sentence)
    width = 2 if isinstance(source, FaqSource) else MAX_LINES
    windows = [(i, j) for i in range(len(spans)) for j in range(i, min(i + width, len(spans)))]
    # meaning counts by the closest unit of a window: a line added around it (the title) adds no meaning
    cosines = _closeness(sentence, [text[a:b] for a, b in spans], source, matcher)
    best: tuple[float, int, int, int] | None = None  # (score, -length, start, end)
    for i, j in windows:
        start, end = spans[i][0], spans[j][1]
        score = _overlap(wanted, text[start:end], weight) + EVIDENCE_MEANING * max(cosines[i : j + 1])
        key = (round(score, 6), -(end - start), start, end)
        if best is None or key[:2] > best[:2]:
            best = key
    assert best is not None
    _, _, start, end = best
    if best[0] == 0.0:  # nothing in common: the first unit stands for the source
        start, end = spans[0]
    unit = next((k for k, span in enumerate(spans) if span == (start, end)), None)
    return Evidence(text[start:end], start, end), None if unit is None else cosines[unit]


def term_weights(sources: Iterable[Source]) -> Callable[[str], float]:
    """Inverse document frequency over ``sources``: a term every source has says little about support."""
    docs = [stems(source_text(s)) for s in sources]
    df = Counter(t for d in docs for t in d)
    n = len(docs)
    return lambda t: math.log(1 + n / (1 + df[t]))


def judge_support(sentence: str, evidence: Evidence | None, source: Source,
                  weight: Callable[[str], float] | None = None, matcher: Matcher | None = None,
                  meaning: float | None = None) -> Support:
    """The verdict: the (weighted) share of the sentence's terms in the evidence or, for a sentence in other
    words, how close in meaning sentence and evidence are; and the sentence's numbers in the source.
    ``weight`` (e.g. ``term_weights`` of all sources of the answer) lets rare terms count more; ``meaning``:
    the closeness of sentence and evidence when the caller has it already (as ``matcher`` gives it)."""
    wanted = stems(sentence)
    if evidence is None or not wanted:
        return Support("unsupported", 0.0, "the source has no text" if evidence is None else "no terms to check")
    found = wanted & stems(evidence.text)
    w = weight or _one
    total = math.fsum(w(t) for t in wanted)
    score = round(math.fsum(w(t) for t in found) / total, 2) if total else 0.0
    missing_numbers = sorted(_numbers(sentence) - _numbers(source_text(source)))
    words = dict.fromkeys(w.lower() for w in _WORD.findall(sentence) if stems(w) & found)  # as the sentence says
    shared = ", ".join(list(words)[:6]) or "nothing"
    reason = f"shares {len(found)} of {len(wanted)} terms ({shared})"
    model = semantic_model()
    if model is None:
        meaning = 0.0
    elif meaning is None:
        meaning = _closeness(sentence, [evidence.text], source, matcher)[0]
    if model is not None:
        reason += f"; meaning {meaning:.2f}"
    if missing_numbers:
        reason += f"; the source does not have {', '.join(missing_numbers[:4])}"
    if (score >= SUPPORTED or meaning >= MEANS_SUPPORTED) and not missing_numbers:
        return Support("supported", max(score, round(meaning, 2)), reason)
    if score >= PARTIAL or meaning >= MEANS_PARTIAL:
        return Support("partial", max(score, round(meaning, 2) if meaning >= MEANS_PARTIAL else 0.0), reason)
    return Support("unsupported", score, reason)


def evidence_and_support(sentence: str, source: Source, weight: Callable[[str], float] | None = None,
                         matcher: Matcher | None = None) -> tuple[Evidence | None, Support]:
    """The passage of ``source`` that supports ``sentence`` and the verdict on it, both weighed by ``weight``
    (term rarity over the answer's sources) and ``matcher`` (meaning over them): ``find_evidence``, then
    ``judge_support``."""
    found, meaning = _find_evidence(sentence, source, weight or _one, matcher)
    return found, judge_support(sentence, found, source, weight, matcher, meaning)


def sentence_before(answer: str, offset: int, parts: Sequence[Sentence] | None = None) -> str:
    """The answer sentence a marker at ``offset`` stands for: the last sentence that starts before it.

    That is the sentence it stands behind (markers of its group aside; a marker at the start of the next
    sentence, after the space, too) and, for a marker in the middle of a sentence or of a word, the whole
    sentence it stands in: a reader takes a citation as backing the statement it sits in, and the words
    before the marker alone ("Merge sort", "Merge sort divi") would be checked as a claim of their own.
    Before the first sentence: the text before ``offset``. ``parts``: ``sentences(answer)`` when the caller
    asks for several offsets of one answer (each look-up is then a binary search)."""
    parts = sentences(answer) if parts is None else parts
    i = bisect_left(parts, offset, key=_start)  # the first sentence that starts at or after ``offset``
    return parts[i - 1].text if i else answer[:offset].strip()


def _start(sentence: Sentence) -> int:
    return sentence.start


@dataclass(frozen=True)
class Audit:
    """One marker of an answer: the sentence it stands behind, what it cites, the evidence and the verdict."""

    sentence: str
    citation: dict[str, Any]  # type, entity_id, page, start, end, keyword, summary
    evidence: Evidence | None
    support: Support
    index: int = 0  # the marker's position among the answer's markers (``parse(answer, "stored")``)

    def to_json(self) -> dict[str, Any]:
        return {"sentence": self.sentence, "citation": self.citation,
                "evidence": self.evidence.to_json() if self.evidence else None, **self.support.to_json()}
