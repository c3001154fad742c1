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
import random
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from citation_core import CitationPipeline, Sources
from citation_core.chat.chat_pipeline import ChatPipeline, ChatResult
from citation_core.chat.view import ViewPosition
from citation_core.contract import strip_markers
from citation_core.llm.base import LlmRequest
from citation_core.lms.render import MAX_ANSWER_CHARS
from citation_core.material.library import load_material
from citation_core.pipeline import citation_pipeline
from citation_core.pipeline.placement import validate_placement
from citation_core.testing import ChatRequest, LocalChatServer, Reply, ScriptedModel, cooperative_handler

from ..fakes import EXAM, MERGE
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
# --- the citation stage: linear in the answer's length ---------------------------------------------------

def placement_case(sentences: int) -> tuple[str, str, dict[str, int]]:
    """An answer of ``sentences`` sentences (inline code in each) and a placement reply that cites every
    sentence but changed a word in each: the reply has to be aligned word by word."""
    rng = random.Random(7)
    vocab = ["".join(rng.choices("aeioubcdfghklmnprstvw", k=rng.randint(3, 9))) for _ in range(3000)]
    answer, reply, ids = [], [], {}
    for k in range(sentences):
        words = rng.choices(vocab, k=9)
        marker = f"[cite:L:1:{k % 40 + 1}::!{k % 40 + 1}]"
        ids[marker] = k % 40 + 1
        answer.append(" ".join(words).capitalize() + " uses `x`.")
        words[4] = "changed"
        reply.append(" ".join(words).capitalize() + " uses `x`." + marker)
    return " ".join(answer), " ".join(reply), ids


def steps(run: Callable[[], Any]) -> tuple[int, Any]:
    """How many Python lines ``run`` executes (in every function it calls), and what it returns."""
    count = 0

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        count += 1
        return trace

    sys.settrace(trace)
    try:
        out = run()
    finally:
        sys.settrace(None)
    return count, out


def test_validating_a_changed_placement_reply_takes_work_linear_in_the_answer() -> None:
    small, large = placement_case(150), placement_case(600)
    work_small, placed_small = steps(lambda: validate_placement(*small))
    work_large, placed_large = steps(lambda: validate_placement(*large))
    assert len(placed_small.insertions) == 150 and len(placed_large.insertions) == 600  # every marker kept
    assert work_large < 5 * work_small, (work_small, work_large)  # 4 × the answer: about 4 × the work


def placing_every_sentence(request: LlmRequest) -> str:
    """Placement that cites the first source given behind every sentence of the answer (and its markers)."""
    first = request.inputs["sources"][0]["id"]
    return re.sub(r"\.((?:\[cite:[^\]]*\])*) ", lambda m: f".{m.group(1)}{first} ", str(request.inputs["answer"]))


def test_citing_in_the_seeds_order_takes_work_linear_in_the_answer() -> None:
    """Both passes one after the other (``pass_order: faq_then_lecture``): the lecture pass's markers are
    moved back onto the answer past the FAQ pass's, once per marker."""
    model = ScriptedModel({"placement": placing_every_sentence, "keywords_batched": lambda r: json.dumps(
        ["Merge"] * len(json.loads(str(r.messages[-1].content).rsplit("Paragraphs (JSON array):\n", 1)[1]))),
        "summary": "How merging works."})
    pipeline = CitationPipeline(model, pass_order="faq_then_lecture")
    sources = Sources((MERGE,), (EXAM,))
    here = str(Path(citation_pipeline.__file__))

    def work(sentences: int) -> int:
        answer = "Merge sort merges two sorted halves in linear time. " * sentences
        count = 0

        def trace(frame: FrameType, event: str, arg: Any) -> Any:
            nonlocal count
            if frame.f_code.co_filename != here:
                return None  # only the lines of the pipeline's own module
            count += 1
            return trace

        sys.settrace(trace)
        try:
            result = pipeline(answer, sources)
        finally:
            sys.settrace(None)
        assert len(result.citations) == 2 and all(f.kind != "placement" for f in result.failures)
        assert result.answer.count("[cite:") == 2 * sentences  # a lecture and an FAQ marker behind each
        return count

    small, large = work(100), work(400)
    assert large < 5 * small, (small, large)
