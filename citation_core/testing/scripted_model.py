"""An in-process model that is told its replies, task by task."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TypeAlias, TypeGuard, get_args

from ..errors import ModelCallError
from ..llm.base import LlmRequest, LlmResponse, Task, Usage, estimate_tokens

__all__ = ["ScriptedModel", "ScriptedReplies", "ScriptedReply"]

SingleReply: TypeAlias = str | Exception | Callable[[LlmRequest], str]
ScriptedReply: TypeAlias = SingleReply | Sequence[SingleReply]
"""A reply text; an exception to raise; a function of the request that returns the reply text; or a
list of these, used one per call in order (a call after the last one fails)."""
ScriptedReplies: TypeAlias = Mapping[str, ScriptedReply]
"""Task name -> its scripted reply."""

TASKS: frozenset[str] = frozenset(get_args(Task))


def _is_single(reply: object) -> TypeGuard[SingleReply]:
    # an exception class is callable too, but it is meant to be raised: it is refused
    return isinstance(reply, str | Exception) or (callable(reply) and not isinstance(reply, type))


class ScriptedModel:
    """A ``ChatModel`` that answers each task as it was told.

    ``ScriptedModel({"placement": "A.[cite:L:1:2::!1]", "keyword": ["Heaps", "Tries"],
    "summary": lambda request: ..., "keywords_batched": ModelCallError("HTTP 500")})``

    A string is the reply to every call of its task; a list gives one reply per call, in order; an
    exception instance is raised from ``complete``; a function gets the ``LlmRequest`` and returns the
    reply text. A task without a reply, or one whose list is used up, raises ``ModelCallError``.

    Thread-safe: calls may come from many threads at once (summaries run in parallel) and are not
    serialised; a function reply runs outside the model's lock. Every request is recorded in arrival
    order (:attr:`requests`, :meth:`tasks`), failed ones included. Usage is estimated from the text.
    Hand the same instance to a pipeline with ``factory=lambda config: model``.
    """

    offline: bool = False

    def __init__(
        self,
        replies: ScriptedReplies,
        *,
        model_id: str = "scripted",
        model_name: str = "scripted-model",
    ) -> None:
        script: dict[str, list[SingleReply] | SingleReply] = {}
        for task, reply in replies.items():
            if task not in TASKS:
                raise ValueError(f"unknown task {task!r}: expected one of {', '.join(sorted(TASKS))}")
            if _is_single(reply):
                script[task] = reply
            elif isinstance(reply, Sequence) and all(_is_single(item) for item in reply):
                script[task] = list(reply)
            else:
                raise TypeError(
                    f"task {task!r}: a reply is a string, an exception, a function of the request or a list "
                    f"of these, not {type(reply).__name__}"
                )
        self.model_id = model_id
        self.model_name = model_name
        self._script = script
        self._used: dict[str, int] = dict.fromkeys(script, 0)
        self._requests: list[LlmRequest] = []
        self._lock = threading.Lock()

    @property
    def requests(self) -> list[LlmRequest]:
        """Every request so far, in arrival order (a snapshot)."""
        with self._lock:
            return list(self._requests)

    def tasks(self) -> list[str]:
        """The task of every request so far, in arrival order."""
        return [request.task for request in self.requests]

    def complete(self, request: LlmRequest) -> LlmResponse:
        with self._lock:
            self._requests.append(request)
            reply = self._next_reply(request.task)
        if isinstance(reply, Exception):
            raise reply
        content = reply if isinstance(reply, str) else reply(request)
        if not isinstance(content, str):
            raise TypeError(f"the scripted reply for task {request.task!r} returned {type(content).__name__}")
        prompt = "".join(m.content for m in request.messages)
        prompt += "".join(str(m.get("content") or "") for m in request.history)
        usage = Usage(estimate_tokens(prompt), estimate_tokens(content), 0.0, estimated=True)
        return LlmResponse(content, usage, self.model_id, self.model_name)

    def _next_reply(self, task: str) -> SingleReply:
        """The reply for this call of ``task`` (called under the lock)."""
        if task not in self._script:
            scripted = ", ".join(sorted(self._script)) or "none"
            raise ModelCallError(f"model {self.model_id}: no scripted reply for task {task!r} (scripted: {scripted})")
        reply = self._script[task]
        if not isinstance(reply, list):
            return reply
        used = self._used[task]
        if used >= len(reply):
            raise ModelCallError(
                f"model {self.model_id}: the {len(reply)} scripted replies for task {task!r} are used up"
            )
        self._used[task] = used + 1
        return reply[used]
