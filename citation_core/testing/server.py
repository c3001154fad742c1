"""A tiny OpenAI-compatible chat-completions server on 127.0.0.1, for tests and benchmarks.

Stdlib only (``http.server``). It speaks just enough of the OpenAI protocol to drive an
OpenAI-compatible client over real HTTP: ``POST /v1/chat/completions`` answers a ``chat.completion``
object or an OpenAI-style error body, and a request with ``"stream": true`` gets the completion as
server-sent events, ``chat.completion.chunk`` objects the way the OpenAI API streams them (content
split into word-sized deltas, tool calls split across chunks, a usage chunk when the request asks for
``stream_options.include_usage``, then ``data: [DONE]``), in a chunked HTTP/1.1 body.

Every chat-completions request is passed to a *handler* as a :class:`ChatRequest` (the parsed JSON
body, a dict, plus the request headers) and the handler returns a :class:`Reply`: content, HTTP
status, latency, token usage, tool calls and extra headers. Requests are served concurrently and
recorded (:attr:`LocalChatServer.requests`) with their arrival and finish times, so tests can assert
on concurrency with :meth:`LocalChatServer.max_overlap`.

Given an ``ssl.SSLContext`` (``tls=``, with the server's certificate loaded) it serves HTTPS instead
(``base_url`` then starts with ``https://``). It counts the connections it accepted
(:attr:`LocalChatServer.connections_opened`) and, over TLS, the handshakes that completed
(:attr:`LocalChatServer.tls_handshakes`), so tests can tell connections reused from ones made anew.

Example::

    with LocalChatServer(echo_handler) as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0)
        out = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        assert out.choices[0].message.content == "hi"
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
import socket
import socketserver
import ssl
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

__all__ = [
    "TASK_HEADER",
    "ChatRequest",
    "Handler",
    "LocalChatServer",
    "RecordedRequest",
    "Reply",
    "echo_handler",
    "scripted",
]

HOST = "127.0.0.1"
TASK_HEADER = "x-citation-task"
"""The header (lower-cased) in which the citation client names the task of a request."""


class ChatRequest(dict[str, Any]):
    """What a handler gets: the parsed JSON body of one request (a dict of its own) plus its headers."""

    def __init__(self, body: Mapping[str, Any], headers: Mapping[str, str]) -> None:
        super().__init__(copy.deepcopy(dict(body)))
        self.headers: dict[str, str] = {name.lower(): value for name, value in headers.items()}

    @property
    def task(self) -> str | None:
        """The ``X-Citation-Task`` header, ``None`` when the client did not send it."""
        return self.headers.get(TASK_HEADER)


@dataclass(frozen=True)
class RecordedRequest:
    """One chat-completions request as seen by the server."""

    body: dict[str, Any]  # parsed JSON request ({} if the body was not a JSON object)
    headers: dict[str, str]  # request headers, names lower-cased
    started: float  # time.monotonic() when the request arrived
    finished: float  # time.monotonic() just before the response was written
    status: int  # HTTP status that was answered

    @property
    def task(self) -> str | None:
        """The ``X-Citation-Task`` header, ``None`` when the client did not send it."""
        return self.headers.get(TASK_HEADER)


@dataclass(frozen=True)
class Reply:
    """What the server answers to one chat-completions request.

    A non-200 ``status`` produces an OpenAI-style error body ``{"error": {"message", "type", ...}}``
    whose message is ``content`` (or the HTTP reason phrase when ``content`` is empty).

    A request with ``"stream": true`` is answered with server-sent events when ``stream`` is true (and
    the status is 200): a role chunk at once (after ``delay``), the first content or tool-call chunk
    ``first_token_delay`` seconds later, the following ones ``1 / token_rate`` seconds apart, then the
    finish chunk, the usage chunk (if asked for) and ``[DONE]``. ``cut_after`` then counts event-stream
    bytes (the chunked framing aside) and ``trickle`` sends the stream byte by byte; ``raw_body`` is sent
    verbatim as the event stream, and ``raw_stream`` piece by piece (a stream that need not end). Errors
    (non-200 statuses, handler errors) are plain JSON, as OpenAI answers them. The streaming fields are
    ignored for a request that does not stream.
    """

    content: str = ""
    status: int = 200
    delay: float = 0.0  # seconds to wait before answering
    prompt_tokens: int | None = None  # default: about chars / 4 of the request messages
    completion_tokens: int | None = None  # default: about chars / 4 of content and tool calls
    tool_calls: list[dict[str, Any]] | None = None  # -> finish_reason "tool_calls"
    # The choice's finish_reason; None: "tool_calls" with tool calls, else "stop". "length" is a model that
    # stopped at its token limit (the content is what it wrote until then).
    finish_reason: str | None = None
    headers: dict[str, str] | None = None  # extra response headers
    # Hostile servers: seconds between single bytes of the whole response, status line and headers
    # included (a reply that trickles in), and a body cut after this many bytes (the connection closes).
    trickle: float = 0.0
    cut_after: int | None = None
    raw_body: bytes | None = None  # sent as the body instead of the completion (a reply that is not JSON)
    # Sent as the event stream of a streaming request instead of the completion: a fresh iterable of byte
    # pieces per request, one HTTP chunk each, until it ends or the client stops reading (it may never end).
    raw_stream: Callable[[], Iterable[bytes]] | None = None
    # Streaming (requests with "stream": true). stream=False answers them with a plain JSON completion,
    # like a server that cannot stream.
    stream: bool = True
    first_token_delay: float = 0.0  # seconds from the role chunk to the first content/tool-call chunk
    token_rate: float = 0.0  # content/tool-call chunks per second after the first; 0 = no pause
    # Content deltas: None = one per word (with the whitespace before it); n = at most n deltas of whole
    # words. Tool-call arguments are always split at word/punctuation boundaries, in two pieces at least.
    stream_pieces: int | None = None


Handler = Callable[[ChatRequest], Reply]
"""Gets the request, returns the reply. Called from many threads at once; an exception is an HTTP 500."""


# --------------------------------------------------------------------------- the OpenAI wire format


def content_text(content: Any) -> str:
    """Text of a message ``content``: a string, or a list of content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part if isinstance(part, str) else str(part.get("text") or "") if isinstance(part, dict) else ""
            for part in content
        )
    return "" if content is None else str(content)


def _tokens(chars: int) -> int:
    return (chars + 3) // 4


def _prompt_tokens(body: Mapping[str, Any]) -> int:
    messages = body.get("messages")
    if not isinstance(messages, list):
        return 0
    return _tokens(sum(len(content_text(m.get("content"))) for m in messages if isinstance(m, dict)))


def _tool_calls(tool_calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fill in ``id``/``type`` and serialise dict ``arguments``, so the SDK parses the calls."""
    out: list[dict[str, Any]] = []
    for index, call in enumerate(tool_calls):
        item = copy.deepcopy(call)
        item.setdefault("id", f"call_{index}_{uuid.uuid4().hex[:12]}")
        item.setdefault("type", "function")
        function = item.get("function")
        if isinstance(function, dict) and not isinstance(function.get("arguments", ""), str):
            function["arguments"] = json.dumps(function["arguments"])
        out.append(item)
    return out


def _error_body(status: int, message: str) -> dict[str, Any]:
    if status == 429:
        kind = "rate_limit_error"
    elif status == 401:
        kind = "authentication_error"
    elif status >= 500:
        kind = "server_error"
    else:
        kind = "invalid_request_error"
    if not message:
        try:
            message = HTTPStatus(status).phrase
        except ValueError:
            message = f"HTTP {status}"
    return {"error": {"message": message, "type": kind, "code": str(status), "param": None}}


def _usage(body: Mapping[str, Any], reply: Reply, tool_calls: list[dict[str, Any]] | None) -> dict[str, int]:
    chars = len(reply.content if isinstance(reply.content, str) else json.dumps(reply.content))
    for call in tool_calls or ():
        function = call.get("function")
        if isinstance(function, dict):
            chars += len(str(function.get("name", ""))) + len(str(function.get("arguments", "")))
    prompt_tokens = _prompt_tokens(body) if reply.prompt_tokens is None else reply.prompt_tokens
    completion_tokens = _tokens(chars) if reply.completion_tokens is None else reply.completion_tokens
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def _model(body: Mapping[str, Any]) -> str:
    model = body.get("model")
    return model if isinstance(model, str) else "local-model"


def _completion_body(body: Mapping[str, Any], reply: Reply) -> dict[str, Any]:
    tool_calls = _tool_calls(reply.tool_calls) if reply.tool_calls else None
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if tool_calls:
        message["tool_calls"] = tool_calls
        message["content"] = reply.content or None
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": _model(body),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": reply.finish_reason or ("tool_calls" if tool_calls else "stop"),
                "logprobs": None,
            }
        ],
        "usage": _usage(body, reply, tool_calls),
    }


# --------------------------------------------------------------------------- streaming (server-sent events)

_WORD = re.compile(r"\s*\S+|\s+")  # a word with the whitespace before it; trailing whitespace alone
_ARGUMENT_PIECE = re.compile(r"\w+|\W+")  # runs of word characters and of punctuation/space


def _split_words(text: str, pieces: int | None = None) -> list[str]:
    """``text`` in word-sized pieces that join back to it exactly: one per word (each with the whitespace
    before it, whitespace at the end a piece of its own), or at most ``pieces`` runs of whole words."""
    if pieces is not None and pieces < 1:
        raise ValueError(f"stream_pieces must be at least 1, not {pieces}")
    words: list[str] = _WORD.findall(text)
    if pieces is None or pieces >= len(words):
        return words
    count = len(words)
    return ["".join(words[i * count // pieces:(i + 1) * count // pieces]) for i in range(pieces)]


def _argument_pieces(arguments: str) -> list[str]:
    """A tool call's JSON arguments in token-like pieces, two at least when there are two characters."""
    pieces: list[str] = _ARGUMENT_PIECE.findall(arguments)
    if len(pieces) == 1 and len(arguments) >= 2:
        middle = len(arguments) // 2
        pieces = [arguments[:middle], arguments[middle:]]
    return pieces


_JSON = "application/json"
_EVENT_STREAM = "text/event-stream; charset=utf-8"


@dataclass(frozen=True)
class _Event:
    data: bytes  # one whole server-sent event, ``data: ...\n\n``
    timed: bool  # a content or tool-call chunk: paced by first_token_delay and token_rate


_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _sse(payload: dict[str, Any] | str) -> bytes:
    text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    # a lone surrogate in a reply (which UTF-8 cannot carry) goes out as its JSON escape, as a model server sends it
    text = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return f"data: {text}\n\n".encode()


def _streams(body: Mapping[str, Any], reply: Reply) -> bool:
    """Whether ``reply`` to the request ``body`` goes out as an event stream."""
    return bool(body.get("stream")) and reply.stream


def _stream_events(body: Mapping[str, Any], reply: Reply) -> list[_Event]:
    """The event stream of one reply, OpenAI's way: role, content deltas, tool-call deltas, finish
    reason, usage (if the request asked for it), ``[DONE]``."""
    if reply.first_token_delay < 0 or reply.token_rate < 0:
        raise ValueError("first_token_delay and token_rate must not be negative")
    tool_calls = _tool_calls(reply.tool_calls) if reply.tool_calls else None
    options = body.get("stream_options")
    include_usage = isinstance(options, dict) and options.get("include_usage") is True
    head = {"id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": _model(body)}

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        out = {**head, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}]}
        if include_usage:
            out["usage"] = None  # as OpenAI: every chunk but the last has "usage": null
        return out

    content = reply.content
    events = [_Event(_sse(chunk({"role": "assistant", "content": None if tool_calls and not content else ""})),
                     False)]
    if isinstance(content, str):
        pieces: list[Any] = _split_words(content, reply.stream_pieces)
    else:
        pieces = [content] if content else []
    events += [_Event(_sse(chunk({"content": piece})), True) for piece in pieces]
    for index, call in enumerate(tool_calls or ()):
        function = call.get("function")
        if not isinstance(function, dict):
            events.append(_Event(_sse(chunk({"tool_calls": [{"index": index, **call}]})), True))
            continue
        arguments = function.get("arguments")
        arguments = arguments if isinstance(arguments, str) else ""
        first = {"index": index, **{key: value for key, value in call.items() if key != "function"},
                 "function": {**function, "arguments": ""}}
        events.append(_Event(_sse(chunk({"tool_calls": [first]})), True))
        events += [
            _Event(_sse(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})), True)
            for piece in _argument_pieces(arguments)
        ]
    events.append(_Event(_sse(chunk({}, reply.finish_reason or ("tool_calls" if tool_calls else "stop"))), False))
    if include_usage:
        usage = {**head, "choices": [], "usage": _usage(body, reply, tool_calls)}
        events.append(_Event(_sse(usage), False))
    events.append(_Event(_sse("[DONE]"), False))
    return events


# --------------------------------------------------------------------------- the server


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # many parallel clients connect at once (benchmarks)
    block_on_close = False

    def __init__(self, owner: LocalChatServer, port: int) -> None:
        self.owner = owner
        super().__init__((HOST, port), _RequestHandler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind() calls socket.getfqdn(), a possibly slow reverse DNS lookup.
        socketserver.TCPServer.server_bind(self)
        self.server_name = HOST
        self.server_port = int(self.server_address[1])

    def get_request(self) -> tuple[socket.socket, Any]:
        conn, addr = super().get_request()
        self.owner._count_connection()
        if self.owner.tls is not None:  # the handshake happens in the connection's own thread (setup)
            conn = self.owner.tls.wrap_socket(conn, server_side=True, do_handshake_on_connect=False)
        return conn, addr


class _RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive; a response has a Content-Length or (a stream) is chunked
    disable_nagle_algorithm = True  # headers and body go out in two writes
    server_version = "LocalChatServer/1.0"

    @property
    def _owner(self) -> LocalChatServer:
        server = self.server
        assert isinstance(server, _HTTPServer)
        return server.owner

    # -- connection bookkeeping, so that stop() can close idle keep-alive connections

    def setup(self) -> None:
        self._handshake_failed = False
        if isinstance(self.request, ssl.SSLSocket):
            try:
                self.request.settimeout(10.0)
                self.request.do_handshake()
                self.request.settimeout(None)
            except OSError:  # ssl.SSLError included: a client that does not trust the certificate, say
                self._handshake_failed = True
            else:
                self._owner._count_handshake()
        super().setup()
        self._owner._register_connection(self.connection)

    def handle(self) -> None:
        if not self._handshake_failed:
            super().handle()

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass
        finally:
            self._owner._unregister_connection(self.connection)

    def log_message(self, format: str, *args: Any) -> None:
        return  # keep test output quiet

    # -- routing

    def _is_completions(self) -> bool:
        return self.path.split("?", 1)[0].rstrip("/") == "/v1/chat/completions"

    def do_GET(self) -> None:
        self._send_json(404, _error_body(404, f"unknown path {self.path}"))

    def do_POST(self) -> None:
        started = time.monotonic()
        raw = self._read_body()
        if not self._is_completions():
            self._send_json(404, _error_body(404, f"unknown path {self.path}"))
            return
        headers = {name.lower(): value for name, value in self.headers.items()}
        owner = self._owner
        body: dict[str, Any] = {}
        extra: dict[str, str] = {}
        delivery = Reply()
        events: list[_Event] | None = None
        content_type = _JSON
        try:
            parsed = json.loads(raw or b"null")
        except (ValueError, UnicodeDecodeError) as exc:
            status, payload = 400, _error_body(400, f"invalid JSON body: {exc}")
        else:
            if not isinstance(parsed, dict):
                status, payload = 400, _error_body(400, "request body must be a JSON object")
            else:
                body = parsed
                answered = self._answer(owner, ChatRequest(body, headers))
                if answered is None:  # stop() was called while the reply was delayed: drop it
                    self.close_connection = True
                    return
                status, payload, extra, delivery, events = answered
                if delivery.raw_body is not None and status == 200 and _streams(body, delivery):
                    content_type = _EVENT_STREAM  # a raw event stream

        def record() -> None:
            # Recorded just before the response goes out (a stream: just before its last bytes, or when
            # it breaks off), so the record is there once the client has it.
            owner._record(RecordedRequest(body, headers, started, time.monotonic(), status))

        if delivery.raw_stream is not None and status == 200 and _streams(body, delivery):
            self._send_raw_stream(delivery.raw_stream(), extra, record)
        elif events is not None:
            self._send_stream(events, extra, record, delivery)
        else:
            self._send_json(status, payload, extra, before_send=record, delivery=delivery, content_type=content_type)

    def _answer(
        self, owner: LocalChatServer, request: ChatRequest
    ) -> tuple[int, dict[str, Any], dict[str, str], Reply, list[_Event] | None] | None:
        """(status, payload, extra headers, the reply for how it is sent, the events when it is streamed),
        or None when the server stopped during the reply's delay."""
        plain = Reply()
        if request.get("stream") and not isinstance(request.get("messages"), list):
            return 400, _error_body(400, "a streaming request needs a 'messages' list"), {}, plain, None
        events: list[_Event] | None = None
        try:
            reply = owner.handler(request)
            if not isinstance(reply, Reply):
                raise TypeError(f"handler returned {type(reply).__name__}, not Reply")
            if not 200 <= reply.status <= 599:
                raise ValueError(f"invalid reply status {reply.status}")
            payload = _completion_body(request, reply) if reply.status == 200 else None
            raw = reply.raw_body is not None or reply.raw_stream is not None
            if reply.status == 200 and not raw and _streams(request, reply):
                events = _stream_events(request, reply)
        except Exception as exc:  # noqa: BLE001 - reported to the client as a 500
            return 500, _error_body(500, f"handler error: {type(exc).__name__}: {exc}"), {}, plain, None
        if reply.delay > 0 and owner._stopping.wait(reply.delay):
            return None
        if payload is None:
            payload = _error_body(reply.status, reply.content)
        return reply.status, payload, dict(reply.headers or {}), reply, events

    # -- I/O

    def _read_body(self) -> bytes:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = 0
        return self.rfile.read(length) if length > 0 else b""

    def _send_json(
        self,
        status: int,
        payload: dict[str, Any],
        extra: dict[str, str] | None = None,
        before_send: Callable[[], None] | None = None,
        delivery: Reply | None = None,
        content_type: str = _JSON,
    ) -> None:
        data = json.dumps(payload).encode("utf-8")
        if delivery is not None and delivery.raw_body is not None:
            data = delivery.raw_body
        if before_send is not None:
            before_send()
        trickle = delivery.trickle if delivery is not None else 0.0
        cut = delivery.cut_after if delivery is not None else None
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (extra or {}).items():
                self.send_header(name, value)
            self._end_headers(trickle)
            if cut is not None:
                data, self.close_connection = data[:max(0, cut)], True
            if trickle > 0:
                self._trickle(data, trickle)
            else:
                self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            self.close_connection = True  # the client went away (it timed out, say)

    def _send_stream(self, events: list[_Event], extra: dict[str, str], record: Callable[[], None],
                     reply: Reply) -> None:
        """Send ``events`` as a chunked ``text/event-stream`` body, one HTTP chunk per event, paced by the
        reply's ``first_token_delay`` and ``token_rate`` and cut after ``cut_after`` event-stream bytes."""
        recorded = False

        def record_once() -> None:
            nonlocal recorded
            if not recorded:
                recorded = True
                record()

        stopping = self._owner._stopping
        interval = 1.0 / reply.token_rate if reply.token_rate > 0 else 0.0
        budget = reply.cut_after  # event-stream bytes left before the cut
        try:
            self.send_response(200)
            self.send_header("Content-Type", _EVENT_STREAM)
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Cache-Control", "no-cache")
            for name, value in extra.items():
                self.send_header(name, value)
            self._end_headers(reply.trickle)
            waited_first = False
            for position, event in enumerate(events):
                pause = 0.0
                if position > 0 and not waited_first:  # the first chunk after the role chunk
                    pause, waited_first = reply.first_token_delay, True
                elif event.timed:
                    pause = interval
                if pause > 0 and stopping.wait(pause):
                    self.close_connection = True
                    return
                data = event.data
                frame = b"%x\r\n" % len(data)
                if budget is not None and budget <= len(data):  # the cut: a chunk that never ends
                    record_once()
                    self._write(frame + data[:max(0, budget)], reply.trickle)
                    self.close_connection = True
                    return
                frame += data + b"\r\n"
                if position == len(events) - 1:
                    frame += b"0\r\n\r\n"  # the end of the chunked body
                    record_once()
                self._write(frame, reply.trickle)
                if budget is not None:
                    budget -= len(data)
            if budget is not None:  # cut_after beyond the stream: all of it went out, then the connection closes
                self.close_connection = True
        except OSError:
            self.close_connection = True  # the client went away (or the server stopped)
        finally:
            record_once()

    def _send_raw_stream(self, pieces: Iterable[bytes], extra: dict[str, str], record: Callable[[], None]) -> None:
        """Send ``pieces`` as a chunked ``text/event-stream`` body, one HTTP chunk each, until they end, the
        client goes away or the server stops."""
        stopping = self._owner._stopping
        try:
            self.send_response(200)
            self.send_header("Content-Type", _EVENT_STREAM)
            self.send_header("Transfer-Encoding", "chunked")
            for name, value in extra.items():
                self.send_header(name, value)
            self.end_headers()
            for piece in pieces:
                if stopping.is_set():
                    self.close_connection = True
                    return
                if piece:
                    self._write(b"%x\r\n" % len(piece) + piece + b"\r\n", 0.0)
            self._write(b"0\r\n\r\n", 0.0)
        except OSError:
            self.close_connection = True  # the client stopped reading (or the server stopped)
        finally:
            record()

    def _end_headers(self, trickle: float) -> None:
        if trickle > 0:
            buffered: list[bytes] = getattr(self, "_headers_buffer", [])  # what end_headers would send
            self._trickle(b"".join(buffered) + b"\r\n", trickle)
            buffered.clear()
        else:
            self.end_headers()

    def _write(self, data: bytes, trickle: float) -> None:
        if trickle > 0:
            self._trickle(data, trickle)
        else:
            self.wfile.write(data)
        self.wfile.flush()

    def _trickle(self, data: bytes, pause: float) -> None:
        """Write ``data`` one byte at a time, ``pause`` seconds apart, until the server stops."""
        for i in range(len(data)):
            self.wfile.write(data[i:i + 1])
            self.wfile.flush()
            if self._owner._stopping.wait(pause):
                self.close_connection = True
                raise OSError("the server stopped")


def max_overlap(requests: Sequence[RecordedRequest],
                predicate: Callable[[RecordedRequest], bool] = lambda r: True) -> int:
    """The largest number of matching ``requests`` that were in flight at once."""
    events: list[tuple[float, int]] = []
    for req in requests:
        if predicate(req):
            events.append((req.started, 1))
            events.append((req.finished, -1))
    # At equal times ends (-1) sort before starts (+1): intervals that merely touch do not overlap.
    events.sort()
    best = current = 0
    for _, delta in events:
        current += delta
        best = max(best, current)
    return best


class LocalChatServer:
    """An OpenAI chat-completions server on 127.0.0.1, served from a background thread.

    ``start()`` binds and starts serving (port 0 picks a free port); ``stop()`` shuts down, closes
    open connections (dropping delayed replies) and joins the thread. Also a context manager.
    ``tls``: serve HTTPS with this server-side context (its certificate chain loaded).
    """

    def __init__(self, handler: Handler, *, port: int = 0, tls: ssl.SSLContext | None = None) -> None:
        self.handler = handler
        self.port = port
        self.tls = tls
        self._opened = 0
        self._handshakes = 0
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._connections: set[socket.socket] = set()
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle

    def start(self) -> Self:
        if self._stopping.is_set():
            raise RuntimeError("LocalChatServer cannot be restarted after stop()")
        if self._httpd is not None:
            return self
        httpd = _HTTPServer(self, self.port)
        self.port = httpd.server_port
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"LocalChatServer:{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        with self._lock:
            self._stopping.set()  # wakes delayed replies
            connections = list(self._connections)
        httpd, thread = self._httpd, self._thread
        if httpd is not None:
            httpd.shutdown()
        for conn in connections:
            _shutdown_socket(conn)
        if httpd is not None:
            httpd.server_close()
        if thread is not None:
            thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- introspection

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1`` (``https://`` with ``tls``), once started."""
        if self._httpd is None:
            raise RuntimeError("LocalChatServer is not started")
        return f"{'https' if self.tls is not None else 'http'}://{HOST}:{self.port}/v1"

    @property
    def connections_opened(self) -> int:
        """How many connections clients opened so far (each request on a kept-alive one adds none)."""
        with self._lock:
            return self._opened

    @property
    def tls_handshakes(self) -> int:
        """How many TLS handshakes completed so far (0 without ``tls``)."""
        with self._lock:
            return self._handshakes

    @property
    def requests(self) -> list[RecordedRequest]:
        """Snapshot of the recorded chat-completions requests, in finish order."""
        with self._lock:
            return list(self._requests)

    def max_overlap(self, predicate: Callable[[RecordedRequest], bool] = lambda r: True) -> int:
        """The largest number of matching requests that were in flight at once."""
        return max_overlap(self.requests, predicate)

    # -- used by the request handler

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _count_connection(self) -> None:
        with self._lock:
            self._opened += 1

    def _count_handshake(self) -> None:
        with self._lock:
            self._handshakes += 1

    def _register_connection(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.add(conn)
            stopping = self._stopping.is_set()
        if stopping:
            _shutdown_socket(conn)

    def _unregister_connection(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.discard(conn)


def _shutdown_socket(conn: socket.socket) -> None:
    with contextlib.suppress(OSError):
        conn.shutdown(socket.SHUT_RDWR)


# --------------------------------------------------------------------------- simple handlers


def echo_handler(request: Mapping[str, Any]) -> Reply:
    """Reply with the content of the last user message ("" if there is none)."""
    messages = request.get("messages")
    if isinstance(messages, list):
        for message in reversed(messages):
            if isinstance(message, dict) and message.get("role") == "user":
                return Reply(content=content_text(message.get("content")))
    return Reply(content="")


def scripted(replies: Sequence[Reply]) -> Handler:
    """A handler answering ``replies`` in order (thread-safe); the last one repeats."""
    script = list(replies)
    if not script:
        raise ValueError("scripted() needs at least one Reply")
    lock = threading.Lock()
    position = 0

    def handler(request: ChatRequest) -> Reply:
        nonlocal position
        with lock:
            reply = script[min(position, len(script) - 1)]
            position += 1
        return reply

    return handler
