"""The chat pipeline: write the answer, then the FAQ citation pass, then the lecture pass (DESIGN 5)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from ..contract import strip_markers
from ..llm.config import CHAT_PIPELINE, CITATION_PIPELINE, KeywordStrategy, LlmConfig
from ..llm.factory import create_model
from ..material.library import CourseMaterial
from ..pipeline import Citation, CitationPipeline, Failure, Trace
from ..pipeline.audit import audit
from ..pipeline.citation_pipeline import usage_of
from ..pipeline.evidence import Audit
from ..pipeline.languages import choose_language
from ..pipeline.model_calls import ModelFactory, RoleModel
from ..pipeline.prompts import Prompts
from ..pipeline.registry import CitationRegistry, UncitedStream, uncited
from ..pipeline.trace import ProgressCallback
from ..sources import FaqSource, LectureSource, Sources
from ..text import detect_language, lang_code, sentences
from .tools import ToolState
from .view import CurrentView, ViewPosition, current_view
from .writers import WriterTurn, capped, write, writer_for

T = TypeVar("T")


@dataclass(frozen=True)
class ChatResult:
    question: str
    answer: str
    writer_answer: str
    citations: tuple[Citation, ...]
    current_view: CurrentView
    context_switched: bool
    switched_to: int | None
    failures: tuple[Failure, ...]
    traces: dict[str, Trace]
    retrieved: tuple[LectureSource, ...] = ()
    faqs: tuple[FaqSource, ...] = ()
    models: dict[str, str] = field(default_factory=dict)
    audits: tuple[Audit, ...] = ()  # one per marker of ``answer``: its sentence, evidence and support verdict
    # the question is in another language than the open unit's material: (question's, material's) codes
    languages_differ: tuple[str, str] | None = None

    def usage(self) -> dict[str, Any]:
        return usage_of(self.traces.values())

    def to_json(self) -> dict[str, Any]:
        return {"answer": self.answer, "citations": [c.to_json() for c in self.citations],
                "current_view": self.current_view.to_json(), "context_switched": self.context_switched,
                "failures": [f.to_json() for f in self.failures], "usage": self.usage(), "models": self.models,
                "languages_differ": list(self.languages_differ) if self.languages_differ else None}


def _unique(items: Iterable[T], key: Callable[[T], str]) -> list[T]:
    """Items in order, later ones with an already seen key dropped."""
    seen: set[str] = set()
    out: list[T] = []
    for item in items:
        if key(item) not in seen:
            seen.add(key(item))
            out.append(item)
    return out


def retrieve_for_answer(state: ToolState, question: str, answer: str, context: str = "") -> None:
    """Retrieval for a pasted answer: the answer is what gets cited, so each of its sentences is looked up
    (the question and the recent turns only add context), then the whole answer once more."""
    for sent in sentences(answer)[:MAX_PASTED_SENTENCES]:
        state.lecture_retrieval(sent.text, k=2, context=question)
    state.lecture_retrieval(answer, k=3, context=f"{question} {context}")
    state.faq_retrieval(answer, k=2, context=question)


MAX_PASTED_SENTENCES = 30
PARTIAL_EVERY = 0.1  # seconds: how often an inline answer is expanded for a partial render while it streams


def with_evidence(citations: Iterable[Citation], audits: Iterable[Audit]) -> tuple[Citation, ...]:
    """``citations`` with the sentence, quoted passage and verdict of the first marker of each (its audit), as
    the placement pipeline gives its citations those of the sentence they first stand behind."""
    first: dict[tuple[Any, ...], Audit] = {}
    for a in audits:
        c = a.citation
        first.setdefault((c["type"], c["entity_id"], c["page"], c["start"], c["end"]), a)
    out = []
    for citation in citations:
        ref = citation.ref
        found = first.get((ref.type, ref.entity_id, ref.page, ref.start, ref.end))
        out.append(citation if found is None else
                   replace(citation, sentence=found.sentence, evidence=found.evidence, support=found.support))
    return tuple(out)


def merge_lecture_sources(view: tuple[LectureSource, ...], retrieved: list[LectureSource]) -> list[LectureSource]:
    """Current view first, then retrieved, de-duplicated by uuid."""
    return _unique((*view, *retrieved), lambda s: s.uuid)


PLACEMENT_RULE = "- Do not add citation markers or a list of sources yourself; that is done afterwards."
INLINE_RULE = (
    "- The open slide or moment and every source a tool returns has a handle such as [cite:3] (its \"cite\"\n"
    "  field). Put the handle of each source that supports a sentence right behind that sentence, e.g.\n"
    "  \"A merge commit has two parents.[cite:3]\". Use only the handles you were given, never one of your\n"
    "  own, and write no list of sources.")


class ChatPipeline:
    """One chat turn: write the answer (or take a pasted one), then cite it (the FAQ and lecture passes, at
    once or one after the other, as ``citation.pass_order`` sets)."""

    def __init__(self, config: LlmConfig, material: CourseMaterial, *, factory: ModelFactory = create_model,
                 keyword_strategy: KeywordStrategy | None = None, prompts: Prompts | None = None) -> None:
        self.config = config
        self.material = material
        self.factory = factory
        self.keyword_strategy = keyword_strategy
        self.prompts = prompts or Prompts.of(config)

    def __call__(self, question: str, position: ViewPosition, *, language: str | None = None,
                 variant: str = "default", pasted_answer: str | None = None,
                 progress: ProgressCallback | None = None,
                 history: Sequence[tuple[str, str]] = (),
                 on_draft: Callable[[str], None] | None = None,
                 on_delta: Callable[[str], None] | None = None,
                 on_partial: Callable[[str], None] | None = None) -> ChatResult:
        """One turn. ``history`` is the conversation so far as (question, answer) pairs, oldest first
        (answers may carry their citation markers; they are removed): the writer sees it, and retrieval
        uses the recent turns as context. A ``pasted_answer`` is cited from its own text.

        ``on_draft`` receives the writer's answer as soon as it is written, before the citation stage
        (a client shows it as a draft and replaces it with the cited answer); it runs on the calling thread.
        ``on_delta`` receives the answer's text piece by piece while the writer writes it (a model that
        streams sends its pieces as they arrive; the offline writer and a pasted answer send one piece), also
        on the calling thread, before ``on_draft``. A stream cut short keeps what arrived: that text is cited
        and the cut is one of the result's failures. The writer's text and a pasted answer are kept up to
        ``MAX_ANSWER_CHARS`` (a stream is read no further), the cut a failure as well.

        With ``citation.mode: inline`` for ``variant`` and a model writer, the writer puts handles such as
        ``[cite:3]`` behind its sentences while it streams and no placement pass runs: ``on_partial`` gets
        the answer cited so far after every piece (no half-typed handle, no chip whose keyword and summary
        are still being made), the whole text once it is written and again as each chip still being made is
        done; ``on_delta`` the writer's raw pieces, ``on_draft`` the answer without handles, and the result
        the answer with every handle expanded to its final marker. A handle written as code (a code span, a
        fenced block) is code text and stays as written. Text the writer wrote before a tool call is part of
        the answer (a reader saw it stream), in both modes."""
        view = current_view(self.material, position)
        turns = tuple((str(q), strip_markers(str(a))) for q, a in history)
        writer_trace = Trace("chat", progress)
        state = ToolState(self.material)
        lang = choose_language(language)
        writer_role = RoleModel.of(self.config.resolve(CHAT_PIPELINE, variant, "chat"), variant, self.factory)
        models = {"writer": writer_role.label}
        if pasted_answer is None and self.cites_inline(variant):
            return self._inline(question, view, turns, state, writer_trace, writer_role, models, language,
                                progress, on_draft, on_delta, on_partial)
        if pasted_answer is not None:
            answer = capped(pasted_answer, writer_trace, "the pasted answer")
            writer_trace.info["pasted_answer"] = True
            if on_delta is not None and answer:
                on_delta(answer)
            retrieve_for_answer(state, question, answer, " ".join(q for q, _ in turns[-2:]))
        else:
            units = "\n".join(f"{uid}: {um.unit.name}" for uid, um in self.material.units.items())
            prompt = self.prompts.render("writer", lang.writer_line, CourseName=self.material.course.name,
                                         Units=units, CurrentView=view.describe(), Question=question,
                                         Citing=PLACEMENT_RULE)
            turn = WriterTurn(question, view, state, prompt, lang.language.code, writer_trace, turns, on_delta)
            answer = write(writer_for(writer_role), turn)

        if on_draft is not None:
            on_draft(answer)
        switched = state.switched_to is not None and state.switched_to != view.unit_id
        lecture_sources = merge_lecture_sources(() if switched else view.sources, state.retrieved)
        faqs = _unique(state.faqs, lambda f: str(f.id))
        # the citation pipeline runs with the same variant as the chat pipeline ("same" in application.yml)
        citations = CitationPipeline.from_config(self.config, variant, prompts=self.prompts,
                                                 keyword_strategy=self.keyword_strategy, factory=self.factory)
        given = Sources(tuple(lecture_sources), tuple(faqs))
        cited = citations(answer, given, language=language, progress=progress)
        # per marker (a source cited behind two sentences has evidence for each); the judge's verdicts are cached
        audits = audit(cited.answer, given, citations.judge)
        if any(a.evidence is None for a in audits):  # e.g. a pasted answer's own markers: check them against
            course = {a.index: a for a in audit(cited.answer, self.material.sources(), citations.judge)}
            audits = [course.get(a.index, a) if a.evidence is None else a for a in audits]
        traces: dict[str, Trace] = {"chat": writer_trace, **cited.traces}
        roles: dict[str, str] = next((t.info["models"] for t in cited.traces.values() if "models" in t.info), {})
        models.update({f"citation {role}": m for role, m in roles.items()})
        failures = cited.failures
        if "cut" in writer_trace.info:  # one of the turn's failures, and the writer's trace shows it too
            cut = Failure("writer", str(writer_trace.info["cut"]), None,
                          "the answer is the text before the cut, cited as it is")
            writer_trace.fail(cut)
            failures = (cut, *failures)
        return ChatResult(question, cited.answer, answer, cited.citations, view, switched,
                          state.switched_to if switched else None, failures, traces,
                          tuple(state.retrieved), tuple(faqs), models, tuple(audits),
                          self._languages(question, state.switched_to if state.switched_to is not None and switched
                                          else view.unit_id, lang.language.code))

    def cites_inline(self, variant: str = "default") -> bool:
        """Whether a written answer of ``variant`` is cited inline (``citation.mode: inline``): the writer puts
        handles behind what it writes (a model as it streams, the offline writer behind what it quotes)."""
        return self.config.citation_mode_for(variant) == "inline"

    def _inline(self, question: str, view: CurrentView, turns: tuple[tuple[str, str], ...], state: ToolState,
                writer_trace: Trace, writer_role: RoleModel, models: dict[str, str], language: str | None,
                progress: ProgressCallback | None, on_draft: Callable[[str], None] | None,
                on_delta: Callable[[str], None] | None, on_partial: Callable[[str], None] | None) -> ChatResult:
        """A turn cited inline: the writer's handles expanded by the turn's ``CitationRegistry``."""
        lang = choose_language(language)
        enrichment = RoleModel.of(self.config.resolve(CITATION_PIPELINE, "default", "keyword_summary"), "default",
                                  self.factory)
        with CitationRegistry(enrichment, self.prompts, language=language,
                              deadline_seconds=self.config.deadline_seconds,
                              trace=Trace("inline", progress)) as registry:
            state.registry = registry
            handles = " ".join(f"[cite:{registry.register(s)}]" for s in view.sources)
            current = view.describe() + (f"\nIts handle: {handles}" if handles else "")
            units = "\n".join(f"{uid}: {um.unit.name}" for uid, um in self.material.units.items())
            prompt = self.prompts.render("writer", lang.writer_line, CourseName=self.material.course.name,
                                         Units=units, CurrentView=current, Question=question, Citing=INLINE_RULE)
            written: list[str] = []
            # reads the text as it comes (a handle split across pieces whole, one written as code not at all)
            # and starts each handle's enrichment as soon as it is read
            reading = UncitedStream(on_handle=registry.begin)
            expanded_at = [-PARTIAL_EVERY]

            def piece(text: str) -> None:
                written.append(text)
                reading.feed(text)
                if on_delta is not None:
                    on_delta(text)
                # the answer so far is expanded at most every PARTIAL_EVERY seconds (and when a handle closes):
                # expanding it after every piece would take time quadratic in the answer's length
                now = time.monotonic()
                if on_partial is not None and ("]" in text or now - expanded_at[0] >= PARTIAL_EVERY):
                    expanded_at[0] = now
                    on_partial(registry.expand("".join(written), final=False))

            turn = WriterTurn(question, view, state, prompt, lang.language.code, writer_trace, turns, piece)
            raw = write(writer_for(writer_role), turn)
            if on_partial is not None:  # the whole text now, then each chip still being made as it is done
                def redraw() -> None:
                    on_partial(registry.expand(raw, final=False))

                redraw()
                registry.finish(raw, on_change=redraw)
            draft = uncited(raw)
            if on_draft is not None:
                on_draft(draft)
            answer = registry.expand(raw, final=True)
            citations = registry.citations()
        switched = state.switched_to is not None and state.switched_to != view.unit_id
        lecture_sources = merge_lecture_sources(() if switched else view.sources, state.retrieved)
        faqs = _unique(state.faqs, lambda f: str(f.id))
        audits = audit(answer, Sources(tuple(lecture_sources), tuple(faqs)))
        citations = with_evidence(citations, audits)
        models["citation keyword_summary"] = enrichment.label
        failures: tuple[Failure, ...] = tuple(registry.trace.failures)
        if "cut" in writer_trace.info:
            cut = Failure("writer", str(writer_trace.info["cut"]), None,
                          "the answer is the text before the cut, cited as it is")
            writer_trace.fail(cut)
            failures = (cut, *failures)
        unit = state.switched_to if switched and state.switched_to is not None else view.unit_id
        return ChatResult(question, answer, draft, citations, view, switched,
                          state.switched_to if switched else None, failures,
                          {"chat": writer_trace, "inline": registry.trace}, tuple(state.retrieved), tuple(faqs),
                          models, tuple(audits), self._languages(question, unit, lang.language.code))

    def _languages(self, question: str, unit_id: int, fallback: str) -> tuple[str, str] | None:
        """(the question's language, the unit's) where they differ; None where they agree or cannot be told."""
        material = lang_code(self.material.unit(unit_id).unit.language)
        asked = detect_language(question, fallback) if question.strip() else material
        return (asked, material) if asked != material else None
