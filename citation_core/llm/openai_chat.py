"""A model served by any OpenAI-compatible chat-completions endpoint, through the openai SDK."""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import functools
import json
import os
import queue
import ssl
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import openai
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from ..errors import ModelCallError, StreamCutError
from ..lms.credentials import masked_url
from ..lms.storable import storable_value
from .base import LlmRequest, LlmResponse, ToolCall, Usage, estimate_tokens
from .config import ModelConfig
from .json_prefix import close_cut_json
from .server_errors import server_said
from .sse import EventStreamDecoder, EventTooLong
from .stream_reply import ReplyError, StreamedReply, one_line, server_message

if TYPE_CHECKING:
    from openai import RequestOptions

KEEPALIVE = 60.0  # seconds an idle connection to a model server is kept for the next call


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """The process's one TLS configuration: loading the CA bundle costs tens of ms of CPU, so it happens once.

    An ``SSLContext`` is only read once configured; the sync transport and every async session use it.
    """
    return ssl.create_default_context()


class OpenAIChatModel:
    """Calls from any thread, one at a time per caller: each runs on the process's model-call loop
    (``_CallLoop``) through the one async client of this model's configuration there, and is cut when its
    time is up."""

    offline = False

    def __init__(self, config: ModelConfig) -> None:
        self.config = config
        self.model_id = config.id
        self.model_name = config.model

    def complete(self, request: LlmRequest) -> LlmResponse:
        return _call_loop().run(self.config, request)

    def open_session(self) -> OpenAIChatSession:
        """Many calls at once from one event loop (see ``OpenAIChatSession``)."""
        return OpenAIChatSession(self.config)


class OpenAIChatSession:
    """One pass's calls to this model from the pass's event loop: placement, then all keyword and summary
    calls at once (``pipeline.model_calls.ModelCalls``).

    Each call is handed to the process's model-call loop and awaited: there the one client of this model's
    configuration sends it, so a fan-out's requests leave together, and every pass (and every other call)
    reuses the connections the calls before it left open instead of opening and securing its own (the
    SDK's pool limits: 1,000 connections, 100 kept alive, so a fan-out is never queued). Cancelling a call
    here cancels it there. ``aclose`` leaves the shared client open; it is closed when the process exits.
    """

    offline = False

    def __init__(self, config: ModelConfig) -> None:
        self.config = config
        self.model_id = config.id
        self.model_name = config.model

    async def complete(self, request: LlmRequest) -> LlmResponse:
        return await asyncio.wrap_future(_call_loop().submit(self.config, request))

    async def aclose(self) -> None:
        return None


def _async_client(config: ModelConfig) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=config.base_url,
        api_key=_api_key(config),
        timeout=config.timeout,
        max_retries=config.max_retries,
        http_client=openai.DefaultAsyncHttpxClient(verify=_ssl_context(), timeout=config.timeout,
                                                   limits=_limits()),
    )


def _limits() -> Any:
    """The SDK's pool limits, idle connections kept for a minute (the HTTP library's default is 5 s: a pass
    whose sequential keyword calls took longer found its fan-out's connections closed and opened new ones)."""
    limits = openai.DEFAULT_CONNECTION_LIMITS
    return type(limits)(max_connections=limits.max_connections,
                        max_keepalive_connections=limits.max_keepalive_connections, keepalive_expiry=KEEPALIVE)


async def _complete(client: openai.AsyncOpenAI, config: ModelConfig, request: LlmRequest) -> LlmResponse:
    """One call, retries included, ended after ``_limit`` seconds however the reply arrives.

    The SDK's timeout only bounds each wait for the next bytes: a server that trickles its reply a byte
    at a time never trips it, so the whole call runs under ``asyncio.wait_for``, which cuts it in flight.
    """
    body, options, timeout = _call(config, request)
    try:
        resp = await asyncio.wait_for(client.post(_PATH, body=body, options=options, cast_to=ChatCompletion),
                                      timeout)
    except (TimeoutError, openai.OpenAIError, ValueError, RecursionError) as exc:
        raise _call_error(config, exc, timeout) from _cause(exc)
    return _response(config, resp, body["messages"])


async def _complete_streamed(client: openai.AsyncOpenAI, config: ModelConfig, request: LlmRequest,
                             emit: Callable[[str], None]) -> LlmResponse:
    """One call with ``stream: true``: each piece of the reply's text goes to ``emit`` as it arrives.

    The SDK sends the request (authentication, retries, HTTP errors); the event stream of its reply is read
    here, as the SSE standard says (``sse``), and each chunk checked before it is used (``stream_reply``):
    a chunk of the wrong shape is a ``ModelCallError`` naming the chunk and field. Tool calls that arrive in
    pieces are put together by their index; usage comes from the last chunk when the server reports it
    (``stream_options``). A server that answers with one JSON completion instead of events is read as such
    (its text is emitted once); one that answers with an error object is reported with its own message.
    The whole call runs under the same time limit as an unstreamed one. A stream that stops early (the
    connection closed, or the body ended without ``finish_reason`` or ``[DONE]``) raises ``StreamCutError``
    with the text that arrived; so does a reply whose text reaches ``request.max_chars``, which is read no
    further (``StreamCutError`` with the text up to that limit)."""
    body, options, timeout = _call(config, request)
    body = {**body, "stream": True, "stream_options": {"include_usage": True}}
    reply = StreamedReply(emit, request.max_chars)

    async def read() -> Any:
        stream = await client.post(_PATH, body=body, options=options, cast_to=ChatCompletion, stream=True,
                                   stream_cls=openai.AsyncStream[ChatCompletionChunk])
        response = stream.response
        try:
            if "text/event-stream" not in response.headers.get("content-type", ""):
                return await _whole_reply(response, reply, _max_event_bytes(request.max_chars))
            await _read_events(response, reply, _max_event_bytes(request.max_chars))
            return reply.completion()
        finally:
            await response.aclose()

    try:
        resp = await asyncio.wait_for(read(), timeout)
    except ReplyError as exc:
        error = ModelCallError(f"model {config.id}: {exc}")
        raise (_kept(error, reply.text) if exc.keep else error) from None
    except _Capped:
        raise StreamCutError(f"model {config.id}: the reply reached the limit of {request.max_chars:,} characters "
                             "(MAX_ANSWER_CHARS) and was read no further; the text up to the limit is kept",
                             "".join(reply.text)) from None
    except (TimeoutError, openai.OpenAIError, ValueError, RecursionError) as exc:
        error = _call_error(config, exc, timeout)
        raise (error if isinstance(exc, ValueError | RecursionError) else _kept(error, reply.text)) from _cause(exc)
    except Exception as exc:  # the HTTP library's own errors reach a stream's reader unwrapped
        if type(exc).__module__.split(".")[0] not in {"httpx", "httpx2", "httpcore", "h11", "anyio"}:
            raise
        said = ("timed out while the reply was read" if "Timeout" in type(exc).__name__
                else f"the connection to {_shown_url(config)} closed before the reply was complete")
        raise _kept(ModelCallError(f"model {config.id}: {said}"), reply.text) from exc
    return _response(config, resp, body["messages"])


class _Capped(Exception):  # noqa: N818  (the reply reached its limit: not an error of the model)
    """The reply's text reached ``max_chars``: nothing more is read."""


STREAM_SLACK = 64 * 1024  # bytes of an event besides its text: ids, names, usage, JSON punctuation
ESCAPED_CHAR_BYTES = 12  # the most bytes one character takes in JSON text (a surrogate pair as two \u escapes)
DRAIN_BYTES = 64 * 1024  # read after [DONE] so that the connection can be kept; a longer rest closes it
DRAIN_SECONDS = 0.1


def _max_event_bytes(max_chars: int | None) -> int:
    """The most bytes one event may take before it ends: room for the rest of the text however escaped."""
    return ESCAPED_CHAR_BYTES * (max_chars if max_chars is not None else 1_000_000) + STREAM_SLACK


async def _read_events(response: Any, reply: StreamedReply, max_event_bytes: int) -> None:
    """Read the event stream into ``reply`` until ``[DONE]``, the text's limit (``_Capped``) or the body's
    end; a body that ends without the stream saying so is a ``ReplyError`` (a cut: the text is kept)."""
    decoder = EventStreamDecoder(max_event_bytes)
    pieces = response.aiter_bytes()
    try:
        async for piece in pieces:
            for event in decoder.feed(piece):
                reply.add(event.data)
                if reply.capped:
                    raise _Capped
                if reply.done:
                    await _drain(pieces)
                    return
    except EventTooLong as long:
        _add_cut_event(reply, long)
        if reply.capped:
            raise _Capped from None
        raise ReplyError(f"{long}: reading stopped", keep=True) from None
    if not reply.complete:
        after = f", after text that is not an event stream (“{decoder.foreign}…”)" if decoder.foreign else ""
        raise ReplyError(f"the reply stream ended without finish_reason or [DONE]{after}", keep=True)


def _add_cut_event(reply: StreamedReply, long: EventTooLong) -> None:
    """The text of an event stopped at the size bound, as far as it came (a chunk cut inside its content)."""
    cut = close_cut_json(long.data)
    if cut is not None:
        with contextlib.suppress(ReplyError):
            reply.add_chunk(cut)


async def _drain(pieces: Any) -> None:
    """What follows ``[DONE]`` (the chunked body's end), read briefly so that the connection can be reused."""
    async def rest() -> None:
        left = DRAIN_BYTES
        async for piece in pieces:
            left -= len(piece)
            if left < 0:
                return

    with contextlib.suppress(Exception):
        await asyncio.wait_for(rest(), DRAIN_SECONDS)


async def _whole_reply(response: Any, reply: StreamedReply, max_bytes: int) -> Any:
    """A reply that came as one JSON body although it was asked to stream: a completion (its text emitted
    once, at most ``reply.max_chars`` of it) or the server's error object. At most ``max_bytes`` are read:
    a longer body is kept as far as its text came (``_Capped`` at the text's limit)."""
    raw = bytearray()
    async for piece in response.aiter_bytes():
        raw += piece
        if len(raw) > max_bytes:
            cut = close_cut_json(bytes(raw[:max_bytes]).decode("utf-8", "replace"))
            content = _first_content(cut)
            if content is not None:
                reply.add_text(content)
                if reply.capped:
                    raise _Capped
            raise ReplyError(f"the reply is longer than {max_bytes:,} bytes: reading stopped")
    data = json.loads(bytes(raw))
    said = server_message(data)
    if said is not None:
        raise ReplyError(said)
    whole = ChatCompletion.model_validate(data)
    content = reply_text(whole.choices[0].message.content if whole.choices else None)
    if content:
        reply.add_text(content)
        if reply.capped:
            raise _Capped
    return whole


def _first_content(data: object) -> str | None:
    """The text of a completion's first choice, where ``data`` has one."""
    choices = data.get("choices") if isinstance(data, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, str) else None


def _kept(error: ModelCallError, text: list[str]) -> ModelCallError:
    """``error`` of a stream that ended early, with the text that arrived if any (``StreamCutError``)."""
    if not text:
        return error
    partial = "".join(text)
    return StreamCutError(f"{error}; the {len(partial):,} characters that arrived are kept", partial)


class _CallLoop:
    """An event loop in a thread of its own that runs this process's model calls.

    A call made from any thread (or a pass's event loop) is handed to the loop and waited for; on the loop
    it can be cut at its time limit wherever it is (a blocking read in the caller's thread could not be).
    Each model configuration (server, key, timeout, retries: ``_client_key``) has one async client here,
    made at its first call and reused by every later one, so its connections stay open between calls and
    passes (an HTTPS connection is set up once, not once per pass); all are closed when the process exits.
    The clients are touched on the loop only, so calls from many threads at once need no lock.
    """

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.loop = asyncio.new_event_loop()
        self.clients: dict[tuple[str | None, str, float, int], openai.AsyncOpenAI] = {}  # on the loop only
        self.thread = threading.Thread(target=self.loop.run_forever, name="model-calls", daemon=True)
        self.thread.start()
        atexit.register(self.close)

    def run(self, config: ModelConfig, request: LlmRequest) -> LlmResponse:
        """The reply to ``request``; a streamed one's pieces are handed to ``request.on_delta`` on this
        (the calling) thread as they arrive."""
        pieces: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        future = self.submit(config, request, pieces.put)
        future.add_done_callback(lambda _: pieces.put(None))
        try:
            if request.on_delta is not None:
                for piece in iter(pieces.get, None):
                    request.on_delta(piece)
            return future.result()
        except BaseException:
            future.cancel()  # the caller gave up (KeyboardInterrupt, say): the call stops too
            raise

    def submit(self, config: ModelConfig, request: LlmRequest,
               emit: Callable[[str], None] | None = None) -> concurrent.futures.Future[LlmResponse]:
        """The call, started on the loop; streamed (its pieces to ``emit``, on the loop's thread) when
        ``request.on_delta`` and ``emit`` are given. Cancelling the future cancels the call."""
        return asyncio.run_coroutine_threadsafe(self._complete(config, request, emit), self.loop)

    async def _complete(self, config: ModelConfig, request: LlmRequest,
                        emit: Callable[[str], None] | None) -> LlmResponse:
        key = _client_key(config)
        client = self.clients.get(key)
        if client is None:
            client = self.clients[key] = _async_client(config)
        if request.on_delta is not None and emit is not None:
            return await _complete_streamed(client, config, request, emit)
        return await _complete(client, config, request)

    def close(self) -> None:
        if not self.loop.is_running():
            return

        async def close_all() -> None:
            await asyncio.gather(*(c.close() for c in self.clients.values()), return_exceptions=True)

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(close_all(), self.loop).result(timeout=2)
        self.loop.call_soon_threadsafe(self.loop.stop)


_LOOPS: dict[int, _CallLoop] = {}  # one per process (a forked child makes its own)
_LOOPS_LOCK = threading.Lock()


def _call_loop() -> _CallLoop:
    pid = os.getpid()
    with _LOOPS_LOCK:
        loop = _LOOPS.get(pid)
        if loop is None:
            loop = _LOOPS[pid] = _CallLoop()
        return loop


def _client_key(config: ModelConfig) -> tuple[str | None, str, float, int]:
    """What a client is made from: models that agree on these share one (model name and temperature go
    into each request)."""
    return (config.base_url, _api_key(config), config.timeout, config.max_retries)


def _api_key(config: ModelConfig) -> str:
    return _own_key(config) or "not-needed"  # local servers (Ollama, vLLM, LM Studio) accept any key; the SDK insists


def _own_key(config: ModelConfig) -> str:
    """The API key from the model's environment variable; "" when it has none."""
    return os.environ.get(config.api_key_env, "") if config.api_key_env else ""


def _shown_url(config: ModelConfig) -> str:
    """The server's URL as a message shows it: a password or secret parameter in it masked."""
    return masked_url(config.base_url or "")


_PATH = "/chat/completions"
# Bearer authentication, which SDK versions with per-request security schemes want asked for (as create does)
_ASKS_FOR_AUTH = "security" in getattr(getattr(openai, "RequestOptions", None), "__annotations__", {})


def _call(config: ModelConfig, request: LlmRequest) -> tuple[dict[str, Any], RequestOptions, float]:
    """The request body, its options and the seconds the whole call may take.

    The body is plain JSON, so it goes to the chat-completions endpoint through the SDK's ``post``, with
    the SDK's retries, errors, authentication and reply type. ``chat.completions.create`` would first walk
    these arguments through the SDK's parameter transformer, about half of its CPU per call. A call takes
    at most the model's ``timeout``, retries included; one whose deadline is nearer gets one attempt
    bounded by the deadline.
    """
    msgs: list[dict[str, Any]] = [{"role": m.role, "content": m.content} for m in request.messages]
    msgs.extend(request.history)
    # a lone surrogate (a model may stream one, and it is in the answer being cited) cannot be sent as UTF-8:
    # the model reads U+FFFD there, the answer itself stays as it is
    msgs = storable_value(msgs)
    body: dict[str, Any] = {"model": config.model, "messages": msgs}
    if config.temperature is not None:
        body["temperature"] = config.temperature
    if request.tools:
        body["tools"] = list(request.tools)
    # Names the task for servers that want it (the test server answers by it); others ignore it.
    options: RequestOptions = {"headers": {"X-Citation-Task": request.task}}
    if _ASKS_FOR_AUTH:
        options["security"] = {"bearer_auth": True}
    timeout = config.timeout
    if request.timeout is not None and request.timeout < config.timeout:
        timeout = max(0.05, request.timeout)
        options["timeout"], options["max_retries"] = timeout, 0
    return body, options, timeout


def _call_error(config: ModelConfig, exc: Exception, timeout: float) -> ModelCallError:
    """What a failed call says: cut at its time limit (``asyncio.wait_for``), an SDK error, or a reply body
    that is not JSON (cut short, say: json's errors are ValueErrors) or not a chat completion."""
    if isinstance(exc, TimeoutError):
        cut = "the citation deadline was reached" if timeout < config.timeout else "timed out"
        return ModelCallError(f"model {config.id}: {cut} after {timeout:.3g} s (no complete reply)")
    if isinstance(exc, ValueError | RecursionError):  # json's errors; RecursionError: nested too deeply
        what = "a chat completion" if type(exc).__name__ == "ValidationError" else "valid JSON"
        return ModelCallError(f"model {config.id}: the reply is not {what} ({type(exc).__name__}: "
                              f"{one_line(str(exc), 120)})")
    if isinstance(exc, openai.APITimeoutError):
        return ModelCallError(f"model {config.id}: timed out after {timeout:g} s")
    if isinstance(exc, openai.APIStatusError):
        said = server_said(exc.body, exc.status_code, exc.response.headers.get("content-type", ""),
                           [_own_key(config)])
        return ModelCallError(f"model {config.id}: HTTP {exc.status_code} from {_shown_url(config)}"
                              + (f": the server said “{said}”" if said else ""))
    if isinstance(exc, openai.APIConnectionError):
        if _cut_short(exc):
            return ModelCallError(f"model {config.id}: the connection to {_shown_url(config)} closed before the "
                                  "reply was complete")
        return ModelCallError(f"model {config.id}: cannot connect to {_shown_url(config)}")
    return ModelCallError(f"model {config.id}: {type(exc).__name__}: {exc}")


def _cause(exc: Exception) -> Exception | None:
    """The cause a call's error is chained to: none for the time limit (the cancelled wait says nothing)."""
    return None if isinstance(exc, TimeoutError) else exc


def _cut_short(exc: BaseException) -> bool:
    """Whether a connection error happened after the connection was made (the reply was cut off).

    Told by the HTTP library's error names (httpx and its forks under the SDK name them alike)."""
    cause = exc.__cause__ or exc.__context__
    return type(cause).__name__ in {"RemoteProtocolError", "ReadError"}


def _response(config: ModelConfig, resp: Any, messages: list[dict[str, Any]]) -> LlmResponse:
    """The reply as text, tool calls and usage; a reply of any other shape is a ``ModelCallError``."""
    choices = getattr(resp, "choices", None)
    if not isinstance(choices, list) or not choices:
        said = server_message({"error": getattr(resp, "error", None)})
        raise ModelCallError(f"model {config.id}: {said or 'reply without choices'}")
    message = getattr(choices[0], "message", None)
    content = reply_text(getattr(message, "content", None))
    if content is None:
        kind = type(getattr(message, "content", None)).__name__
        raise ModelCallError(f"model {config.id}: reply content is a {kind}, not text")
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
    cost = (pt * config.cost_input_per_million + ct * config.cost_output_per_million) / 1e6
    model = getattr(resp, "model", None)
    finish = getattr(choices[0], "finish_reason", None)
    return LlmResponse(content, Usage(pt, ct, cost, est), config.id,
                       model if isinstance(model, str) and model else config.model, tuple(calls),
                       finish if isinstance(finish, str) and finish else None)


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
