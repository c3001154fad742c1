"""What every model receives and returns, whichever kind it is (DESIGN 4.6)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

Task = Literal["placement", "placement_places", "keyword", "keywords_batched", "summary", "writer", "judge"]


@dataclass(frozen=True)
class ChatMessage:
    role: str
    content: str


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class LlmRequest:
    """Rendered messages (for LLMs) plus the task name and its inputs (for the offline model)."""

    task: Task
    messages: tuple[ChatMessage, ...]
    inputs: Mapping[str, Any] = field(default_factory=dict)
    tools: tuple[dict[str, Any], ...] = ()
    # For multi-turn tool use: earlier assistant/tool messages in OpenAI wire format.
    history: tuple[dict[str, Any], ...] = ()
    # Seconds this call may take at most (the run's deadline); None: the model's own timeout.
    timeout: float | None = None
    # Streams the reply: called with each piece of its text as it arrives, on the calling thread (a model that
    # cannot stream calls it once with the whole text). None: the reply comes whole.
    on_delta: Callable[[str], None] | None = field(default=None, compare=False, repr=False)
    # The most characters of the reply's text that are read: a streamed reply stops there (``StreamCutError``
    # with the text up to it). None: no limit.
    max_chars: int | None = None


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    estimated: bool = False


@dataclass(frozen=True)
class LlmResponse:
    content: str
    usage: Usage
    model_id: str
    model_name: str
    tool_calls: tuple[ToolCall, ...] = ()
    # Why the model stopped, as the server said: "stop", "tool_calls", or "length" (its output token limit:
    # the text ends where the limit cut it). None: not said (the offline model, a server that leaves it out).
    finish_reason: str | None = None

    @property
    def cut_by_length(self) -> bool:
        """Whether the model stopped at its length limit, before its reply was complete."""
        return self.finish_reason == "length"


class ChatModel(Protocol):
    """One model client. Instances are cheap; every task makes its own."""

    model_id: str
    model_name: str
    offline: bool

    def complete(self, request: LlmRequest) -> LlmResponse: ...


class ChatSession(Protocol):
    """Calls to one model from one event loop: an async client that all tasks of a fan-out share.

    A session belongs to the event loop that first uses it and is closed (``aclose``) in that loop; it
    is never handed to another thread.
    """

    async def complete(self, request: LlmRequest) -> LlmResponse: ...

    async def aclose(self) -> None: ...


@runtime_checkable
class SessionModel(ChatModel, Protocol):
    """A ``ChatModel`` that can also serve many calls at once from one event loop (``open_session``)."""

    def open_session(self) -> ChatSession: ...


def estimate_tokens(text: str) -> int:
    """Rough token count (about four characters a token) used where no server reports usage."""
    return max(1, (len(text) + 3) // 4) if text else 0
