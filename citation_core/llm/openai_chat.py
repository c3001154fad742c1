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
        try:
            resp = self._client.chat.completions.create(**kwargs)
        except openai.APITimeoutError as exc:
            raise ModelCallError(f"model {self.model_id}: timed out after {self.config.timeout:g} s") from exc
        except openai.APIStatusError as exc:
            raise ModelCallError(f"model {self.model_id}: HTTP {exc.status_code} from {self.config.base_url}") from exc
        except openai.APIConnectionError as exc:
            raise ModelCallError(f"model {self.model_id}: cannot connect to {self.config.base_url}") from exc
        except openai.OpenAIError as exc:
            raise ModelCallError(f"model {self.model_id}: {type(exc).__name__}: {exc}") from exc
        if not resp.choices:
            raise ModelCallError(f"model {self.model_id}: reply without choices")
        message = resp.choices[0].message
        content = message.content or ""
        calls: list[ToolCall] = []
        for tc in message.tool_calls or []:
            fn = getattr(tc, "function", None)
            if fn is None:
                continue
            try:
                args = json.loads(fn.arguments or "{}")
            except json.JSONDecodeError:
                args = {}
            calls.append(ToolCall(tc.id, fn.name, args if isinstance(args, dict) else {}))
        if resp.usage is not None:
            pt, ct, est = resp.usage.prompt_tokens, resp.usage.completion_tokens, False
        else:
            pt = estimate_tokens("".join(str(m.get("content") or "") for m in kwargs["messages"]))
            ct, est = estimate_tokens(content), True
        cost = (pt * self.config.cost_input_per_million + ct * self.config.cost_output_per_million) / 1e6
        usage = Usage(pt, ct, cost, est)
        return LlmResponse(content, usage, self.model_id, resp.model or self.model_name, tuple(calls))
