"""The chat pipeline: write the answer, then the FAQ citation pass, then the lecture pass (DESIGN 5)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..contract import SourceRef
from ..errors import CitationStudioError
from ..llm.base import ChatMessage, LlmRequest
from ..llm.config import CHAT_PIPELINE, AppConfig, KeywordStrategy
from ..llm.factory import create_model
from ..material.library import CourseMaterial
from ..pipeline import Citation, CitationPipeline, Failure, Trace
from ..pipeline.languages import choose_language
from ..pipeline.model_calls import ModelFactory, RoleModel, complete_recorded
from ..pipeline.prompts import Prompts
from ..pipeline.trace import ProgressCallback
from ..pipeline.two_pass import cite_both, usage_of
from ..sources import FaqSource, LectureSource
from ..textutil import content_tokens
from .tools import TOOLS, ToolState, passage
from .view import CurrentView, ViewPosition, current_view

MAX_TOOL_ROUNDS = 4
T = TypeVar("T")


class WriterError(CitationStudioError):
    """The answer writer could not produce an answer."""


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

    def usage(self) -> dict[str, Any]:
        return usage_of(list(self.traces.values()))


def citation_json(ref: SourceRef, keyword: str, summary: str) -> dict[str, Any]:
    return {"type": ref.type, "entity_id": ref.entity_id, "page": ref.page, "start": ref.start, "end": ref.end,
            "keyword": keyword, "summary": summary}


def _unique(items: Iterable[T], key: Callable[[T], str]) -> list[T]:
    """Items in order, later ones with an already seen key dropped."""
    seen: set[str] = set()
    out: list[T] = []
    for item in items:
        if key(item) not in seen:
            seen.add(key(item))
            out.append(item)
    return out


def merge_lecture_sources(view: tuple[LectureSource, ...], retrieved: list[LectureSource]) -> list[LectureSource]:
    """Current view first, then retrieved, de-duplicated by uuid."""
    return _unique((*view, *retrieved), lambda s: s.uuid)


def mentioned_unit(material: CourseMaterial, question: str, current: int) -> int | None:
    """Offline stand-in for switch_context: a question that names another unit of the course."""
    q = set(content_tokens(question))
    best: tuple[float, int] | None = None
    for uid, um in material.units.items():
        if uid == current:
            continue
        name = set(content_tokens(um.unit.name))
        if name:
            share = len(name & q) / len(name)
            if share >= 0.6 and (best is None or share > best[0]):
                best = (share, uid)
    return best[1] if best else None


class ChatPipeline:
    def __init__(self, config: AppConfig, prompts: Prompts, material: CourseMaterial,
                 factory: ModelFactory = create_model, keyword_strategy: KeywordStrategy | None = None) -> None:
        self.config = config
        self.prompts = prompts
        self.material = material
        self.factory = factory
        self.citations = CitationPipeline(config, prompts, factory, keyword_strategy)

    def __call__(self, question: str, position: ViewPosition, *, user_language: str | None = None,
                 variant: str = "default", pasted_answer: str | None = None,
                 progress: ProgressCallback | None = None) -> ChatResult:
        view = current_view(self.material, position)
        writer_trace = Trace("chat", progress)
        state = ToolState(self.material)
        lang = choose_language(user_language)
        writer_cfg = self.config.resolve(CHAT_PIPELINE, variant, "chat")
        models = {"writer": f"{writer_cfg.id} ({writer_cfg.model})"}
        if pasted_answer is not None:
            answer = pasted_answer
            writer_trace.info["pasted_answer"] = True
            # a pasted answer replaces the writer, not retrieval: cite what the question retrieves
            state.lecture_retrieval(question)
            state.faq_retrieval(question)
        else:
            answer = self._write(question, view, state, lang.line, lang.language.code, variant, writer_trace)

        switched = state.switched_to is not None and state.switched_to != view.unit_id
        lecture_sources = merge_lecture_sources(() if switched else view.sources, state.retrieved)
        faqs = _unique(state.faqs, lambda f: str(f.id))
        cited = cite_both(self.citations, answer, faqs, lecture_sources,
                          user_language=user_language, variant=self.config.dependency_variant(variant),
                          progress=progress)
        traces: dict[str, Trace] = {"chat": writer_trace, **cited.traces}
        text, citations = cited.answer, list(cited.citations)
        failures = list(cited.failures)
        roles: dict[str, str] = next((t.info["models"] for t in cited.traces.values() if "models" in t.info), {})
        models.update({f"citation {role}": m for role, m in roles.items()})
        return ChatResult(question, text, answer, tuple(citations), view, switched,
                          state.switched_to if switched else None, tuple(failures), traces,
                          tuple(state.retrieved), tuple(faqs), models)

    def _write(self, question: str, view: CurrentView, state: ToolState, line: str, lang: str, variant: str,
               trace: Trace) -> str:
        role = RoleModel(self.config.resolve(CHAT_PIPELINE, variant, "chat"), variant)
        model = self.factory(role.config)
        units = "\n".join(f"{uid}: {um.unit.name}" for uid, um in self.material.units.items())
        prompt = self.prompts.render("writer", line, CourseName=self.material.course.name, Units=units,
                                     CurrentView=view.describe(), Question=question)
        rec = trace.begin("write", question=question, current_view=view.to_json())
        inputs: dict[str, Any] = {}
        if model.offline:
            # The offline writer does not call tools: retrieval runs first and its results are its inputs.
            target = mentioned_unit(self.material, question, view.unit_id)
            if target is not None:
                state.switched_to = target
            state.lecture_retrieval(question, k=4, unit_id=target)
            state.faq_retrieval(question)
            view_json = {} if target is not None else {
                "unit": view.unit_name, "label": view.label, "printed": view.display_page_number,
                "title": view.title, "second": view.second, "text": "\n".join(s.text for s in view.sources)}
            inputs = {"question": question, "language": lang, "view": view_json,
                      "passages": [passage(self.material, s) for s in state.retrieved],
                      "faqs": [{"question": f.question, "answer": f.answer} for f in state.faqs]}
        history: list[dict[str, Any]] = []
        for _round in range(MAX_TOOL_ROUNDS + 1):
            request = LlmRequest("writer", (ChatMessage("system", prompt), ChatMessage("user", question)), inputs,
                                 () if model.offline or _round == MAX_TOOL_ROUNDS else TOOLS, tuple(history))
            try:
                resp = complete_recorded(trace, model, role, request, prompt)
            except Exception as exc:
                trace.end(rec, "failed", error=str(exc))
                raise WriterError(f"answer writer failed: {exc}") from exc
            if not resp.tool_calls:
                trace.end(rec, answer=resp.content, switched_to=state.switched_to,
                          retrieved=[s.uuid for s in state.retrieved])
                return resp.content
            history.append({"role": "assistant", "content": resp.content or None, "tool_calls": [
                {"id": c.id, "type": "function",
                 "function": {"name": c.name, "arguments": json.dumps(c.arguments)}} for c in resp.tool_calls]})
            for call in resp.tool_calls:
                result = state.run(call.name, call.arguments)
                history.append({"role": "tool", "tool_call_id": call.id, "content": result})
        raise WriterError("answer writer: no answer after the tool rounds")

