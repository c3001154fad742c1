"""One model call inside a run: a fresh client, the request, a trace record, errors re-raised."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..llm.base import ChatMessage, ChatModel, LlmRequest, LlmResponse, Task
from ..llm.config import ModelConfig
from .trace import CallRecord, Trace

ModelFactory = Callable[[ModelConfig], ChatModel]


@dataclass(frozen=True)
class RoleModel:
    """A role resolved for this run: its configuration and the variant it came from."""

    config: ModelConfig
    variant: str


def call_model(
    trace: Trace,
    factory: ModelFactory,
    role: RoleModel,
    task: Task,
    prompt: str,
    inputs: Mapping[str, Any],
    seq: int | None = None,
) -> LlmResponse:
    started = trace.now()
    model = factory(role.config)  # every task its own client: no shared usage counters
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
    except Exception as exc:
        trace.add_call(
            CallRecord(request.task, role.config.id, role.config.model, role.variant, model.offline, prompt, "",
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
