"""An answer longer than the product shows (``MAX_ANSWER_CHARS``): a model that streams one endless delta or
words without end, one that sends the whole of a long reply at once, a long pasted answer. The writer's
text is kept up to the limit (the rest of a stream is not read) and the cut is a ``writer`` failure; the
citation stage's validation of a long answer takes work linear in its length.

The endless streams are real HTTP from a ``LocalChatServer``: a reader that did not stop at the limit
would never finish (the timeout guards against that hang; no test asserts how long a step took).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from citation_core.chat.chat_pipeline import ChatPipeline, ChatResult
from citation_core.chat.view import ViewPosition
from citation_core.contract import strip_markers
from citation_core.lms.render import MAX_ANSWER_CHARS
from citation_core.material.library import load_material
from citation_core.testing import ChatRequest, LocalChatServer, Reply, cooperative_handler

from ..test_streaming import SAMPLES, openai_config
from .test_model_hostile import ask

# Words no sample slide has: the cooperative citation stage places no marker, so citing stays cheap.
SENTENCE = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. "
LONG = SENTENCE * (MAX_ANSWER_CHARS // len(SENTENCE) + 500)  # longer than the limit
KEPT = LONG[:MAX_ANSWER_CHARS]
HEAD = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
ROLE = f"data: {json.dumps({**HEAD, 'choices': [{'index': 0, 'delta': {'role': 'assistant'}}]})}\n\n".encode()


def one_endless_delta() -> Iterator[bytes]:
    """One content delta whose text never ends (a 50 MB delta, and more)."""
    opening = json.dumps({**HEAD, "choices": [{"index": 0, "delta": {"content": ""}}]})
    opening = opening[: opening.rindex('""') + 1]  # up to the text's opening quote
    yield ROLE + f"data: {opening}".encode()
    yield from itertools.repeat(SENTENCE.encode() * 1000)


def endless_words() -> Iterator[bytes]:
    """Content deltas of a sentence each, without end."""
    event = f"data: {json.dumps({**HEAD, 'choices': [{'index': 0, 'delta': {'content': SENTENCE}}]})}\n\n"
    yield ROLE
    yield from itertools.repeat(event.encode() * 50)


def serving(writer: Reply) -> Callable[[ChatRequest], Reply]:
    others = cooperative_handler()

    def handler(request: ChatRequest) -> Reply:
        return writer if request.task == "writer" else others(request)

    return handler


def asked(writer: Reply, streamed: bool = True, pasted: str | None = None) -> tuple[ChatResult, list[str]]:
    pieces: list[str] = []
    with LocalChatServer(serving(writer)) as srv:
        chat = ChatPipeline(openai_config(srv.base_url), load_material(SAMPLES))
        result = chat("What does the slide say?", ViewPosition(101, page=6), pasted_answer=pasted,
                      on_delta=pieces.append if streamed else None)
    return result, pieces


def the_cut(result: ChatResult) -> str:
    (cut,) = [f for f in result.failures if f.kind == "writer"]
    assert f"the limit of {MAX_ANSWER_CHARS:,} characters" in cut.message
    return cut.message


@pytest.mark.timeout(120)
@pytest.mark.parametrize("body", [one_endless_delta, endless_words], ids=["one endless delta", "words without end"])
def test_a_stream_without_end_is_read_up_to_the_limit_and_cited_there(body: Callable[[], Iterator[bytes]]) -> None:
    result, pieces = asked(Reply(raw_stream=body))
    assert "".join(pieces) == KEPT == result.writer_answer  # the text up to the limit, nothing beyond it
    assert strip_markers(result.answer) == KEPT
    assert "was read no further" in the_cut(result)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("streamed", [True, False], ids=["asked to stream", "not streamed"])
def test_a_long_reply_sent_whole_is_cut_at_the_limit(streamed: bool) -> None:
    result, pieces = asked(Reply(content=LONG, stream=False), streamed)
    assert result.writer_answer == KEPT and strip_markers(result.answer) == KEPT
    assert "".join(pieces) == (KEPT if streamed else "")
    the_cut(result)


@pytest.mark.timeout(120)
def test_a_long_pasted_answer_is_cut_at_the_limit() -> None:
    result, pieces = asked(Reply("never asked"), pasted=LONG)
    assert result.writer_answer == KEPT and strip_markers(result.answer) == KEPT and pieces == [KEPT]
    assert f"the pasted answer has {len(LONG):,} characters" in the_cut(result)


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("writer", "extra"), [(Reply(raw_stream=endless_words), ("--stream",)),
                                               (Reply(content=LONG), ())], ids=["streamed", "redirected"])
def test_ask_prints_the_answer_up_to_the_limit_and_says_so(run_cli: Callable[..., tuple[int, str, str]],
                                                          sample_course: Path, writer: Reply,
                                                          extra: tuple[str, ...]) -> None:
    with LocalChatServer(serving(writer)) as srv:
        code, out, err = run_cli(srv.base_url, *ask(sample_course), *extra)
    assert code == 0 and strip_markers(out).rstrip("\n").endswith(KEPT)
    (line,) = err.strip().splitlines()
    assert line.startswith("citation-studio: ") and f"the limit of {MAX_ANSWER_CHARS:,} characters" in line
