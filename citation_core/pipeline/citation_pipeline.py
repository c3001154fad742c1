"""The citation pipeline: serialize → place → validate/collect → enrich → rewrite (DESIGN 4.2).

A ``CitationPipeline`` holds only configuration; every call makes a ``Trace`` and keeps all of its
state in local variables, so several runs may share one pipeline object at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..contract import SourceRef
from ..errors import CitationStudioError
from ..llm.config import CITATION_PIPELINE, AppConfig, KeywordStrategy
from ..llm.factory import create_model
from ..sources import FaqSource, LectureSource, Source
from . import enrich as enrich_mod
from . import rewrite as rewrite_mod
from .languages import choose_language
from .model_calls import ModelFactory, RoleModel, call_model
from .placement import Placement, render_insertions, validate_placement
from .prompts import Prompts
from .serialize import Serialized, serialize_faqs, serialize_lecture
from .trace import Failure, ProgressCallback, Trace

PassKind = Literal["lecture", "faq"]


@dataclass(frozen=True)
class Citation:
    seq: int
    ref: SourceRef
    keyword: str
    summary: str
    source: Source
    marker: str  # as written into the answer (final form, or intermediate when not rewritten)


@dataclass(frozen=True)
class CitationResult:
    pass_name: PassKind
    input_answer: str
    answer: str
    placed: str  # the answer with intermediate markers (what placement gave, validated)
    citations: tuple[Citation, ...]
    used_seqs: tuple[int, ...]
    rewritten: bool
    trace: Trace


class PlacementError(CitationStudioError):
    """Placement failed; raised out of the pipeline (the chat pipeline catches it)."""

    def __init__(self, message: str, trace: Trace) -> None:
        super().__init__(message)
        self.trace = trace


class CitationPipeline:
    def __init__(
        self,
        config: AppConfig,
        prompts: Prompts,
        factory: ModelFactory = create_model,
        keyword_strategy: KeywordStrategy | None = None,
    ) -> None:
        self.config = config
        self.prompts = prompts
        self.factory = factory
        self.keyword_strategy: KeywordStrategy = keyword_strategy or config.keyword_strategy

    def __call__(
        self,
        answer: str,
        sources: Sequence[LectureSource] | Sequence[FaqSource],
        *,
        kind: PassKind = "lecture",
        user_language: str | None = None,
        variant: str = "default",
        progress: ProgressCallback | None = None,
    ) -> CitationResult:
        trace = Trace(kind, progress)
        lang = choose_language(user_language)
        if lang.warning:
            trace.warnings.append(lang.warning)
        chat_role = RoleModel(self.config.resolve(CITATION_PIPELINE, variant, "chat"), variant)
        ks_role = RoleModel(self.config.resolve(CITATION_PIPELINE, variant, "keyword_summary"), "default")
        trace.info.update(
            language=lang.language.code, language_line=lang.line, variant=variant,
            keyword_strategy=self.keyword_strategy,
            models={"chat": f"{chat_role.config.id} ({chat_role.config.model})",
                    "keyword_summary": f"{ks_role.config.id} ({ks_role.config.model})"},
        )

        # 1. serialize
        rec = trace.begin("serialize", sources=len(sources))
        ser = (
            serialize_faqs([s for s in sources if isinstance(s, FaqSource)])
            if kind == "faq"
            else serialize_lecture([s for s in sources if not isinstance(s, FaqSource)])
        )
        trace.end(rec, sources_json=ser.json_text, entries=len(ser.entries))
        if not ser.entries:
            return CitationResult(kind, answer, answer, answer, (), (), False, trace)

        # 2. place (a failure here is raised to the caller)
        placement = self._place(trace, answer, ser, lang.line, chat_role, kind)

        # 3. collect
        rec = trace.begin("collect")
        used = placement.used_seqs
        intermediate = render_insertions(answer, placement.insertions, {e.seq: e.marker for e in ser.entries})
        trace.end(rec, used_sequence_numbers=list(used), placed_answer=intermediate)
        if not used:
            return CitationResult(kind, answer, answer, answer, (), (), False, trace)

        entries = ser.by_seq()
        try:
            # 4. enrich
            rec = trace.begin("enrich", used=len(used), strategy=self.keyword_strategy)
            ctx = enrich_mod.EnrichContext(trace, self.prompts, lang.line, ks_role, self.factory,
                                           self.keyword_strategy)
            enr = enrich_mod.enrich(ctx, [entries[s] for s in used])
            trace.end(rec, keywords={str(k): v for k, v in enr.keywords.items()},
                      summaries={str(k): v for k, v in enr.summaries.items()})
            # 5. rewrite
            rec = trace.begin("rewrite")
            finals = rewrite_mod.final_markers(entries, used, enr)
            final = render_insertions(answer, placement.insertions, finals)
            trace.end(rec, answer=final)
        except Exception as exc:
            trace.fail(Failure("enrichment_or_rewrite", f"unexpected error: {type(exc).__name__}: {exc}", None,
                               "returned the placement result with its !seq markers"))
            trace.emit("rewrite", "failed", str(exc))
            cites = tuple(Citation(s, entries[s].ref, "", "", entries[s].source, entries[s].marker) for s in used)
            return CitationResult(kind, answer, intermediate, intermediate, cites, used, False, trace)
        cites = tuple(
            Citation(s, entries[s].ref, enr.keywords.get(s, ""), enr.summaries.get(s, ""), entries[s].source, finals[s])
            for s in used
        )
        return CitationResult(kind, answer, final, intermediate, cites, used, True, trace)

    def _place(self, trace: Trace, answer: str, ser: Serialized, line: str, role: RoleModel,
               kind: PassKind) -> Placement:
        rec = trace.begin("place")
        prompt = self.prompts.render(f"placement_{kind}", line, Paragraphs=ser.json_text, Answer=answer)
        inputs = {"answer": answer, "sources": [{"id": e.marker, "content": e.content} for e in ser.entries]}
        try:
            resp = call_model(trace, self.factory, role, "placement", prompt, inputs)
        except Exception as exc:
            trace.end(rec, "failed", error=str(exc))
            trace.fail(Failure("placement", f"placement failed: {exc}", None, "raised to the chat pipeline"))
            raise PlacementError(f"citation placement failed: {exc}", trace) from exc
        trace.end(rec, prompt=prompt, raw_output=resp.content)
        vrec = trace.begin("validate")
        placement = validate_placement(answer, resp.content, {e.marker: e.seq for e in ser.entries})
        trace.end(vrec, removed_markers=list(placement.removed_markers), text_changed=placement.text_changed,
                  reanchored=list(placement.reanchored), dropped=list(placement.dropped),
                  moved_out_of_code=list(placement.moved_out_of_code))
        if placement.removed_markers or placement.dropped or placement.text_changed:
            trace.fail(Failure(
                "validation",
                f"placement output corrected: {len(placement.removed_markers)} unknown id(s) removed, "
                f"text changed: {placement.text_changed}, {len(placement.dropped)} marker(s) dropped",
                None, "answer text kept exactly as written",
            ))
        return placement
