"""Audit the final-form markers already in an answer (from this pipeline or any other) against sources."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..contract import SourceRef, parse
from ..contract.patterns import ANY_MARKER_RE
from ..errors import InputError, MarkerError
from ..sources import PageChunk, Source, Sources, TranscriptSegment, as_sources
from ..text import sentences
from ..text.similarity import Matcher
from .evidence import Audit, Evidence, Support, evidence_and_support, meaning_matcher, sentence_before, term_weights
from .judge import ModelJudge
from .trace import Trace


def _points_at(ref: SourceRef, source: Source) -> bool:
    if isinstance(source, PageChunk):
        return ref.page is not None and source.page_number == ref.page
    if isinstance(source, TranscriptSegment):
        return ref.start is not None and int(source.start) == ref.start
    return False


def cited_sources(ref: SourceRef, sources: Sources) -> list[Source]:
    """The given sources a reference points at (a page may come as several chunks)."""
    if ref.type == "F":
        return [f for f in sources.faqs if str(f.id) == ref.entity_id]
    return [s for s in sources.lecture if str(s.lecture_unit_id) == ref.entity_id and _points_at(ref, s)]


def best_support(sentence: str, candidates: Sequence[Source], weight: Callable[[str], float] | None = None,
                 matcher: Matcher | None = None) -> tuple[Evidence | None, Support]:
    best: tuple[Evidence | None, Support] | None = None
    for source in candidates:
        found, verdict = evidence_and_support(sentence, source, weight, matcher)
        if best is None or verdict.score > best[1].score:
            best = (found, verdict)
    return best or (None, Support("unsupported", 0.0, "the cited source is not among the given sources"))


def audit(answer: str, sources: Sources | Mapping[str, Any] | Iterable[Source], judge: ModelJudge | None = None,
          trace: Trace | None = None, *, strict: bool = False) -> list[Audit]:
    """One audit per final or stored marker of ``answer``, in order; ``judge`` (optional) gives the verdicts.

    Each marker is checked for the sentence it stands for (``sentence_before``): the sentence it stands
    behind, or the whole sentence it stands in when it stands inside a sentence or a word. The answer is
    split into sentences once, without its markers. A marker that does not follow the contract (a page,
    start or end that is no whole number of at most 18 digits, a lecture marker with both a page and a time
    span) is left out (the others keep their ``index``); with ``strict`` it raises ``MarkerError`` naming it.
    ``sources``: ``Sources``, source records, or the sources JSON mapping (``Sources.from_json``).
    """
    if not isinstance(answer, str):
        raise InputError(f"audit: answer: expected str, got {type(answer).__name__}")
    given = as_sources(sources, "audit: sources")
    every = [*given.lecture, *given.faqs]
    weight, matcher = term_weights(every), meaning_matcher(every)
    markers = parse(answer, "stored")
    plain, offsets = _without_markers(answer, [m.span[0] for m in markers])
    parts = sentences(plain)  # once per answer, not once per marker
    out: list[Audit] = []
    for index, m in enumerate(markers):
        try:
            ref = m.source_ref()
        except MarkerError as exc:
            if strict:
                raw = answer[m.span[0] : m.span[1]]
                shown = raw if len(raw) <= 40 else raw[:39] + "…"
                raise MarkerError(f"marker {index + 1} ({shown}): {exc}") from None
            continue
        sentence = sentence_before(plain, offsets[index], parts)
        candidates = cited_sources(ref, given)
        evidence, support = best_support(sentence, candidates, weight, matcher)
        if judge is not None and candidates:
            support = judge.judge(trace or Trace("audit"), sentence, evidence, candidates[0], support)
        citation = {"type": ref.type, "entity_id": ref.entity_id, "page": ref.page, "start": ref.start,
                    "end": ref.end, "keyword": m.keyword or "", "summary": m.summary or ""}
        out.append(Audit(sentence, citation, evidence, support, index))
    return out


def _without_markers(answer: str, offsets: Sequence[int]) -> tuple[str, list[int]]:
    """``strip_markers(answer)`` and where each of ``offsets`` (ascending) lands in it: an offset minus the
    length of the markers before it."""
    cuts = [m.span() for m in ANY_MARKER_RE.finditer(answer)]
    plain = "".join(answer[a:b] for a, b in zip([0] + [e for _, e in cuts], [s for s, _ in cuts] + [len(answer)],
                                                   strict=True))
    out: list[int] = []
    removed, j = 0, 0
    for offset in offsets:
        while j < len(cuts) and cuts[j][1] <= offset:
            removed += cuts[j][1] - cuts[j][0]
            j += 1
        inside = offset - cuts[j][0] if j < len(cuts) and cuts[j][0] < offset else 0  # within a marker
        out.append(offset - removed - inside)
    return plain, out
