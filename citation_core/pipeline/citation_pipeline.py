"""The citation pipeline: an FAQ pass, then a lecture pass, each serialize → place → validate → collect →
enrich → rewrite (DESIGN 4.2, 5).

A ``CitationPipeline`` holds only its models, prompts and settings; every call keeps its state in the
run, so several runs may share one pipeline object at once.
"""

from __future__ import annotations

import bisect
import queue
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from ..contract import SourceRef, insert_at
from ..errors import InputError, PlacementError
from ..llm.config import (
    CITATION_PIPELINE,
    PLACEMENT_MODES,
    KeywordStrategy,
    LlmConfig,
    ModelConfig,
    PassOrder,
    PlacementMode,
)
from ..llm.factory import create_model
from ..sources import FaqSource, LectureSource, Source, Sources, as_sources, check_source
from .evidence import Evidence, Support
from .judge import ModelJudge
from .languages import choose_language
from .model_calls import NO_DEADLINE, Deadline, ModelCalls, ModelFactory, ModelLike, RoleModel
from .phases import PHASES, PassKind, PassRun, Phase, run_phases
from .prompts import Prompts
from .trace import Failure, ProgressCallback, ProgressEvent, Trace


@dataclass(frozen=True)
class Citation:
    seq: int
    ref: SourceRef
    keyword: str
    summary: str
    source: Source
    marker: str  # as written into the answer (final form, or intermediate when not rewritten)
    sentence: str = ""  # the answer sentence it (first) stands behind
    evidence: Evidence | None = None  # the passage of the source that supports that sentence
    support: Support | None = None

    def to_json(self) -> dict[str, Any]:
        ref = self.ref
        return {"type": ref.type, "entity_id": ref.entity_id, "page": ref.page, "start": ref.start,
                "end": ref.end, "keyword": self.keyword, "summary": self.summary,
                "evidence": self.evidence.to_json() if self.evidence else None,
                "support": self.support.to_json() if self.support else None}


@dataclass(frozen=True)
class PassResult:
    """One pass (FAQ or lecture) over one answer."""

    pass_name: PassKind
    input_answer: str
    answer: str
    placed: str  # the answer with intermediate markers (what placement gave, validated)
    citations: tuple[Citation, ...]
    used_seqs: tuple[int, ...]
    rewritten: bool
    trace: Trace
    insertions: tuple[tuple[int, str], ...] = ()  # (offset in ``input_answer``, marker written there)


@dataclass(frozen=True)
class CitationResult:
    """An answer after both passes: its citations, each pass's trace and what failed."""

    input_answer: str
    answer: str
    citations: tuple[Citation, ...]
    traces: dict[str, Trace]

    @property
    def failures(self) -> tuple[Failure, ...]:
        return tuple(f for t in self.traces.values() for f in t.failures)

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(w for t in self.traces.values() for w in t.warnings)

    def used_sequence_numbers(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for name, t in self.traces.items():
            collect = next((p for p in t.phases if p.name == "collect" and p.status == "done"), None)
            if collect is not None:
                out[name] = list(collect.outputs.get("used_sequence_numbers", []))
        return out

    def usage(self) -> dict[str, Any]:
        return usage_of(self.traces.values())

    def to_json(self) -> dict[str, Any]:
        return {"answer": self.answer, "citations": [c.to_json() for c in self.citations],
                "used_sequence_numbers": self.used_sequence_numbers(),
                "failures": [f.to_json() for f in self.failures], "warnings": list(self.warnings),
                "usage": self.usage()}


def usage_of(traces: Iterable[Trace]) -> dict[str, Any]:
    parts = [t.usage() for t in traces]
    return {
        "calls": sum(p["calls"] for p in parts),
        "prompt_tokens": sum(p["prompt_tokens"] for p in parts),
        "completion_tokens": sum(p["completion_tokens"] for p in parts),
        "cost": round(sum(p["cost"] for p in parts), 8),
        "estimated": any(p["estimated"] for p in parts),
    }


class CitationPipeline:
    """Cites an answer from its sources.

    ``placement`` serves the placement call, ``enrichment`` the keywords and summaries (default: the
    placement model). A model is a ``ModelConfig`` (every task gets a fresh client), a ``ChatModel``
    object (used for every task; it must be thread-safe), or ``None`` for the embedded offline model.
    ``placement_mode`` is how placement is asked for: ``"iris"`` (the model writes the answer again with ids
    inserted) or ``"places"`` (it names the numbered sentences each source supports in a small JSON object,
    and the pipeline inserts the markers: ``places``). Arguments of another type or value raise
    ``InputError`` naming the argument.
    """

    def __init__(
        self,
        placement: ModelLike = None,
        enrichment: ModelLike = None,
        prompts: Prompts | None = None,
        *,
        keyword_strategy: KeywordStrategy = "batched",
        pass_order: PassOrder = "parallel",
        placement_mode: PlacementMode = "iris",
        variant: str = "default",
        deadline_seconds: float | None = None,
        judge: ModelLike = None,
        phases: Sequence[Phase] = PHASES,
        factory: ModelFactory = create_model,
    ) -> None:
        where = "CitationPipeline"
        for name, model in (("placement", placement), ("enrichment", enrichment), ("judge", judge)):
            _check_model(model, f"{where}: {name}")
        _check_choice(keyword_strategy, KEYWORD_STRATEGIES, f"{where}: keyword_strategy")
        _check_choice(pass_order, PASS_ORDERS, f"{where}: pass_order")
        _check_choice(placement_mode, PLACEMENT_MODES, f"{where}: placement_mode")
        if not isinstance(variant, str):
            raise InputError(f"{where}: variant: expected str, got {type(variant).__name__}")
        if prompts is not None and not isinstance(prompts, Prompts):
            raise InputError(f"{where}: prompts: expected Prompts or None, got {type(prompts).__name__}")
        if deadline_seconds is not None and (isinstance(deadline_seconds, bool) or not isinstance(
                deadline_seconds, int | float) or not 0 < deadline_seconds < 86_400):
            raise InputError(f"{where}: deadline_seconds: expected seconds > 0 (or None), got "
                             f"{_shown(deadline_seconds)}")
        if not callable(factory):
            raise InputError(f"{where}: factory: expected a callable, got {type(factory).__name__}")
        self.placement = RoleModel.of(placement, variant, factory)
        self.enrichment = RoleModel.of(placement if enrichment is None else enrichment, "default", factory)
        self.prompts = prompts or Prompts.default()
        # an optional model that judges support; without it the lexical verdict stands
        self.judge = None if judge is None else ModelJudge(RoleModel.of(judge, "default", factory), self.prompts)
        self.keyword_strategy: KeywordStrategy = keyword_strategy
        self.pass_order: PassOrder = pass_order
        self.placement_mode: PlacementMode = placement_mode
        self.variant = variant
        self.deadline_seconds = deadline_seconds  # for the whole call (both passes); None: no deadline
        self.phases = tuple(phases)

    @classmethod
    def from_config(
        cls,
        config: LlmConfig,
        variant: str = "default",
        *,
        prompts: Prompts | None = None,
        keyword_strategy: KeywordStrategy | None = None,
        phases: Sequence[Phase] = PHASES,
        factory: ModelFactory = create_model,
    ) -> CitationPipeline:
        """The pipeline ``application.yml`` describes for ``variant`` (keyword_summary always via default).
        ``config``: ``load_config(folder)`` or ``default_config()``."""
        if not isinstance(config, LlmConfig):
            raise InputError(f"CitationPipeline.from_config: config: expected LlmConfig (load_config(folder) or "
                             f"default_config()), got {type(config).__name__}")
        if keyword_strategy is not None:
            _check_choice(keyword_strategy, KEYWORD_STRATEGIES, "CitationPipeline.from_config: keyword_strategy")
        return cls(
            config.resolve(CITATION_PIPELINE, variant, "chat"),
            config.resolve(CITATION_PIPELINE, variant, "keyword_summary"),
            prompts or Prompts.of(config),
            keyword_strategy=keyword_strategy or config.keyword_strategy,
            pass_order=config.pass_order,
            placement_mode=config.placement_mode_for(variant),
            variant=variant,
            deadline_seconds=config.deadline_seconds,
            judge=config.optional(CITATION_PIPELINE, "default", "judge"),
            phases=phases,
            factory=factory,
        )

    def __call__(
        self,
        answer: str,
        sources: Sources | Mapping[str, Any] | Iterable[Source],
        *,
        language: str | None = None,
        progress: ProgressCallback | None = None,
    ) -> CitationResult:
        """The FAQ pass and the lecture pass over ``answer``.

        ``sources``: ``Sources``, source records, or the sources JSON mapping (``Sources.from_json``); a
        record whose fields cannot make a marker, and an answer or language of another type, raise
        ``InputError`` (``SourcesError`` for the sources) naming the argument.

        ``pass_order="parallel"`` runs both at once on the original answer and merges their markers by
        offset; ``"faq_then_lecture"`` runs the seed's order, the lecture pass on the FAQ pass's output.
        Either way a sentence's own source leads its group: where lecture and FAQ markers stand together
        (nothing but whitespace between them), the lecture markers come first. A placement failure keeps the answer and
        the citations of the other pass (in the seed's order: of a pass that already succeeded), with the
        failure in that pass's trace. Both passes share one deadline: a call it would cut fails like any
        model call (and is reported so), the answer is kept.
        """
        given = _checked_call(answer, sources, language, "CitationPipeline")
        deadline = Deadline.after(self.deadline_seconds)
        passes: list[tuple[PassKind, Sequence[Source]]] = []
        if given.faqs:
            passes.append(("faq", given.faqs))
        if given.lecture:
            passes.append(("lecture", given.lecture))
        if self.pass_order == "parallel" and len(passes) == 2:
            return self._together(answer, passes, language, progress, deadline)
        text = answer
        citations: list[Citation] = []
        traces: dict[str, Trace] = {}
        insertions: list[tuple[int, str, PassKind]] = []  # on ``answer``
        for kind, items in passes:
            try:
                result = self.run_pass(text, items, kind=kind, language=language, progress=progress,
                                       deadline=deadline)
            except PlacementError as exc:
                traces[kind] = exc.trace
                break
            traces[kind] = result.trace
            # this pass's offsets are in the earlier passes' output: moved back onto the answer
            earlier = _Inserted(insertions)
            insertions += [(earlier.offset_before(off), marker, kind) for off, marker in result.insertions]
            text = result.answer
            citations.extend(result.citations)
        if insertions and len(traces) > 1:
            text = insert_at(answer, own_source_first(answer, insertions))
        return CitationResult(answer, text, tuple(citations), traces)

    def _together(self, answer: str, passes: list[tuple[PassKind, Sequence[Source]]], language: str | None,
                  progress: ProgressCallback | None, deadline: Deadline) -> CitationResult:
        """Both passes at once; their progress events reach ``progress`` on the calling thread."""
        events: queue.SimpleQueue[ProgressEvent] = queue.SimpleQueue()
        relay = events.put if progress is not None else None
        outcomes: dict[str, PassResult | PlacementError] = {}

        def one(kind: PassKind, items: Sequence[Source]) -> PassResult | PlacementError:
            try:
                return self.run_pass(answer, items, kind=kind, language=language, progress=relay, deadline=deadline)
            except PlacementError as exc:
                return exc

        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="citation-pass") as pool:
            futures = {kind: pool.submit(one, kind, items) for kind, items in passes}
            pending = set(futures.values())
            while pending:
                _, pending = wait(pending, timeout=0.02)
                while progress is not None and not events.empty():
                    progress(events.get())
            outcomes = {kind: f.result() for kind, f in futures.items()}
        traces: dict[str, Trace] = {}
        citations: list[Citation] = []
        insertions: list[tuple[int, str, PassKind]] = []
        for kind, _ in passes:
            outcome = outcomes[kind]
            traces[kind] = outcome.trace
            if isinstance(outcome, PassResult):
                citations.extend(outcome.citations)
                insertions += [(off, marker, kind) for off, marker in outcome.insertions]
        return CitationResult(answer, insert_at(answer, own_source_first(answer, insertions)), tuple(citations),
                              traces)

    def run_pass(
        self,
        answer: str,
        sources: Sequence[LectureSource] | Sequence[FaqSource] | Sequence[Source],
        *,
        kind: PassKind = "lecture",
        language: str | None = None,
        progress: ProgressCallback | None = None,
        deadline: Deadline | None = None,
    ) -> PassResult:
        """One pass over ``answer``; raises ``PlacementError`` (with the trace) when placement fails."""
        where = "CitationPipeline.run_pass"
        _check_text_args(answer, language, where)
        if isinstance(sources, str | bytes | Mapping | Sources) or not isinstance(sources, Iterable):
            raise InputError(f"{where}: sources: expected a sequence of source records, got {type(sources).__name__}")
        sources = list(sources)
        for i, source in enumerate(sources):
            check_source(source, f"{where}: sources[{i}]")
        trace = Trace(kind, progress)
        lang = choose_language(language)
        if lang.warning:
            trace.warnings.append(lang.warning)
        trace.info.update(
            language=lang.language.code, language_line=lang.line, variant=self.variant,
            keyword_strategy=self.keyword_strategy, placement_mode=self.placement_mode,
            deadline_seconds=self.deadline_seconds,
            models={"chat": self.placement.label, "keyword_summary": self.enrichment.label},
        )
        if deadline is None:
            deadline = Deadline.after(self.deadline_seconds) if self.deadline_seconds is not None else NO_DEADLINE
        with ModelCalls() as calls:  # one event loop and client per model for the pass's calls (when needed)
            run = PassRun(kind, answer, list(sources), lang, self.prompts, self.placement, self.enrichment,
                          self.keyword_strategy, trace, deadline, self.judge, calls=calls,
                          placement_mode=self.placement_mode)
            run_phases(run, self.phases)
        entries = run.serialized.by_seq()
        if run.final is not None:
            cites = tuple(Citation(s, entries[s].ref, run.enrichment.keywords.get(s, ""),
                                   run.enrichment.summaries.get(s, ""), entries[s].source, run.finals[s],
                                   *run.evidence.get(s, ("", None, None)))
                          for s in run.used)
            marks = tuple((ins.offset, run.finals[ins.seq]) for ins in run.placement.insertions)
            return PassResult(kind, answer, run.final, run.placed, cites, run.used, True, trace, marks)
        if run.placed and run.used:  # enrichment or rewrite failed: the placement result, !seq markers kept
            cites = tuple(Citation(s, entries[s].ref, "", "", entries[s].source, entries[s].marker) for s in run.used)
            marks = tuple((ins.offset, entries[ins.seq].marker) for ins in run.placement.insertions)
            return PassResult(kind, answer, run.placed, run.placed, cites, run.used, False, trace, marks)
        return PassResult(kind, answer, answer, answer, (), (), False, trace)


class _Inserted:
    """Markers inserted into the answer by earlier passes, sorted once: where each stands in their output
    (its offset in the answer plus the markers before it), so that an offset of that output is mapped back
    onto the answer by a binary search."""

    def __init__(self, earlier: Sequence[tuple[int, str, PassKind]]) -> None:
        self.at: list[int] = []
        self.placed: list[int] = []  # where each marker starts in the output
        self.shift: list[int] = [0]  # characters inserted before each marker (and, last, in all)
        for at, marker, _ in sorted(earlier, key=lambda ins: ins[0]):
            self.at.append(at)
            self.placed.append(at + self.shift[-1])
            self.shift.append(self.shift[-1] + len(marker))

    def offset_before(self, offset: int) -> int:
        """``offset`` in the output as an offset in the answer itself (a position inside or at the end of an
        inserted marker is that marker's own offset)."""
        k = bisect.bisect_left(self.placed, offset)  # the markers before ``k`` start before ``offset``
        if k and offset <= self.placed[k - 1] + self.shift[k] - self.shift[k - 1]:
            return self.at[k - 1]
        return offset - self.shift[k]


def own_source_first(answer: str, insertions: Iterable[tuple[int, str, PassKind]]) -> list[tuple[int, str]]:
    """The insertions of both passes on ``answer``, ascending, for ``insert_at``. Markers that stand together
    (one offset, or offsets with only whitespace between them) form one group, as a reader sees them; in a
    group the lecture markers come first (the sentence's own source leads) and the FAQ markers follow, each
    kind in its order. The positions stay where the passes put them; only which marker takes which changes."""
    ordered = sorted(insertions, key=lambda ins: ins[0])  # stable
    out: list[tuple[int, str]] = []
    i = 0
    while i < len(ordered):
        j = i + 1
        while j < len(ordered) and not answer[ordered[j - 1][0]:ordered[j][0]].strip():
            j += 1
        group = ordered[i:j]
        markers = [m for _, m, kind in group if kind == "lecture"] + [m for _, m, kind in group if kind != "lecture"]
        out += [(off, marker) for (off, _, _), marker in zip(group, markers, strict=True)]
        i = j
    return out


def cite(
    answer: str,
    sources: Sources | Mapping[str, Any] | Iterable[Source],
    *,
    language: str | None = "en",
    model: ModelLike = None,
) -> CitationResult:
    """Cite ``answer`` from ``sources`` with ``model`` (default: the embedded offline model).

    ``sources``: ``Sources``, source records (``PageChunk``, ``TranscriptSegment``, ``FaqSource``), or the
    sources JSON mapping (``{"lecture": {"pages": [...], "transcriptions": [...]}, "faqs": [...]}``). Any
    other type or a record that cannot make a marker raises ``InputError`` (``SourcesError``) naming it.

    >>> from citation_core import cite, Sources
    >>> from citation_core.sources import PageChunk
    >>> page = PageChunk("p1", 7, 1, "Merge sort splits the list into halves and merges them.")
    >>> result = cite("Merge sort splits the list into halves.", Sources(lecture=(page,)))
    >>> result.answer.startswith("Merge sort splits the list into halves.[cite:L:7:1:::")
    True
    """
    given = _checked_call(answer, sources, language, "cite")
    _check_model(model, "cite: model")
    return CitationPipeline(model)(answer, given, language=language)


KEYWORD_STRATEGIES: tuple[KeywordStrategy, ...] = ("batched", "sequential")
PASS_ORDERS: tuple[PassOrder, ...] = ("parallel", "faq_then_lecture")


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _check_choice(value: object, choices: tuple[str, ...], where: str) -> None:
    if not isinstance(value, str) or value not in choices:
        raise InputError(f"{where}: expected one of {', '.join(map(repr, choices))}, got {_shown(value)}")


def _check_model(model: object, where: str) -> None:
    """A model is None, a ``ModelConfig`` or a ``ChatModel`` (``complete`` and the attributes the trace names)."""
    if model is None or isinstance(model, ModelConfig):
        return
    if callable(getattr(model, "complete", None)) and all(
            hasattr(model, a) for a in ("model_id", "model_name", "offline")):
        return
    raise InputError(f"{where}: expected a ModelConfig, a ChatModel or None, got {type(model).__name__}")


def _check_text_args(answer: object, language: object, where: str) -> None:
    if not isinstance(answer, str):
        raise InputError(f"{where}: answer: expected str, got {type(answer).__name__}")
    if language is not None and not isinstance(language, str):
        raise InputError(f"{where}: language: expected a language code such as 'de' (or None), got "
                         f"{type(language).__name__}")


def _checked_call(answer: object, sources: object, language: object, where: str) -> Sources:
    """The checked arguments of a citation call: ``answer`` a str, ``language`` a str or None, ``sources``
    as ``Sources`` (``as_sources``)."""
    _check_text_args(answer, language, where)
    return as_sources(sources, f"{where}: sources")
