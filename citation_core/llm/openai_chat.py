"""A model served by any OpenAI-compatible chat-completions endpoint, through the openai SDK."""

from __future__ import annotations

import functools
import json
import os
import ssl
from typing import Any

import openai

from ..errors import ModelCallError
from .base import LlmRequest, LlmResponse, ToolCall, Usage, estimate_tokens
from .config import ModelConfig


@functools.cache
def _transport(timeout: float) -> Any:
    """The shared request handler under every task's model client (as in Iris).

    Building an HTTP client loads the CA bundle (tens of ms of CPU); one thread-safe connection pool
    serves all clients instead. It holds no usage or conversation state: each task still has its own
    model object and gets its own usage back from each call.
    """
    return openai.DefaultHttpxClient(verify=ssl.create_default_context(), timeout=timeout)


class OpenAIChatModel:
    offline = False

    def __init__(self, config: ModelConfig) -> None:
        self.config = config
        self.model_id = config.id
        self.model_name = config.model
        key = os.environ.get(config.api_key_env, "") if config.api_key_env else ""
        # Local servers (Ollama, vLLM, LM Studio) accept any key; the SDK insists on one.
        self._client = openai.OpenAI(
            base_url=config.base_url,
            api_key=key or "not-needed",
            timeout=config.timeout,
            max_retries=config.max_retries,
            http_client=_transport(config.timeout),
        )

    def _messages(self, request: LlmRequest) -> list[dict[str, Any]]:
        msgs: list[dict[str, Any]] = [{"role": m.role, "content": m.content} for m in request.messages]
        msgs.extend(request.history)
        return msgs

    def complete(self, request: LlmRequest) -> LlmResponse:
        kwargs: dict[str, Any] = {"model": self.config.model, "messages": self._messages(request)}
        # Names the task for servers that want it (the test server answers by it); others ignore it.
        kwargs["extra_headers"] = {"X-Citation-Task": request.task}
        if self.config.temperature is not None:
            kwargs["temperature"] = self.config.temperature
        if request.tools:
            kwargs["tools"] = list(request.tools)
        client, timeout = self._client, self.config.timeout
        if request.timeout is not None and request.timeout < self.config.timeout * (self.config.max_retries + 1):
            # the run's deadline is nearer than this model's timeouts and retries: one bounded attempt
            timeout = max(0.05, request.timeout)
            client = client.with_options(timeout=timeout, max_retries=0)
        try:
            resp = client.chat.completions.create(**kwargs)
        except openai.APITimeoutError as exc:
            raise ModelCallError(f"model {self.model_id}: timed out after {timeout:g} s") from exc
        except openai.APIStatusError as exc:
            raise ModelCallError(f"model {self.model_id}: HTTP {exc.status_code} from {self.config.base_url}") from exc
        except openai.APIConnectionError as exc:
            raise ModelCallError(f"model {self.model_id}: cannot connect to {self.config.base_url}") from exc
        except openai.OpenAIError as exc:
            raise ModelCallError(f"model {self.model_id}: {type(exc).__name__}: {exc}") from exc
        return self._response(resp, kwargs["messages"])

    def _response(self, resp: Any, messages: list[dict[str, Any]]) -> LlmResponse:
        """The reply as text, tool calls and usage; a reply of any other shape is a ``ModelCallError``."""
        choices = getattr(resp, "choices", None)
        if not isinstance(choices, list) or not choices:
            raise ModelCallError(f"model {self.model_id}: reply without choices")
        message = getattr(choices[0], "message", None)
        content = reply_text(getattr(message, "content", None))
        if content is None:
            kind = type(getattr(message, "content", None)).__name__
            raise ModelCallError(f"model {self.model_id}: reply content is a {kind}, not text")
        calls: list[ToolCall] = []
        raw_calls = getattr(message, "tool_calls", None)
        for tc in raw_calls if isinstance(raw_calls, list) else []:
            fn = getattr(tc, "function", None)
            name = getattr(fn, "name", None)
            if not isinstance(name, str):
                continue
            raw_args = getattr(fn, "arguments", None)
            try:
                args = json.loads(raw_args) if isinstance(raw_args, str) and raw_args else {}
            except (json.JSONDecodeError, RecursionError):
                args = {}
            calls.append(ToolCall(str(getattr(tc, "id", "") or ""), name, args if isinstance(args, dict) else {}))
        usage = getattr(resp, "usage", None)
        pt, ct = getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None)
        if isinstance(pt, int) and isinstance(ct, int) and pt >= 0 and ct >= 0:
            est = False
        else:
            pt = estimate_tokens("".join(str(m.get("content") or "") for m in messages))
            ct, est = estimate_tokens(content), True
        cost = (pt * self.config.cost_input_per_million + ct * self.config.cost_output_per_million) / 1e6
        model = getattr(resp, "model", None)
        return LlmResponse(content, Usage(pt, ct, cost, est), self.model_id,
                           model if isinstance(model, str) and model else self.model_name, tuple(calls))


def reply_text(content: object) -> str | None:
    """A message's content as text: a string, nothing (""), or a list of text parts; None for anything else."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p if isinstance(p, str) else p.get("text") if isinstance(p, dict) else getattr(p, "text", None)
                 for p in content]
        if all(isinstance(p, str) for p in parts):
            return "".join(str(p) for p in parts)
    return None
