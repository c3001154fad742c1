"""Answer writers behind one interface: the extractive offline writer and the tool-calling LLM writer.

A writer gets the turn's ``WriterTurn`` (question, current view, tools state, prompt, trace) and returns
the answer text. Which one serves a turn follows the model configured for the chat pipeline's role.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..errors import ModelCallError, StreamCutError, WriterError
from ..limits import MAX_ANSWER_CHARS
from ..llm.base import ChatMessage, LlmRequest
from ..llm.offline import OfflineModel
from ..material.library import CourseMaterial
from ..pipeline.model_calls import RoleModel, complete_recorded
from ..pipeline.trace import Trace
from ..sources import FaqSource, LectureSource, TranscriptSegment
from ..text import conflate, content_tokens, detect_language, terms
from .offline_writer import write_answer
from .tools import TOOLS, ToolState, course_rarity, passage, place_of
from .view import CurrentView, segments_around

MAX_TOOL_ROUNDS = 4


@dataclass(frozen=True)
class WriterTurn:
    question: str
    view: CurrentView
    state: ToolState
    prompt: str  # the rendered system prompt
    language: str  # language code
    trace: Trace
    history: tuple[tuple[str, str], ...] = ()  # earlier (question, answer) turns, oldest first, without markers
    on_delta: Callable[[str], None] | None = None  # the answer's text piece by piece as it is written

    def context(self, turns: int = 2) -> str:
        """The recent turns as retrieval context: their questions and the start of their answers."""
        return " ".join(f"{q} {a[:300]}" for q, a in self.history[-turns:])

    def messages(self) -> tuple[ChatMessage, ...]:
        """System prompt, the conversation so far, then the question."""
        earlier = tuple(m for q, a in self.history for m in (ChatMessage("user", q), ChatMessage("assistant", a)))
        return (ChatMessage("system", self.prompt), *earlier, ChatMessage("user", self.question))


class AnswerWriter(Protocol):
    def write(self, turn: WriterTurn) -> str: ...


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


RANKED_K = 10  # passages the offline writer reads from each ranking (the open unit's, the course's)


class ExtractiveWriter:
    """Offline: retrieval runs first, then the extractive writer answers from the view and the passages."""

    def __init__(self, role: RoleModel) -> None:
        self.role = role

    def write(self, turn: WriterTurn) -> str:
        state, view = turn.state, turn.view
        target = mentioned_unit(state.material, turn.question, view.unit_id)
        if target is not None:
            state.switched_to = target
        context = turn.context()
        view_json = {} if target is not None else self._view(state, view)
        # one ranking (retrieval's fusion of BM25 and meaning) in two scopes: the open unit's passages, best
        # first, then the course's; the writer answers from the open unit unless only another unit answers
        # (``offline_writer.write_answer``), and says so when it goes elsewhere
        here = [] if target is not None else state.lecture_retrieval(turn.question, k=RANKED_K, unit_id=view.unit_id,
                                                                     context=context)
        course = state.lecture_retrieval(turn.question, k=RANKED_K, unit_id=target, context=context)
        state.faq_retrieval(turn.question)
        rarity = course_rarity(state.material, target if target is not None else view.unit_id)
        everywhere = course_rarity(state.material)
        asked_text = " ".join([turn.question, *(f"{q} {a[:600]}" for q, a in turn.history[-2:])])
        lang = detect_language(turn.question, turn.language)
        asked = {conflate(t, rarity, lang) for t in terms(asked_text, lang)}
        ranked = list({s.uuid: s for s in [*here, *course]}.values())
        inputs = {"question": turn.question, "language": turn.language, "view": view_json,
                  "history": [list(h) for h in turn.history],
                  "rarity": {t: rarity[t] for t in asked if t in rarity},
                  "course_rarity": {t: everywhere[t] for t in asked if t in everywhere},
                  "unit_name": state.material.unit(target if target is not None else view.unit_id).unit.name,
                  "passages": [self._passage(state, s) for s in ranked],
                  "course_ranked": [s.uuid for s in course],
                  "faqs": [_handled(state, {"question": f.question, "answer": f.answer}, f) for f in state.faqs]}
        model = OfflineModel(self.role.model_id, self.role.model_name, writer=write_answer)
        request = LlmRequest("writer", turn.messages(), inputs)
        answer = capped(complete_recorded(turn.trace, model, self.role, request, turn.prompt).content, turn.trace)
        if turn.on_delta is not None and answer:
            turn.on_delta(answer)  # written at once: one piece
        return answer

    @staticmethod
    def _passage(state: ToolState, src: LectureSource) -> dict[str, Any]:
        """A passage as the offline writer reads it: a transcript cue with the slide on screen while it is
        spoken (``shown``), which is then retrieved too, so that the answer can cite it."""
        out = _handled(state, passage(state.material, src), src)
        if isinstance(src, TranscriptSegment) and src.page_number is not None:
            um = state.material.unit(int(src.lecture_unit_id))
            shown = [c for c in um.chunks if c.page_number == src.page_number]
            if shown:
                state.retrieved.extend(c for c in shown if c not in state.retrieved)
                out["shown"] = _handled(state, passage(state.material, shown[0]), shown[0])
        return out

    @staticmethod
    def _view(state: ToolState, view: CurrentView) -> dict[str, Any]:
        """The open slide, or the transcript around the open second with the slide shown then. What the
        writer reads here is added to what the turn retrieved, so that the answer can be cited from it."""
        material = state.material
        um = material.unit(view.unit_id)
        out: dict[str, Any] = {"unit": view.unit_name, "label": view.label, "printed": view.display_page_number,
                               "title": view.title, "second": view.second, "language": um.unit.language,
                               **(place_of(um, view.page) if view.page is not None else {})}
        if view.second is None:
            if view.sources:
                first = passage(material, view.sources[0])
                out.update(kind="slide", uuid=view.sources[0].uuid, filler=first.get("filler", False),
                           text="\n".join(str(passage(material, s)["text"]) for s in view.sources))
                _handled(state, out, *view.sources)
            return out
        window = segments_around(um, view.second)
        state.retrieved.extend(window)
        out.update(kind="video", no_video=um.unit.video is None, uuid=window[0].uuid if window else None,
                   start=window[0].start if window else view.second, text=" ".join(s.text for s in window))
        if state.registry is not None:  # a window of cues: each quoted cue is cited
            out["cues"] = [{"cite": state.handle(s), "text": s.text} for s in window]
        shown = [c for c in um.chunks if c.page_number == view.page] if view.page is not None else []
        if shown:
            state.retrieved.extend(shown)
            out["shown"] = _handled(state, passage(material, shown[0]), shown[0])
        return out


def _handled(state: ToolState, item: dict[str, Any], *sources: LectureSource | FaqSource) -> dict[str, Any]:
    """``item`` with ``cite``: the handles of ``sources`` (the chunks of one page share one), when the turn
    cites inline; the extractive writer puts it behind what it quotes of them."""
    handles = [h for h in dict.fromkeys(state.handle(s) for s in sources) if h is not None]
    if handles:
        item["cite"] = "".join(handles)
    return item


class ToolCallingWriter:
    """An LLM with the lecture_retrieval, faq_retrieval and switch_context tools, a few rounds at most.

    The answer is the text of every round, the rounds that end in tool calls included ("Let me look at the
    slides." before a lecture_retrieval call): a reader saw that text while it streamed, and it is kept as
    written, a paragraph break between the rounds (``joined``). Streamed or not, the answer is the same.
    """

    def __init__(self, role: RoleModel) -> None:
        self.role = role

    def write(self, turn: WriterTurn) -> str:
        model = self.role.make()
        history: list[dict[str, Any]] = []
        earlier = ""  # the text of the rounds so far, as the reader got it
        this_round: list[str] = []  # the pieces of this round's text handed on
        sent = [0]  # characters of the answer handed on so far
        forward = turn.on_delta

        def hand_on(text: str) -> None:
            if forward is not None and text:
                sent[0] += len(text)
                forward(text)

        def piece(text: str) -> None:
            if not this_round and text:
                hand_on(joined(earlier, text)[len(earlier):-len(text)])  # the break between the rounds
            this_round.append(text)
            hand_on(text)

        for round_ in range(MAX_TOOL_ROUNDS + 1):
            request = LlmRequest("writer", turn.messages(), {}, () if round_ == MAX_TOOL_ROUNDS else TOOLS,
                                 tuple(history), on_delta=piece if forward is not None else None,
                                 max_chars=MAX_ANSWER_CHARS)
            this_round.clear()
            try:
                resp = complete_recorded(turn.trace, model, self.role, request, turn.prompt)
            except StreamCutError as exc:
                answer = joined(earlier, exc.partial)
                if not answer.strip():
                    raise
                return _cut(answer, str(exc), turn.trace)
            text = joined(earlier, resp.content)
            if resp.cut_by_length:  # the model ran out of output tokens: what it wrote is a cut answer
                if not text.strip():
                    raise ModelCallError(f"model {resp.model_id}: the model stopped at its length limit "
                                         "(finish_reason “length”) before it wrote any answer")
                answer = _cut(text, f"model {resp.model_id}: {LENGTH_CUT} (finish_reason “length”); the "
                              f"{len(text):,} characters it wrote are kept", turn.trace)
                hand_on(answer[sent[0]:])  # what was not streamed: at once
                return answer
            if not resp.tool_calls:
                answer = capped(text, turn.trace)
                hand_on(answer[sent[0]:])  # what was not streamed (a model that does not stream): at once
                return answer
            earlier = text
            hand_on(earlier[sent[0]:])
            history.append({"role": "assistant", "content": resp.content or None, "tool_calls": [
                {"id": c.id, "type": "function",
                 "function": {"name": c.name, "arguments": json.dumps(c.arguments)}} for c in resp.tool_calls]})
            for call in resp.tool_calls:
                history.append({"role": "tool", "tool_call_id": call.id, "content": turn.state.run(call.name,
                                                                                                   call.arguments)})
        raise WriterError("answer writer: no answer after the tool rounds")


LENGTH_CUT = "the answer was cut by the model's length limit"


def _cut(text: str, why: str, trace: Trace) -> str:
    """A writer's reply that ended before its end (a stream cut short, the model's length limit): the answer
    is what arrived (up to ``MAX_ANSWER_CHARS``), cited as it is, and the cut is noted in ``trace`` (the turn
    reports it as a ``writer`` failure)."""
    trace.info["cut"] = why
    return capped(text, trace)


ROUND_BREAK = "\n\n"


def joined(earlier: str, text: str) -> str:
    """The text of a writer's round after the text of its earlier rounds, a paragraph break between them."""
    if not earlier.strip() or not text:
        return earlier + text
    newlines = len(earlier) - len(earlier.rstrip("\n"))
    return earlier + ROUND_BREAK[min(newlines, len(ROUND_BREAK)):] + text


def capped(answer: str, trace: Trace, what: str = "the answer") -> str:
    """``answer`` up to ``MAX_ANSWER_CHARS``: a longer one is cut there, and the cut noted in ``trace`` (the
    turn reports it as a ``writer`` failure)."""
    if len(answer) <= MAX_ANSWER_CHARS:
        return answer
    trace.info["cut"] = (f"{what} has {len(answer):,} characters, more than the limit of {MAX_ANSWER_CHARS:,} "
                         "characters (MAX_ANSWER_CHARS): cut there")
    return answer[:MAX_ANSWER_CHARS]


def writer_for(role: RoleModel) -> AnswerWriter:
    return ExtractiveWriter(role) if role.offline else ToolCallingWriter(role)


def write(writer: AnswerWriter, turn: WriterTurn) -> str:
    """Run ``writer`` inside a traced "write" phase; a failed model call becomes ``WriterError``."""
    rec = turn.trace.begin("write", question=turn.question, current_view=turn.view.to_json())
    try:
        answer = capped(writer.write(turn), turn.trace)
    except ModelCallError as exc:
        turn.trace.end(rec, "failed", error=str(exc))
        raise WriterError(f"answer writer failed: {exc}") from exc
    except WriterError as exc:
        turn.trace.end(rec, "failed", error=str(exc))
        raise
    turn.trace.end(rec, answer=answer, switched_to=turn.state.switched_to,
                   retrieved=[s.uuid for s in turn.state.retrieved])
    return answer
