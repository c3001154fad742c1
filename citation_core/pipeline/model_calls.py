"""The models of a run's roles, and one model call inside a run: a fresh client, the request, a trace record."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ModelCallError
from ..llm.base import ChatMessage, ChatModel, LlmRequest, LlmResponse, Task
from ..llm.config import OFFLINE_MODEL, ModelConfig
from ..llm.factory import create_model
from .trace import CallRecord, Trace

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

    @staticmethod
    def of(model: ModelLike, variant: str = "default", factory: ModelFactory = create_model) -> RoleModel:
        config = OFFLINE_MODEL if model is None else model
        if isinstance(config, ModelConfig):
            cfg = config
            return RoleModel(cfg.id, cfg.model, cfg.type == "offline", lambda: factory(cfg), variant)
        given = config
        return RoleModel(given.model_id, given.model_name, given.offline, lambda: given, variant)

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
    request = LlmRequest(task, (ChatMessage("user", prompt),), inputs)
    try:
        left = deadline.check()
    except ModelCallError as exc:
        trace.add_call(CallRecord(task, role.model_id, role.model_name, role.variant, model.offline, prompt, "",
                                  started, 0.0, 0, 0, 0.0, True, seq, str(exc)))
        raise
    if left is not None:
        request = dataclasses.replace(request, timeout=left)
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
        trace.add_call(
            CallRecord(request.task, role.model_id, role.model_name, role.variant, model.offline, prompt, "",
                       started, trace.now() - started, 0, 0, 0.0, True, seq, str(exc) or type(exc).__name__)
        )
        raise
    u = resp.usage
    output = resp.content or json.dumps([c.name for c in resp.tool_calls])
    trace.add_call(
        CallRecord(request.task, resp.model_id, resp.model_name, role.variant, model.offline, prompt, output,
                   started, trace.now() - started, u.prompt_tokens, u.completion_tokens, u.cost, u.estimated, seq)
    )
    return resp
