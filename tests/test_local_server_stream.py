"""Streamed chat completions (``"stream": true``) from the local OpenAI-compatible server, read with the SDK."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from typing import Any

import httpx2
import openai
import pytest
from openai.types.chat import ChatCompletionChunk, ChatCompletionMessageParam

from citation_core.testing import LocalChatServer, Reply, scripted

USER_HI: list[ChatCompletionMessageParam] = [{"role": "user", "content": "hello there"}]

# Newlines, a code fence, non-ASCII text, runs of spaces and whitespace at both ends.
TRICKY = (
    "  Voilà: the answer — 答案 is below.\n\n"
    "```python\ndef f(x):\n    return x * 2  # ünïcode\n```\n"
    "Done.\t \n"
)

TWO_CALLS: list[dict[str, Any]] = [
    {"id": "call_a", "function": {"name": "lookup", "arguments": {"q": "doi 10.1/x", "limit": 3}}},
    {"function": {"name": "fetch_page", "arguments": '{"url": "https://example.org/ä", "pages": [1, 2]}'}},
]


def _client(srv: LocalChatServer, timeout: float = 5.0) -> openai.OpenAI:
    return openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0, timeout=timeout)


def _async_client(srv: LocalChatServer, timeout: float = 5.0) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=srv.base_url, api_key="x", max_retries=0, timeout=timeout)


def _stream(srv: LocalChatServer, **kwargs: Any) -> list[ChatCompletionChunk]:
    return list(_client(srv).chat.completions.create(model="m", messages=USER_HI, stream=True, **kwargs))


def _content_deltas(chunks: list[ChatCompletionChunk]) -> list[str]:
    return [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]


def _finish_reasons(chunks: list[ChatCompletionChunk]) -> list[str]:
    return [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]


def test_content_deltas_join_to_the_exact_content() -> None:
    with LocalChatServer(scripted([Reply(TRICKY)])) as srv:
        chunks = _stream(srv)
        (record,) = srv.requests
    deltas = _content_deltas(chunks)
    assert "".join(deltas) == TRICKY
    assert len(deltas) > 10  # word-sized pieces, not one blob
    assert all(len(d.split()) <= 1 for d in deltas)  # one word each, whitespace attached
    assert chunks[0].choices[0].delta.role == "assistant"
    assert all(c.object == "chat.completion.chunk" and c.model == "m" for c in chunks)
    assert len({c.id for c in chunks}) == 1
    assert _finish_reasons(chunks) == ["stop"]
    last = chunks[-1].choices[0]
    assert last.finish_reason == "stop" and last.delta.content is None and last.delta.role is None
    assert all(c.usage is None for c in chunks)  # no usage chunk unless asked for
    assert record.status == 200 and record.body["stream"] is True


def test_async_client_reads_the_stream() -> None:
    async def read(srv: LocalChatServer) -> list[ChatCompletionChunk]:
        client = _async_client(srv)
        stream = await client.chat.completions.create(model="m", messages=USER_HI, stream=True)
        return [chunk async for chunk in stream]

    with LocalChatServer(scripted([Reply(TRICKY)])) as srv:
        chunks = asyncio.run(read(srv))
    assert "".join(_content_deltas(chunks)) == TRICKY
    assert _finish_reasons(chunks) == ["stop"]


def test_stream_pieces_groups_whole_words() -> None:
    text = "one two three four five six seven"
    with LocalChatServer(scripted([Reply(text, stream_pieces=3), Reply(text, stream_pieces=1)])) as srv:
        three = _content_deltas(_stream(srv))
        one = _content_deltas(_stream(srv))
    assert len(three) == 3 and "".join(three) == text
    assert [word for piece in three for word in piece.split()] == text.split()  # cut between words
    assert all(piece.startswith(" ") for piece in three[1:])
    assert one == [text]


def test_tool_calls_stream_in_pieces_and_reassemble() -> None:
    with LocalChatServer(scripted([Reply(tool_calls=TWO_CALLS)])) as srv:
        chunks = _stream(srv)

    calls: dict[int, dict[str, Any]] = {}
    argument_pieces: dict[int, int] = {}
    for chunk in chunks:
        for call in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            if call.index not in calls:  # the first chunk of a call names it, with empty arguments
                assert call.id and call.type == "function"
                assert call.function is not None and call.function.name and call.function.arguments == ""
                calls[call.index] = {"id": call.id, "name": call.function.name, "arguments": ""}
                argument_pieces[call.index] = 0
            else:
                assert call.id is None and call.function is not None and call.function.name is None
                calls[call.index]["arguments"] += call.function.arguments or ""
                argument_pieces[call.index] += 1

    assert sorted(calls) == [0, 1]
    assert calls[0]["id"] == "call_a" and calls[0]["name"] == "lookup"
    assert json.loads(calls[0]["arguments"]) == {"q": "doi 10.1/x", "limit": 3}
    assert calls[1]["name"] == "fetch_page" and calls[1]["id"] != calls[0]["id"]
    assert calls[1]["arguments"] == '{"url": "https://example.org/ä", "pages": [1, 2]}'
    assert argument_pieces[0] >= 2 and argument_pieces[1] >= 2
    assert chunks[0].choices[0].delta.role == "assistant"
    assert _content_deltas(chunks) == []
    assert _finish_reasons(chunks) == ["tool_calls"]


def test_usage_chunk_only_with_include_usage() -> None:
    reply = Reply("four words of content", tool_calls=TWO_CALLS[:1])
    with LocalChatServer(scripted([reply])) as srv:
        plain = _client(srv).chat.completions.create(model="m", messages=USER_HI)
        with_usage = _stream(srv, stream_options={"include_usage": True})
        without = _stream(srv)
        explicit_off = _stream(srv, stream_options={"include_usage": False})

    *body, last = with_usage
    assert last.choices == [] and last.usage is not None and plain.usage is not None
    assert last.usage.prompt_tokens == plain.usage.prompt_tokens == 3
    assert last.usage.completion_tokens == plain.usage.completion_tokens
    assert last.usage.total_tokens == plain.usage.total_tokens
    assert all(c.usage is None and c.choices for c in body)
    assert _finish_reasons(body) == ["tool_calls"]
    for chunks in (without, explicit_off):
        assert all(c.usage is None and c.choices for c in chunks)
        assert "".join(_content_deltas(chunks)) == "four words of content"


def test_usage_chunk_honours_the_replys_token_counts() -> None:
    with LocalChatServer(scripted([Reply("hi", prompt_tokens=11, completion_tokens=7)])) as srv:
        last = _stream(srv, stream_options={"include_usage": True})[-1]
    assert last.usage is not None
    assert (last.usage.prompt_tokens, last.usage.completion_tokens, last.usage.total_tokens) == (11, 7, 18)


def test_first_token_delay_and_token_rate_pace_the_chunks() -> None:
    delay, rate = 0.3, 20.0
    text = "a b c d e f"  # six pieces: the last one at least delay + 5 / rate after the request
    with LocalChatServer(scripted([Reply(text, first_token_delay=delay, token_rate=rate)])) as srv:
        started = time.monotonic()
        arrivals: list[tuple[float, ChatCompletionChunk]] = []
        for chunk in _client(srv).chat.completions.create(model="m", messages=USER_HI, stream=True):
            arrivals.append((time.monotonic(), chunk))

    content = [(at, c) for at, c in arrivals if c.choices and c.choices[0].delta.content]
    assert "".join(c.choices[0].delta.content or "" for _, c in content) == text
    assert arrivals[0][1].choices[0].delta.role == "assistant"
    assert arrivals[0][0] <= content[0][0]  # the role chunk comes first
    assert content[0][0] - started >= delay
    assert content[-1][0] - started >= delay + (len(content) - 1) / rate
    times = [at for at, _ in arrivals]
    assert times == sorted(times)


def test_first_token_delay_applies_to_tool_calls_too() -> None:
    with LocalChatServer(scripted([Reply(tool_calls=TWO_CALLS, first_token_delay=0.25)])) as srv:
        started = time.monotonic()
        first_call_at = None
        for chunk in _client(srv).chat.completions.create(model="m", messages=USER_HI, stream=True):
            if first_call_at is None and chunk.choices and chunk.choices[0].delta.tool_calls:
                first_call_at = time.monotonic()
    assert first_call_at is not None and first_call_at - started >= 0.25


def test_a_reply_that_does_not_stream_answers_plain_json() -> None:
    request = {"model": "m", "messages": USER_HI, "stream": True}
    with LocalChatServer(scripted([Reply("not streamed", stream=False), Reply("streamed")])) as srv:
        url = srv.base_url + "/chat/completions"
        with httpx2.Client(timeout=5) as http:
            plain = http.post(url, json=request)
            streamed = http.post(url, json=request)
    assert plain.status_code == 200
    assert plain.headers["content-type"] == "application/json"
    body = plain.json()
    assert body["object"] == "chat.completion"
    assert body["choices"][0]["message"]["content"] == "not streamed"

    assert streamed.status_code == 200
    assert streamed.headers["content-type"].startswith("text/event-stream")
    events = [e for e in streamed.text.split("\n\n") if e]
    assert all(e.startswith("data: ") for e in events)
    assert events[-1] == "data: [DONE]"
    first = json.loads(events[0].removeprefix("data: "))
    assert first["object"] == "chat.completion.chunk" and first["choices"][0]["delta"]["role"] == "assistant"


def test_a_cut_stream_fails_in_the_consumer_after_some_deltas() -> None:
    text = " ".join(f"word{i}" for i in range(60))
    with LocalChatServer(scripted([Reply(text, cut_after=700)])) as srv:
        got: list[str] = []
        with pytest.raises(openai.APIConnectionError):
            for chunk in _client(srv).chat.completions.create(model="m", messages=USER_HI, stream=True):
                if chunk.choices and chunk.choices[0].delta.content:
                    got.append(chunk.choices[0].delta.content)
        (record,) = srv.requests
    assert got and text.startswith("".join(got)) and "".join(got) != text
    assert record.status == 200


def test_a_cut_stream_fails_in_the_async_consumer_too() -> None:
    text = " ".join(f"word{i}" for i in range(60))

    async def read(srv: LocalChatServer, got: list[str]) -> None:
        stream = await _async_client(srv).chat.completions.create(model="m", messages=USER_HI, stream=True)
        async for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                got.append(chunk.choices[0].delta.content)

    with LocalChatServer(scripted([Reply(text, cut_after=900)])) as srv:
        got: list[str] = []
        with pytest.raises(openai.APIConnectionError):
            asyncio.run(read(srv, got))
    assert got and text.startswith("".join(got)) and "".join(got) != text


def test_errors_to_a_streaming_request_are_plain_json() -> None:
    def boom(request: Any) -> Reply:
        raise RuntimeError("kaput")

    with LocalChatServer(scripted([Reply("slow down", status=429)])) as srv:
        with pytest.raises(openai.RateLimitError) as info:
            _stream(srv)
        assert "slow down" in str(info.value)
    with LocalChatServer(boom) as srv:
        with pytest.raises(openai.InternalServerError) as error:
            _stream(srv)
        assert "kaput" in str(error.value)


def test_raw_body_is_sent_as_the_event_stream() -> None:
    chunk = {"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m",
             "choices": [{"index": 0, "delta": {"role": "assistant", "content": "raw"}, "finish_reason": "stop"}]}
    raw = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
    with LocalChatServer(scripted([Reply(raw_body=raw)])) as srv:
        chunks = _stream(srv)
        with httpx2.Client(timeout=5) as http:
            resp = http.post(srv.base_url + "/chat/completions",
                             json={"model": "m", "messages": USER_HI, "stream": True})
    assert _content_deltas(chunks) == ["raw"]
    assert resp.headers["content-type"].startswith("text/event-stream") and resp.content == raw


def test_raw_stream_is_sent_piece_by_piece_and_may_never_end() -> None:
    chunk = {"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m",
             "choices": [{"index": 0, "delta": {"content": "again "}, "finish_reason": None}]}
    event = f"data: {json.dumps(chunk)}\n\n".encode()
    with LocalChatServer(scripted([Reply(raw_stream=lambda: itertools.repeat(event))])) as srv:
        stream = _client(srv).chat.completions.create(model="m", messages=USER_HI, stream=True)
        deltas = [c.choices[0].delta.content for c in itertools.islice(stream, 1000)]
        stream.close()  # the server stops sending when the client goes away
    assert deltas == ["again "] * 1000


def test_trickled_stream_still_reads_whole() -> None:
    with LocalChatServer(scripted([Reply("slowly but surely", trickle=0.0005)])) as srv:
        chunks = _stream(srv)
    assert "".join(_content_deltas(chunks)) == "slowly but surely"


def test_stop_ends_a_stream_that_is_waiting() -> None:
    srv = LocalChatServer(scripted([Reply("never sent", first_token_delay=30)])).start()
    try:
        stream = _client(srv, timeout=10).chat.completions.create(model="m", messages=USER_HI, stream=True)
        first = next(iter(stream))
        assert first.choices[0].delta.role == "assistant"
        stopper = threading.Thread(target=srv.stop)
        stopper.start()
        with pytest.raises(openai.APIConnectionError):
            for _ in stream:
                pass
        stopper.join(timeout=10)
        assert not stopper.is_alive()
    finally:
        srv.stop()
