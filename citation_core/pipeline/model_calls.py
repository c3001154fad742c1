"""The models of a run's roles, and the model calls inside a run: one call (a fresh client, the request, a
trace record), or many at once (``run_tasks``: a fan-out whose requests leave together)."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import ModelCallError
from ..llm.base import ChatMessage, ChatModel, ChatSession, LlmRequest, LlmResponse, SessionModel, Task
from ..llm.config import OFFLINE_MODEL, ModelConfig
from ..llm.factory import create_model
from .trace import CallRecord, Trace

if TYPE_CHECKING:
    import asyncio

ModelFactory = Callable[[ModelConfig], ChatModel]
# What a role can be given: a configured model (a fresh client per task), a model object, or None (offline).
ModelLike = ModelConfig | ChatModel | None


@dataclass(frozen=True)
class RoleModel:
    """The model serving one role of a run: how to make its client for a task, and what the trace calls it."""

    model_id: str
    model_name: str
    offline: bool
    make: Callable[[], ChatModel]
    variant: str = "default"
    # what the model was made from (its configuration or the given object): roles with the same key are
    # served by one session of a pass's ``ModelCalls``
    key: object = None

    @staticmethod
    def of(model: ModelLike, variant: str = "default", factory: ModelFactory = create_model) -> RoleModel:
        config = OFFLINE_MODEL if model is None else model
        if isinstance(config, ModelConfig):
            cfg = config
            return RoleModel(cfg.id, cfg.model, cfg.type == "offline", lambda: factory(cfg), variant, (cfg, factory))
        given = config
        return RoleModel(given.model_id, given.model_name, given.offline, lambda: given, variant, id(given))

    @property
    def label(self) -> str:
        return f"{self.model_id} ({self.model_name})"


@dataclass(frozen=True)
class Deadline:
    """When a whole citation stage must be done (``time.monotonic()``); no deadline when ``at`` is None."""

    at: float | None = None
    seconds: float | None = None

    @staticmethod
    def after(seconds: float | None) -> Deadline:
        return Deadline(None if seconds is None else time.monotonic() + seconds, seconds)

    def remaining(self) -> float | None:
        return None if self.at is None else self.at - time.monotonic()

    def check(self) -> float | None:
        """Seconds left; raises ``ModelCallError`` when none are."""
        left = self.remaining()
        if left is not None and left <= 0:
            raise ModelCallError(f"the citation deadline of {self.seconds:g} s was reached; this call was not made")
        return left


NO_DEADLINE = Deadline()


def call_model(
    trace: Trace,
    role: RoleModel,
    task: Task,
    prompt: str,
    inputs: Mapping[str, Any],
    seq: int | None = None,
    deadline: Deadline = NO_DEADLINE,
) -> LlmResponse:
    started = trace.now()
    model = role.make()  # every task its own client: no shared usage counters
    request = _request(trace, role, model.offline, ModelCall(task, prompt, inputs, seq), deadline, started)
    return complete_recorded(trace, model, role, request, prompt, seq, started)


def complete_recorded(
    trace: Trace,
    model: ChatModel,
    role: RoleModel,
    request: LlmRequest,
    prompt: str,
    seq: int | None = None,
    started: float | None = None,
) -> LlmResponse:
    """``model.complete(request)`` with a trace record of the call (also of a failed one); errors re-raised."""
    started = trace.now() if started is None else started
    try:
        resp = model.complete(request)
    except BaseException as exc:
        _record_failure(trace, role, model.offline, request, prompt, seq, started, exc)
        raise
    _record(trace, role, model.offline, request, resp, prompt, seq, started)
    return resp


def _request(trace: Trace, role: RoleModel, offline: bool, call: ModelCall, deadline: Deadline,
             started: float) -> LlmRequest:
    """The request of ``call``, bounded by what is left of ``deadline``; a call past it is recorded and refused."""
    request = LlmRequest(call.task, (ChatMessage("user", call.prompt),), call.inputs)
    try:
        left = deadline.check()
    except ModelCallError as exc:
        trace.add_call(CallRecord(call.task, role.model_id, role.model_name, role.variant, offline, call.prompt, "",
                                  started, 0.0, 0, 0, 0.0, True, call.seq, str(exc)))
        raise
    return request if left is None else dataclasses.replace(request, timeout=left)


def _record_failure(trace: Trace, role: RoleModel, offline: bool, request: LlmRequest, prompt: str,
                    seq: int | None, started: float, exc: BaseException) -> None:
    trace.add_call(
        CallRecord(request.task, role.model_id, role.model_name, role.variant, offline, prompt, "",
                   started, trace.now() - started, 0, 0, 0.0, True, seq, str(exc) or type(exc).__name__)
    )


def _record(trace: Trace, role: RoleModel, offline: bool, request: LlmRequest, resp: LlmResponse, prompt: str,
            seq: int | None, started: float) -> None:
    u = resp.usage
    output = resp.content or json.dumps([c.name for c in resp.tool_calls])
    trace.add_call(
        CallRecord(request.task, resp.model_id, resp.model_name, role.variant, offline, prompt, output,
                   started, trace.now() - started, u.prompt_tokens, u.completion_tokens, u.cost, u.estimated, seq)
    )


# --- the calls of a pass -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ModelCall:
    """One model call: its task name, rendered prompt, inputs (for the offline model) and source."""

    task: Task
    prompt: str
    inputs: Mapping[str, Any]
    seq: int | None = None


T = TypeVar("T")
ModelTask = Generator[ModelCall, LlmResponse, T]
"""A task of a fan-out, written once for every way of running it: it yields each ``ModelCall`` it needs
and gets the response back (``resp = yield call``), or the call's ``ModelCallError`` raised at that
``yield``; it returns its result. A chain (each call seeing the replies before it) is a loop of yields."""


class ModelCalls:
    """How one citation pass calls its models, from the one thread that runs the pass.

    A model that can open a session (``openai_chat``) is called through one session per model, in one
    event loop of the pass: first the placement call, then all keyword and summary tasks at once
    (``run``), so their requests leave together (an ``openai_chat`` session sends them through the
    process's one client of that model configuration, whose connections the placement call, earlier
    passes and other calls left open). The loop and sessions are made at the first such call and closed
    by ``close`` when the pass ends. Every other model (offline, scripted, a given ``ChatModel``)
    is called as ``call_model`` does: a fresh client per call, a thread per task.

    Never shared between threads: two passes at once run in two threads, each with its own. When the
    pass's thread already runs an event loop (async code called the pipeline), every model is called
    the thread way.
    """

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sessions: dict[object, ChatSession] = {}
        self._closed = False

    def __enter__(self) -> ModelCalls:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def call(self, trace: Trace, role: RoleModel, call: ModelCall, deadline: Deadline = NO_DEADLINE) -> LlmResponse:
        """One model call, recorded in ``trace``; raises ``ModelCallError`` when it fails."""
        return self.run(trace, role, [_single(call)], deadline)[0]

    def run(self, trace: Trace, role: RoleModel, tasks: Sequence[ModelTask[T]], deadline: Deadline = NO_DEADLINE,
            ) -> list[T]:
        """Run ``tasks`` side by side; their results in order. Errors other than ``ModelCallError`` propagate
        (and a ``ModelCallError`` a task does not catch)."""
        if not tasks:
            return []
        model = role.make()
        loop = self._event_loop() if isinstance(model, SessionModel) else None
        if loop is not None and isinstance(model, SessionModel):
            key = role.key if role.key is not None else ("role", id(role))
            session = self._sessions.get(key)
            if session is None:
                session = self._sessions[key] = model.open_session()
            return loop.run_until_complete(_gather(trace, role, model.offline, session, tasks, deadline))
        return _run_threads(trace, role, model, tasks, deadline)

    def _event_loop(self) -> asyncio.AbstractEventLoop | None:
        """The pass's loop (made now if need be); None when this thread runs a loop of its own already."""
        if self._closed:
            raise RuntimeError("these model calls are closed")
        if self._loop is None:
            import asyncio  # loaded only for a session model: the offline path and the CLI never need it

            try:
                asyncio.get_running_loop()
            except RuntimeError:
                self._loop = asyncio.new_event_loop()
            else:
                return None
        return self._loop

    def close(self) -> None:
        """Close the sessions and the loop (idempotent)."""
        self._closed = True
        loop, self._loop = self._loop, None
        sessions, self._sessions = list(self._sessions.values()), {}
        if loop is None:
            return
        try:
            for session in sessions:
                loop.run_until_complete(session.aclose())
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()  # its idle worker threads (if a client used any) end on their own


def _single(call: ModelCall) -> ModelTask[LlmResponse]:
    return (yield call)


def _run_threads(trace: Trace, role: RoleModel, model: ChatModel, tasks: Sequence[ModelTask[T]],
                 deadline: Deadline) -> list[T]:
    unused = [model]  # the model made to look at serves the first call; every other call makes its own

    def call(step: ModelCall) -> LlmResponse:
        started = trace.now()
        try:
            fresh = unused.pop()
        except IndexError:
            fresh = role.make()
        request = _request(trace, role, fresh.offline, step, deadline, started)
        return complete_recorded(trace, fresh, role, request, step.prompt, step.seq, started)

    if len(tasks) == 1:
        return [_drive(tasks[0], call)]
    with ThreadPoolExecutor(max_workers=min(len(tasks), 33), thread_name_prefix="model-task") as pool:
        futures = [pool.submit(_drive, task, call) for task in tasks]
        return [f.result() for f in futures]


def _drive(task: ModelTask[T], call: Callable[[ModelCall], LlmResponse]) -> T:
    """Run one task to its end in this thread, making each call it asks for with ``call``."""
    try:
        step = next(task)
        while True:
            try:
                resp = call(step)
            except ModelCallError as exc:
                step = task.throw(exc)
            else:
                step = task.send(resp)
    except StopIteration as done:
        result: T = done.value
        return result


async def _gather(trace: Trace, role: RoleModel, offline: bool, session: ChatSession,
                  tasks: Sequence[ModelTask[T]], deadline: Deadline) -> list[T]:
    import asyncio

    jobs = [asyncio.ensure_future(_drive_async(trace, role, offline, session, task, deadline)) for task in tasks]
    try:
        return list(await asyncio.gather(*jobs))
    except BaseException:
        for job in jobs:  # one task broke: the others stop too
            job.cancel()
        await asyncio.gather(*jobs, return_exceptions=True)
        raise


async def _drive_async(trace: Trace, role: RoleModel, offline: bool, session: ChatSession, task: ModelTask[T],
                       deadline: Deadline) -> T:
    """``_drive`` in the event loop: every call of the task goes through the pass's session of the model."""
    try:
        step = next(task)
        while True:
            started = trace.now()
            try:
                request = _request(trace, role, offline, step, deadline, started)
                try:
                    resp = await session.complete(request)
                except BaseException as exc:
                    _record_failure(trace, role, offline, request, step.prompt, step.seq, started, exc)
                    raise
                _record(trace, role, offline, request, resp, step.prompt, step.seq, started)
            except ModelCallError as exc:
                step = task.throw(exc)
            else:
                step = task.send(resp)
    except StopIteration as done:
        result: T = done.value
        return result
