"""Tests for the local OpenAI-compatible chat-completions server."""

from __future__ import annotations

import http.client
import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from citation_core.testing import (
    ChatRequest,
    LocalChatServer,
    Reply,
    echo_handler,
    scripted,
)

USER_HI: list[ChatCompletionMessageParam] = [{"role": "user", "content": "hello there"}]


def _client(srv: LocalChatServer, timeout: float = 5.0) -> openai.OpenAI:
    return openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0, timeout=timeout)


def _raw(srv: LocalChatServer, method: str, path: str, body: bytes | None = None) -> tuple[int, dict[str, str], Any]:
    parts = urlsplit(srv.base_url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=5)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, body=body, headers=headers)
        resp = conn.getresponse()
        data = json.loads(resp.read())
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data
    finally:
        conn.close()


def test_sdk_gets_content_and_usage() -> None:
    with LocalChatServer(echo_handler) as srv:
        assert srv.base_url.startswith("http://127.0.0.1:")
        assert srv.base_url.endswith("/v1")
        out = _client(srv).chat.completions.create(model="my-model", messages=USER_HI)
        assert out.choices[0].message.content == "hello there"
        assert out.choices[0].finish_reason == "stop"
        assert out.model == "my-model"
        assert out.usage is not None
        assert out.usage.prompt_tokens == 3  # 11 chars / 4, rounded up
        assert out.usage.completion_tokens == 3
        assert out.usage.total_tokens == 6

        reqs = srv.requests
        assert len(reqs) == 1
        assert reqs[0].status == 200
        assert reqs[0].body["model"] == "my-model"
        assert reqs[0].headers["authorization"] == "Bearer x"
        assert reqs[0].task is None  # the SDK alone names no task


def test_handler_gets_the_headers_and_the_record_keeps_the_body_as_sent() -> None:
    seen: list[tuple[str | None, str]] = []

    def handler(request: ChatRequest) -> Reply:
        seen.append((request.task, request.headers["x-extra"]))
        request["model"] = "changed by the handler"
        return Reply("ok")

    with LocalChatServer(handler) as srv:
        _client(srv).chat.completions.create(
            model="m", messages=USER_HI, extra_headers={"X-Citation-Task": "summary", "X-Extra": "1"}
        )
        (req,) = srv.requests
    assert seen == [("summary", "1")]
    assert req.task == "summary" and req.headers["x-citation-task"] == "summary"
    assert req.body["model"] == "m"


def test_explicit_usage_and_scripted_order() -> None:
    handler = scripted(
        [
            Reply("first", prompt_tokens=100, completion_tokens=7),
            Reply("second"),
        ]
    )
    with LocalChatServer(handler) as srv:
        client = _client(srv)
        got = [client.chat.completions.create(model="m", messages=USER_HI) for _ in range(3)]
    assert [c.choices[0].message.content for c in got] == ["first", "second", "second"]
    usage = got[0].usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (100, 7, 107)


def test_scripted_requires_replies() -> None:
    with pytest.raises(ValueError):
        scripted([])


def test_error_statuses_map_to_sdk_exceptions() -> None:
    handler = scripted(
        [
            Reply("slow down", status=429, headers={"retry-after": "0"}),
            Reply(status=500),
        ]
    )
    with LocalChatServer(handler) as srv:
        client = _client(srv)
        with pytest.raises(openai.RateLimitError) as rate:
            client.chat.completions.create(model="m", messages=USER_HI)
        assert rate.value.status_code == 429
        assert rate.value.response.headers["retry-after"] == "0"
        assert isinstance(rate.value.body, dict)
        assert rate.value.body["message"] == "slow down"
        assert rate.value.body["type"] == "rate_limit_error"
        with pytest.raises(openai.InternalServerError):
            client.chat.completions.create(model="m", messages=USER_HI)
        assert [r.status for r in srv.requests] == [429, 500]


def test_handler_exception_is_http_500() -> None:
    def boom(body: dict[str, Any]) -> Reply:
        raise RuntimeError("kaput")

    with LocalChatServer(boom) as srv:
        with pytest.raises(openai.InternalServerError):
            _client(srv).chat.completions.create(model="m", messages=USER_HI)
        status, _, data = _raw(srv, "POST", "/v1/chat/completions", b'{"model": "m"}')
        assert status == 500
        assert "kaput" in data["error"]["message"]
        assert data["error"]["type"] == "server_error"


@pytest.mark.parametrize(("reply", "reason"), [("text", "not Reply"), (Reply(status=700), "invalid reply status")])
def test_a_reply_that_is_not_one_is_http_500(reply: object, reason: str) -> None:
    with LocalChatServer(lambda request: reply) as srv:  # type: ignore[arg-type,return-value]
        status, _, data = _raw(srv, "POST", "/v1/chat/completions", b'{"model": "m"}')
    assert status == 500 and reason in data["error"]["message"]


def test_client_timeout_and_fast_stop() -> None:
    srv = LocalChatServer(scripted([Reply("late", delay=30.0)])).start()
    try:
        with pytest.raises(openai.APITimeoutError):
            _client(srv, timeout=0.2).chat.completions.create(model="m", messages=USER_HI)
    finally:
        t0 = time.monotonic()
        srv.stop()
        assert time.monotonic() - t0 < 1.0


def test_concurrent_requests_overlap() -> None:
    with LocalChatServer(scripted([Reply("ok", delay=0.3)])) as srv:
        client = _client(srv)

        def call(_: int) -> str | None:
            out = client.chat.completions.create(model="m", messages=USER_HI)
            return out.choices[0].message.content

        with ThreadPoolExecutor(max_workers=4) as pool:
            assert list(pool.map(call, range(4))) == ["ok"] * 4
        assert len(srv.requests) == 4
        assert srv.max_overlap() >= 2
        assert srv.max_overlap(lambda r: r.status != 200) == 0


def test_sequential_requests_do_not_overlap() -> None:
    with LocalChatServer(echo_handler) as srv:
        client = _client(srv)  # one keep-alive connection reused
        for _ in range(3):
            client.chat.completions.create(model="m", messages=USER_HI)
        assert srv.max_overlap() == 1


def test_tool_calls_round_trip() -> None:
    calls: list[dict[str, Any]] = [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "lookup", "arguments": json.dumps({"q": "doi"})},
        },
        # id/type omitted and dict arguments: filled in / serialised by the server
        {"function": {"name": "cite", "arguments": {"n": 2}}},
    ]
    with LocalChatServer(scripted([Reply(tool_calls=calls)])) as srv:
        out = _client(srv).chat.completions.create(model="m", messages=USER_HI)
    choice = out.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    tool_calls = choice.message.tool_calls
    assert tool_calls is not None and len(tool_calls) == 2
    first, second = tool_calls
    assert first.id == "call_1"
    assert first.function.name == "lookup"  # type: ignore[union-attr]
    assert json.loads(first.function.arguments) == {"q": "doi"}  # type: ignore[union-attr]
    assert second.id and second.type == "function"
    assert json.loads(second.function.arguments) == {"n": 2}  # type: ignore[union-attr]


def test_unknown_paths_and_bad_bodies_are_http_errors() -> None:
    with LocalChatServer(echo_handler) as srv:
        for method, path in (("GET", "/v1/models"), ("GET", "/v1/chat/completions"), ("POST", "/v1/nope")):
            status, _, data = _raw(srv, method, path, b"{}" if method == "POST" else None)
            assert status == 404 and "error" in data
        status, _, data = _raw(srv, "POST", "/v1/chat/completions", b"{not json")
        assert status == 400 and data["error"]["type"] == "invalid_request_error"
        status, _, data = _raw(srv, "POST", "/v1/chat/completions", b"[1, 2]")
        assert status == 400 and "JSON object" in data["error"]["message"]
        status, _, data = _raw(srv, "POST", "/v1/chat/completions", b'{"stream": true}')
        assert status == 400 and "streaming" in data["error"]["message"]
        assert [r.status for r in srv.requests] == [400, 400, 400]


def test_keep_alive_reuses_connection() -> None:
    with LocalChatServer(echo_handler) as srv:
        parts = urlsplit(srv.base_url)
        conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=5)
        try:
            for text in ("one", "two"):
                payload = {"model": "m", "messages": [{"role": "user", "content": text}]}
                conn.request(
                    "POST",
                    "/v1/chat/completions",
                    body=json.dumps(payload),
                    headers={"Content-Type": "application/json"},
                )
                resp = conn.getresponse()
                assert resp.status == 200
                assert resp.getheader("Content-Length") is not None
                assert json.loads(resp.read())["choices"][0]["message"]["content"] == text
        finally:
            conn.close()


def test_echo_handler_content_parts() -> None:
    reply = echo_handler(
        {
            "messages": [
                {"role": "user", "content": "old"},
                {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
                {"role": "assistant", "content": "ignored"},
            ]
        }
    )
    assert reply.content == "ab"
    assert echo_handler({}).content == ""


def test_base_url_requires_start_and_no_restart() -> None:
    srv = LocalChatServer(echo_handler)
    with pytest.raises(RuntimeError):
        _ = srv.base_url
    srv.start()
    srv.stop()
    srv.stop()  # idempotent
    with pytest.raises(RuntimeError):
        srv.start()
