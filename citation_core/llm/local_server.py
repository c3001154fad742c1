"""A tiny OpenAI-compatible chat-completions server for tests and benchmarks.

The server is dependency-free (stdlib ``http.server``) and binds to
``127.0.0.1`` on a free port by default.  It speaks just enough of the OpenAI
protocol to exercise an OpenAI-compatible client over real HTTP:

* ``POST /v1/chat/completions`` (non-streaming) -> ``chat.completion`` object
* ``GET /v1/models`` -> ``list`` of model objects

Every chat-completions request is passed (as parsed JSON) to a *handler*
callable which returns a :class:`Reply` describing what to answer: content,
HTTP status, artificial latency, token usage, tool calls and extra headers.
Requests are served concurrently and recorded (:attr:`LocalChatServer.requests`)
with their arrival/finish times, so tests can assert on concurrency with
:meth:`LocalChatServer.max_overlap`.

Example::

    with LocalChatServer(echo_handler) as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0)
        out = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}]
        )
        assert out.choices[0].message.content == "hi"
"""

from __future__ import annotations

import contextlib
import copy
import json
import socket
import socketserver
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

__all__ = [
    "Handler",
    "LocalChatServer",
    "RecordedRequest",
    "Reply",
    "echo_handler",
    "scripted",
]

DEFAULT_MODEL = "local-model"

# OpenAI-style ``error.type`` / ``error.code`` values for common statuses.
_ERROR_KINDS: dict[int, tuple[str, str]] = {
    400: ("invalid_request_error", "bad_request"),
    401: ("authentication_error", "invalid_api_key"),
    403: ("permission_error", "permission_denied"),
    404: ("invalid_request_error", "not_found"),
    408: ("timeout_error", "timeout"),
    409: ("invalid_request_error", "conflict"),
    413: ("invalid_request_error", "request_too_large"),
    422: ("invalid_request_error", "unprocessable_entity"),
    429: ("rate_limit_error", "rate_limit_exceeded"),
    500: ("server_error", "internal_error"),
    502: ("server_error", "bad_gateway"),
    503: ("server_error", "service_unavailable"),
    504: ("server_error", "gateway_timeout"),
}


@dataclass(frozen=True)
class RecordedRequest:
    """One chat-completions request as seen by the server."""

    body: dict[str, Any]  # parsed JSON request ({} if the body was not valid JSON)
    headers: dict[str, str]  # request headers, names lower-cased
    started: float  # time.monotonic() when the request arrived
    finished: float  # time.monotonic() when the response was sent (just before writing it)
    status: int  # HTTP status that was answered


@dataclass(frozen=True)
class Reply:
    """What the server answers to one chat-completions request.

    A non-200 ``status`` produces an OpenAI-style error body
    ``{"error": {"message", "type", "code"}}`` whose message is ``content``
    (or the HTTP reason phrase when ``content`` is empty).
    """

    content: str = ""
    status: int = 200
    delay: float = 0.0  # seconds to sleep before answering
    prompt_tokens: int | None = None  # default: ~chars/4 of the request messages
    completion_tokens: int | None = None  # default: ~chars/4 of content + tool calls
    tool_calls: list[dict[str, Any]] | None = None  # -> finish_reason "tool_calls"
    headers: dict[str, str] | None = None  # extra response headers


Handler = Callable[[dict[str, Any]], Reply]
"""Gets the request body, returns the reply.  Called from many threads at once."""


# --------------------------------------------------------------------------- helpers


def _content_text(content: Any) -> str:
    """Text of a message ``content`` (a string or a list of content parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "".join(parts)
    return str(content)


def _estimate_tokens(chars: int) -> int:
    return (chars + 3) // 4


def _estimate_prompt_tokens(body: dict[str, Any]) -> int:
    messages = body.get("messages")
    if not isinstance(messages, list):
        return 0
    chars = 0
    for message in messages:
        if isinstance(message, dict):
            chars += len(_content_text(message.get("content")))
    return _estimate_tokens(chars)


def _normalize_tool_calls(tool_calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fill in ``id``/``type`` and stringify ``arguments`` so the SDK parses them."""
    out: list[dict[str, Any]] = []
    for index, call in enumerate(tool_calls):
        item = copy.deepcopy(call)
        item.setdefault("id", f"call_{index}_{uuid.uuid4().hex[:12]}")
        item.setdefault("type", "function")
        function = item.get("function")
        if isinstance(function, dict):
            args = function.get("arguments", "")
            if not isinstance(args, str):
                function["arguments"] = json.dumps(args)
            else:
                function.setdefault("arguments", args)
        out.append(item)
    return out


def _error_body(status: int, message: str) -> dict[str, Any]:
    kind, code = _ERROR_KINDS.get(status, ("server_error" if status >= 500 else "invalid_request_error", str(status)))
    if not message:
        try:
            message = HTTPStatus(status).phrase
        except ValueError:
            message = f"HTTP {status}"
    return {"error": {"message": message, "type": kind, "code": code, "param": None}}


def _completion_body(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    tool_calls = _normalize_tool_calls(reply.tool_calls) if reply.tool_calls else None
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if tool_calls:
        message["tool_calls"] = tool_calls
        if not reply.content:
            message["content"] = None
    prompt_tokens = reply.prompt_tokens if reply.prompt_tokens is not None else _estimate_prompt_tokens(body)
    if reply.completion_tokens is not None:
        completion_tokens = reply.completion_tokens
    else:
        chars = len(reply.content)
        for call in tool_calls or []:
            function = call.get("function")
            if isinstance(function, dict):
                chars += len(str(function.get("name", "")))
                chars += len(str(function.get("arguments", "")))
        completion_tokens = _estimate_tokens(chars)
    model = body.get("model")
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model if isinstance(model, str) else DEFAULT_MODEL,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_calls else "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


# --------------------------------------------------------------------------- server


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # many parallel clients connect at once (benchmarks)
    block_on_close = False

    def __init__(self, owner: LocalChatServer, address: tuple[str, int]) -> None:
        self.owner = owner
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, _RequestHandler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind() calls socket.getfqdn(), which may do a slow
        # reverse DNS lookup; we never need the FQDN.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name = str(host)
        self.server_port = int(port)


class _RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive; every response has Content-Length
    disable_nagle_algorithm = True  # headers and body go out in two writes
    server_version = "LocalChatServer/1.0"

    @property
    def _owner(self) -> LocalChatServer:
        server = self.server
        assert isinstance(server, _HTTPServer)
        return server.owner

    # -- connection bookkeeping (so stop() can close idle keep-alive sockets)

    def setup(self) -> None:
        super().setup()
        self._owner._register_connection(self.connection)

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

    def _route(self) -> str:
        path = self.path.split("?", 1)[0].rstrip("/")
        return path[3:] if path.startswith("/v1/") or path == "/v1" else path

    def do_GET(self) -> None:
        if self._route() == "/models":
            self._send_json(200, self._owner._models_body())
        else:
            self._send_json(404, _error_body(404, f"unknown path {self.path}"))

    def do_POST(self) -> None:
        started = time.monotonic()
        raw = self._read_body()
        if self._route() != "/chat/completions":
            self._send_json(404, _error_body(404, f"unknown path {self.path}"))
            return
        headers = {name.lower(): value for name, value in self.headers.items()}
        owner = self._owner
        body: dict[str, Any] = {}
        extra: dict[str, str]
        try:
            parsed = json.loads(raw or b"null")
        except (ValueError, UnicodeDecodeError) as exc:
            status, payload, extra = 400, _error_body(400, f"invalid JSON body: {exc}"), {}
        else:
            if isinstance(parsed, dict):
                body = parsed
                status, payload, extra, aborted = self._answer(owner, body)
                if aborted:
                    # stop() was called while the reply was delayed: drop it.
                    self.close_connection = True
                    return
            else:
                status, payload, extra = (
                    400,
                    _error_body(400, "request body must be a JSON object"),
                    {},
                )

        def record() -> None:
            # Recorded just before the response goes out, so the record is
            # visible by the time the client has the response in hand.
            owner._record(
                RecordedRequest(
                    body=body,
                    headers=headers,
                    started=started,
                    finished=time.monotonic(),
                    status=status,
                )
            )

        self._send_json(status, payload, extra, before_send=record)

    def _answer(self, owner: LocalChatServer, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str], bool]:
        """Run the handler; returns (status, payload, extra headers, aborted)."""
        if body.get("stream"):
            return 400, _error_body(400, "streaming is not supported"), {}, False
        try:
            reply = owner.handler(copy.deepcopy(body))
            if not isinstance(reply, Reply):
                raise TypeError(f"handler returned {type(reply).__name__}, not Reply")
            if not 200 <= reply.status <= 599:
                raise ValueError(f"invalid reply status {reply.status}")
        except Exception as exc:  # noqa: BLE001 - reported to the client as a 500
            message = f"handler error: {type(exc).__name__}: {exc}"
            return 500, _error_body(500, message), {}, False
        if reply.delay > 0 and owner._stopping.wait(reply.delay):
            return 0, {}, {}, True
        extra = dict(reply.headers or {})
        if reply.status != 200:
            return reply.status, _error_body(reply.status, reply.content), extra, False
        try:
            payload = _completion_body(body, reply)
        except Exception as exc:  # noqa: BLE001
            message = f"cannot build completion: {type(exc).__name__}: {exc}"
            return 500, _error_body(500, message), {}, False
        return 200, payload, extra, False

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
    ) -> None:
        data = json.dumps(payload).encode("utf-8")
        if before_send is not None:
            before_send()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("x-request-id", f"req_{uuid.uuid4().hex[:16]}")
            for name, value in (extra or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            # The client went away (e.g. it timed out); nothing left to do.
            self.close_connection = True


class LocalChatServer:
    """OpenAI chat-completions server on a background thread.

    ``start()`` binds and starts serving (port 0 picks a free port);
    ``stop()`` shuts down, closes open connections and joins the thread.
    Also usable as a context manager.
    """

    def __init__(
        self,
        handler: Handler,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        models: Sequence[str] = (DEFAULT_MODEL,),
    ) -> None:
        self.handler = handler
        self.host = host
        self.port = port
        self.models = tuple(models)
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
        httpd = _HTTPServer(self, (self.host, self.port))
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
        """``http://HOST:PORT/v1`` (only valid once started)."""
        if self._httpd is None:
            raise RuntimeError("LocalChatServer is not started")
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """Snapshot of the recorded chat-completions requests, in finish order."""
        with self._lock:
            return list(self._requests)

    def max_overlap(self, predicate: Callable[[RecordedRequest], bool] = lambda r: True) -> int:
        """Maximum number of matching requests that were in flight at once."""
        events: list[tuple[float, int]] = []
        for req in self.requests:
            if predicate(req):
                events.append((req.started, 1))
                events.append((req.finished, -1))
        # At equal timestamps process ends (-1) before starts (+1): intervals
        # that merely touch do not overlap.
        events.sort()
        best = current = 0
        for _, delta in events:
            current += delta
            best = max(best, current)
        return best

    # -- internals used by the request handler

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _register_connection(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.add(conn)
            stopping = self._stopping.is_set()
        if stopping:
            _shutdown_socket(conn)

    def _unregister_connection(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.discard(conn)

    def _models_body(self) -> dict[str, Any]:
        created = int(time.time())
        return {
            "object": "list",
            "data": [{"id": name, "object": "model", "created": created, "owned_by": "local"} for name in self.models],
        }


def _shutdown_socket(conn: socket.socket) -> None:
    with contextlib.suppress(OSError):
        conn.shutdown(socket.SHUT_RDWR)


# --------------------------------------------------------------------------- handlers


def echo_handler(body: dict[str, Any]) -> Reply:
    """Reply with the content of the last user message ("" if there is none)."""
    messages = body.get("messages")
    if isinstance(messages, list):
        for message in reversed(messages):
            if isinstance(message, dict) and message.get("role") == "user":
                return Reply(content=_content_text(message.get("content")))
    return Reply(content="")


def scripted(replies: Sequence[Reply]) -> Handler:
    """Handler returning ``replies`` in order (thread-safe); repeats the last one."""
    script = list(replies)
    if not script:
        raise ValueError("scripted() needs at least one Reply")
    lock = threading.Lock()
    position = 0

    def handler(body: dict[str, Any]) -> Reply:
        nonlocal position
        with lock:
            reply = script[min(position, len(script) - 1)]
            position += 1
        return reply

    return handler
