"""The models of a run's roles, and one model call inside a run: a fresh client, the request, a trace record."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

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


def call_model(
    trace: Trace,
    role: RoleModel,
    task: Task,
    prompt: str,
    inputs: Mapping[str, Any],
    seq: int | None = None,
) -> LlmResponse:
    started = trace.now()
    model = role.make()  # every task its own client: no shared usage counters
    request = LlmRequest(task, (ChatMessage("user", prompt),), inputs)
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
