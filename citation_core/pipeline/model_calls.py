"""One model call inside a run: a fresh client, the request, a trace record, errors re-raised."""

from __future__ import annotations

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
    try:
        resp = model.complete(request)
    except Exception as exc:
        trace.add_call(
            CallRecord(task, role.config.id, role.config.model, role.variant, model.offline, prompt, "",
                       started, trace.now() - started, 0, 0, 0.0, True, seq, str(exc) or type(exc).__name__)
        )
        raise
    u = resp.usage
    trace.add_call(
        CallRecord(task, resp.model_id, resp.model_name, role.variant, model.offline, prompt, resp.content,
                   started, trace.now() - started, u.prompt_tokens, u.completion_tokens, u.cost, u.estimated, seq)
    )
    return resp
