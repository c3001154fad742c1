"""FAQ pass, then lecture pass, over one answer; a placement failure keeps what is done (DESIGN 4.3)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..sources import FaqSource, LectureSource
from .citation_pipeline import Citation, CitationPipeline, PlacementError
from .trace import Failure, ProgressCallback, Trace


@dataclass(frozen=True)
class CitedAnswer:
    answer: str
    citations: tuple[Citation, ...]
    traces: dict[str, Trace]

    @property
    def failures(self) -> tuple[Failure, ...]:
        return tuple(f for t in self.traces.values() for f in t.failures)

    def used_sequence_numbers(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for name, t in self.traces.items():
            collect = next((p for p in t.phases if p.name == "collect"), None)
            if collect is not None:
                out[name] = list(collect.outputs.get("used_sequence_numbers", []))
        return out


def usage_of(traces: Sequence[Trace]) -> dict[str, Any]:
    parts = [t.usage() for t in traces]
    return {
        "calls": sum(p["calls"] for p in parts),
        "prompt_tokens": sum(p["prompt_tokens"] for p in parts),
        "completion_tokens": sum(p["completion_tokens"] for p in parts),
        "cost": round(sum(p["cost"] for p in parts), 8),
        "estimated": any(p["estimated"] for p in parts),
    }


def cite_both(
    pipeline: CitationPipeline,
    answer: str,
    faqs: Sequence[FaqSource],
    lecture: Sequence[LectureSource],
    *,
    user_language: str | None = None,
    variant: str = "default",
    progress: ProgressCallback | None = None,
) -> CitedAnswer:
    """Run the FAQ pass (if there are FAQs), then the lecture pass on its output.

    A placement failure ends the passes: the answer so far is returned, with the citations of a pass
    that already succeeded.
    """
    text = answer
    citations: list[Citation] = []
    traces: dict[str, Trace] = {}
    passes: list[tuple[str, Sequence[FaqSource] | Sequence[LectureSource]]] = []
    if faqs:
        passes.append(("faq", faqs))
    if lecture:
        passes.append(("lecture", lecture))
    for kind, sources in passes:
        try:
            result = pipeline(text, sources, kind=kind,  # type: ignore[arg-type]
                              user_language=user_language, variant=variant, progress=progress)
        except PlacementError as exc:
            traces[kind] = exc.trace
            break
        traces[kind] = result.trace
        text = result.answer
        citations.extend(result.citations)
    return CitedAnswer(text, tuple(citations), traces)
