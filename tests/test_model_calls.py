"""How a pass calls a model that can open a session (``openai_chat``): one event loop and one async client
for all its calls, in the thread that runs the pass; every other model as before, a thread per task.

``SessionOffline`` is such a model in process: its session answers as the offline model does and records
the thread and event loop of every call, so the tests need no network and no timing.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field

import pytest

from citation_core.errors import ModelCallError
from citation_core.llm.base import ChatSession, LlmRequest, LlmResponse, SessionModel
from citation_core.llm.config import KeywordStrategy, ModelConfig
from citation_core.llm.offline import OfflineModel
from citation_core.llm.openai_chat import OpenAIChatModel
from citation_core.pipeline import CitationPipeline
from citation_core.sources import Sources
from citation_core.testing import LocalChatServer, ScriptedModel, echo_handler

from .fakes import ANSWER, EXAM, LATE, MERGE, MERGE_STEP, TREE

FAQ_ANSWER = ANSWER + " The final exam is open book and printed notes are allowed."


@dataclass
class Call:
    task: str
    thread: int
    loop: asyncio.AbstractEventLoop  # the object, not its id: the id of a closed, collected loop is reused


@dataclass
class Session:
    model: SessionOffline
    calls: list[Call] = field(default_factory=list)
    closed: int = 0

    async def complete(self, request: LlmRequest) -> LlmResponse:
        self.calls.append(Call(request.task, threading.get_ident(), asyncio.get_running_loop()))
        return self.model.inner.complete(request)

    async def aclose(self) -> None:
        self.closed += 1


class SessionOffline:
    """The offline model's answers through sessions; its sync ``complete`` counts the calls made without one."""

    model_id = "session-offline"
    model_name = "session-offline-1"
    offline = False

    def __init__(self) -> None:
        self.inner = OfflineModel()
        self.sessions: list[Session] = []
        self.sync_calls: list[str] = []
        self._lock = threading.Lock()

    def complete(self, request: LlmRequest) -> LlmResponse:
        with self._lock:
            self.sync_calls.append(request.task)
        return self.inner.complete(request)

    def open_session(self) -> ChatSession:
        session = Session(self)
        with self._lock:
            self.sessions.append(session)
        return session


def test_the_fake_is_a_session_model_and_the_offline_model_is_not() -> None:
    assert isinstance(SessionOffline(), SessionModel)
    assert not isinstance(OfflineModel(), SessionModel)
    assert not isinstance(ScriptedModel({}), SessionModel)


@pytest.mark.parametrize("strategy", ["batched", "sequential"])
def test_a_pass_makes_all_its_calls_through_one_session_in_one_loop_of_its_thread(strategy: KeywordStrategy) -> None:
    model = SessionOffline()
    result = CitationPipeline(model, keyword_strategy=strategy).run_pass(ANSWER, [MERGE, MERGE_STEP, TREE])

    (session,) = model.sessions  # placement and enrichment: one client
    assert model.sync_calls == []
    keyword_calls = ["keywords_batched"] if strategy == "batched" else ["keyword"] * 3
    assert sorted(c.task for c in session.calls) == sorted(["placement", *keyword_calls, "summary", "summary",
                                                            "summary"])
    assert {c.thread for c in session.calls} == {threading.get_ident()}  # the thread that ran the pass
    assert len({c.loop for c in session.calls}) == 1
    assert session.closed == 1  # closed when the pass ended
    # the same citations as the offline model gives without a session
    plain = CitationPipeline(keyword_strategy=strategy).run_pass(ANSWER, [MERGE, MERGE_STEP, TREE])
    assert result.answer == plain.answer and result.trace.failures == []
    assert len(result.trace.calls) == len(session.calls)


def test_two_passes_at_once_each_have_their_own_loop_and_client() -> None:
    model = SessionOffline()
    result = CitationPipeline(model, pass_order="parallel")(FAQ_ANSWER, Sources((MERGE, MERGE_STEP, TREE),
                                                                                (EXAM, LATE)))
    assert set(result.traces) == {"faq", "lecture"}
    assert len(model.sessions) == 2 and all(s.closed == 1 for s in model.sessions)
    threads = [{c.thread for c in s.calls} for s in model.sessions]
    loops = [{id(c.loop) for c in s.calls} for s in model.sessions]
    # each pass runs in a worker thread, all its calls in one loop of its own (a worker may serve both passes
    # in turn when the first ends before the second starts: thread ids are not compared)
    assert all(len(t) == 1 for t in threads) and threading.get_ident() not in threads[0] | threads[1]
    assert all(len(lp) == 1 for lp in loops) and loops[0] != loops[1]
    assert model.sync_calls == []


def test_called_from_async_code_the_pass_uses_no_loop_of_its_own() -> None:
    """A thread that runs an event loop already cannot run the pass's: the model is called without a session."""
    model = SessionOffline()

    async def caller() -> str:
        return CitationPipeline(model).run_pass(ANSWER, [MERGE, MERGE_STEP, TREE]).answer

    answer = asyncio.run(caller())
    assert model.sessions == []
    assert sorted(model.sync_calls) == ["keywords_batched", "placement", "summary", "summary", "summary"]
    assert answer == CitationPipeline().run_pass(ANSWER, [MERGE, MERGE_STEP, TREE]).answer


def test_a_failing_summary_in_the_session_leaves_the_others() -> None:
    class OneBadSummary(SessionOffline):
        def open_session(self) -> ChatSession:
            session = super().open_session()
            inner = session.complete

            async def complete(request: LlmRequest) -> LlmResponse:
                if request.task == "summary" and "recursion tree" in request.messages[0].content:
                    raise ModelCallError("HTTP 500")
                return await inner(request)

            session.complete = complete  # type: ignore[method-assign]
            return session

    model = OneBadSummary()
    result = CitationPipeline(model).run_pass(ANSWER, [MERGE, MERGE_STEP, TREE])
    assert [f.kind for f in result.trace.failures] == ["summary"]
    assert [c.summary == "" for c in result.citations] == [c.source is TREE for c in result.citations]
    assert model.sessions[0].closed == 1


@pytest.mark.parametrize("key", ["sk-test-123", None])
def test_openai_chat_sends_the_key_as_bearer_token_with_and_without_a_session(
        monkeypatch: pytest.MonkeyPatch, key: str | None) -> None:
    if key is None:
        monkeypatch.delenv("CITATION_TEST_KEY", raising=False)
    else:
        monkeypatch.setenv("CITATION_TEST_KEY", key)
    request = LlmRequest("summary", ())
    with LocalChatServer(echo_handler) as srv:
        model = OpenAIChatModel(ModelConfig("m", "openai_chat", "local-model", base_url=srv.base_url,
                                            api_key_env="CITATION_TEST_KEY", max_retries=0))
        model.complete(request)

        async def through_a_session() -> None:
            session = model.open_session()
            try:
                await session.complete(LlmRequest("keyword", (), timeout=5.0))
            finally:
                await session.aclose()

        asyncio.run(through_a_session())
        recorded = srv.requests
    assert [r.task for r in recorded] == ["summary", "keyword"]
    assert {r.headers.get("authorization") for r in recorded} == {f"Bearer {key or 'not-needed'}"}
    assert all(r.body["model"] == "local-model" for r in recorded)
