"""An OpenAI-compatible server whose reply stream misbehaves: it stops without saying so or turns into an
HTML page, sends SSE fields other than ``data`` (which are fine), answers 200 with an error object, or
sends pieces of the wrong shape. A stream that stops early is a cut (its text kept and cited, the cut a
``writer`` failure, said on stderr); a server's error is reported in its own words; a malformed piece is
a model error naming the chunk and field, never an internal one.

Every test talks real HTTP to a ``LocalChatServer`` on 127.0.0.1. The timeouts guard against a hang.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from citation_core.chat.chat_pipeline import ChatPipeline, ChatResult
from citation_core.chat.view import ViewPosition
from citation_core.contract import strip_markers
from citation_core.errors import RunError, WriterError
from citation_core.material.library import load_material
from citation_core.testing import ChatRequest, LocalChatServer, Reply, cooperative_handler

from ..test_streaming import SAMPLES, openai_config
from .test_model_hostile import ask

TEXT = "Merge sort splits the list into two halves. Each half is sorted recursively, then the halves are merged."


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}


def event(payload: dict[str, Any] | str, end: str = "\n") -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload)
    return f"data: {data}{end}{end}".encode()


def words(text: str) -> list[bytes]:
    """``text`` as content chunks, a word each (with the space before it)."""
    pieces = text.split(" ")
    return [event(chunk({"content": (" " if i else "") + w})) for i, w in enumerate(pieces)]


ROLE = event(chunk({"role": "assistant", "content": ""}))
END = event(chunk({}, "stop")) + event("[DONE]")


def serving(writer: Reply) -> Callable[[ChatRequest], Reply]:
    """The writer's reply is ``writer``; the citation stage's calls are answered as a cooperative model would."""
    others = cooperative_handler()

    def handler(request: ChatRequest) -> Reply:
        return writer if request.task == "writer" else others(request)

    return handler


def asked(writer: Reply, streamed: bool = True) -> tuple[ChatResult, list[str]]:
    """One turn on the sample course with every role on a local server whose writer replies ``writer``."""
    pieces: list[str] = []
    with LocalChatServer(serving(writer)) as srv:
        chat = ChatPipeline(openai_config(srv.base_url), load_material(SAMPLES))
        result = chat("How does merge sort work?", ViewPosition(101, page=6),
                      on_delta=pieces.append if streamed else None)
    return result, pieces


def failing(writer: Reply, streamed: bool = True) -> str:
    with pytest.raises(RunError) as err:
        asked(writer, streamed)
    assert isinstance(err.value, WriterError)
    message = str(err.value)
    assert message.startswith("answer writer failed: model local: ") and "\n" not in message
    return message


# --- 5: a stream that stops without its end is a cut -----------------------------------------------------

HTML = (b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1>"
        b"</center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")

STOPPED = {
    "no finish_reason and no [DONE]": ROLE + b"".join(words(TEXT)),
    "an HTML error page mid-way": ROLE + b"".join(words(TEXT)) + HTML,
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("body", STOPPED.values(), ids=STOPPED.keys())
def test_a_stream_that_stops_without_its_end_keeps_its_text_and_reports_the_cut(body: bytes) -> None:
    result, pieces = asked(Reply(raw_body=body))
    assert "".join(pieces) == TEXT == result.writer_answer
    assert strip_markers(result.answer) == TEXT  # cited, never altered
    (cut,) = [f for f in result.failures if f.kind == "writer"]
    assert "the reply stream ended without finish_reason or [DONE]" in cut.message
    assert f"the {len(TEXT):,} characters that arrived are kept" in cut.message
    if b"<html>" in body:  # what came instead of events is named
        assert "not an event stream" in cut.message and "502 Bad Gateway" in cut.message


@pytest.mark.timeout(60)
def test_ask_says_on_stderr_that_a_stream_stopped_without_its_end(run_cli: Callable[..., tuple[int, str, str]],
                                                                  sample_course: Path) -> None:
    with LocalChatServer(serving(Reply(raw_body=STOPPED["an HTML error page mid-way"]))) as srv:
        code, out, err = run_cli(srv.base_url, *ask(sample_course), "--stream")
    assert code == 0 and TEXT in strip_markers(out)
    (line,) = err.strip().splitlines()
    assert line.startswith("citation-studio: model local: the reply stream ended without finish_reason or [DONE]")
    assert "502 Bad Gateway" in line


def test_a_stream_with_its_finish_reason_but_no_done_is_complete() -> None:
    result, _ = asked(Reply(raw_body=ROLE + b"".join(words(TEXT)) + event(chunk({}, "stop"))))
    assert result.writer_answer == TEXT and not [f for f in result.failures if f.kind == "writer"]


# --- 6: SSE fields other than data; an error object with status 200 --------------------------------------

def test_sse_fields_and_comments_are_read_as_the_standard_says() -> None:
    first, second = json.dumps(chunk({"content": "Merge sort splits"})).split(', "choices"')
    body = (b"retry: 3000\n\n"  # a block without data: nothing is dispatched
            b": ping\n\n"
            b"id: 1\nevent: message\n" + ROLE
            + b"id: 2\r\ndata: " + first.encode() + b",\r\ndata: \"choices\"" + second.encode() + b"\r\n\r\n"
            + b": keep-alive\n\n" + b"retry: 1000\n\n"
            + event(chunk({"content": TEXT.removeprefix("Merge sort splits")}), end="\r")
            + b"id: 3\n\n" + END)
    result, pieces = asked(Reply(raw_body=body))
    assert "".join(pieces) == TEXT == result.writer_answer
    assert strip_markers(result.answer) == TEXT and result.citations
    assert not [f for f in result.failures if f.kind == "writer"]


SAID = "The model `m` is overloaded.\nPlease retry in 20 s. <b>Sorry</b> \x1b[31m" + " really" * 200
ERROR_BODY = json.dumps({"error": {"message": SAID, "type": "server_error", "code": None}}).encode()


@pytest.mark.timeout(60)
@pytest.mark.parametrize("reply", [
    pytest.param(Reply(raw_body=ERROR_BODY, stream=False), id="a JSON body, asked to stream"),
    pytest.param(Reply(raw_body=event({"error": {"message": SAID}})), id="an event of the stream"),
])
def test_an_error_object_with_status_200_is_reported_with_the_servers_message(reply: Reply) -> None:
    message = failing(reply)
    assert "the server reported an error: “The model `m` is overloaded. Please retry in 20 s. <b>Sorry</b> " \
           "\\x1b[31m really really" in message
    assert "not valid JSON" not in message and len(message) < 320  # its message capped, on one line


@pytest.mark.timeout(60)
def test_an_unstreamed_error_object_with_status_200_is_said_in_one_line(
        run_cli: Callable[..., tuple[int, str, str]], sample_course: Path) -> None:
    with LocalChatServer(serving(Reply(raw_body=ERROR_BODY))) as srv:
        code, out, err = run_cli(srv.base_url, *ask(sample_course))  # redirected: the reply is not streamed
    assert (code, out) == (1, "")
    (line,) = err.strip().splitlines()
    assert "answer writer failed: model local: the server reported an error: “The model `m` is overloaded." in line
    assert "reply without choices" not in line


# --- 7: pieces of the wrong shape are the model's error --------------------------------------------------

def tool_piece(**fields: Any) -> dict[str, Any]:
    return {"id": "call_1", "type": "function", "function": {"name": "lecture_retrieval", "arguments": "{}"},
            **fields}


MALFORMED = {
    "content a number": (event(chunk({"content": 5})), "chunk 2 of the stream: choices[0].delta.content is a number, "
                                                      "not text"),
    "content a list": (event(chunk({"content": ["Merge", " sort"]})),
                       "chunk 2 of the stream: choices[0].delta.content is a list, not text"),
    "a tool call without index": (event(chunk({"tool_calls": [tool_piece()]})),
                                  "chunk 2 of the stream: choices[0].delta.tool_calls[0] has no index"),
    "an index that is text": (event(chunk({"tool_calls": [tool_piece(index="0")]})),
                              "choices[0].delta.tool_calls[0].index is “0”, not a whole number ≥ 0"),
    "two calls at one index": (event(chunk({"tool_calls": [tool_piece(index=0)]}))
                               + event(chunk({"tool_calls": [tool_piece(index=0, id="call_2")]})),
                               "chunk 3 of the stream: choices[0].delta.tool_calls[0]: index 0 is given to two tool "
                               "calls (ids “call_1” and “call_2”)"),
    "a tool name that is a number": (event(chunk({"tool_calls": [tool_piece(index=0, function={"name": 7})]})),
                                     "choices[0].delta.tool_calls[0].function.name is a number, not text"),
    "a tool name that is null": (event(chunk({"tool_calls": [tool_piece(index=0, function={"name": None,
                                                                                          "arguments": "{}"})]})),
                                 "the tool call at index 0 has no name"),
    "a chunk that is a list": (event("[1, 2]"), "chunk 2 of the stream is a list, not an object"),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("piece", "said"), MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_piece_is_a_model_error_naming_it(piece: bytes, said: str) -> None:
    message = failing(Reply(raw_body=ROLE + piece + event(chunk({}, "tool_calls")) + event("[DONE]")))
    assert said in message and "Error" not in message


@pytest.mark.timeout(60)
def test_ask_reports_a_malformed_piece_in_one_line_not_as_an_internal_error(
        run_cli: Callable[..., tuple[int, str, str]], sample_course: Path) -> None:
    body = ROLE + MALFORMED["two calls at one index"][0] + END
    with LocalChatServer(serving(Reply(raw_body=body))) as srv:
        code, out, err = run_cli(srv.base_url, *ask(sample_course), "--stream")
    assert code == 1 and "internal error" not in err
    (line,) = err.strip().splitlines()
    assert line.startswith("citation-studio: answer writer failed: model local: chunk 3 of the stream")
    assert "index 0 is given to two tool calls" in line


@pytest.mark.timeout(60)
@pytest.mark.parametrize("streamed", [True, False], ids=["asked to stream", "not streamed"])
def test_a_reply_nested_too_deeply_for_the_json_reader_is_a_model_error(streamed: bool) -> None:
    nested = b'{"choices": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    message = failing(Reply(raw_body=nested, stream=False), streamed)
    assert "the reply is not valid JSON (RecursionError" in message
