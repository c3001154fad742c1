"""A chat-completions server that misbehaves after it has accepted the call: it trickles its reply a byte at
a time (each byte inside the socket timeout, the whole reply never), cuts the body off, or sends a body
that is not JSON. Every call ends at its time limit, the citation stage at its deadline with the markers
it has, the writer's failure ends ``ask`` with exit 1 and one line naming what happened.

The timeouts here guard against a hang (a regression fails them); no test asserts how long a step took.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from citation_core import CitationPipeline, ModelConfig, Sources
from citation_core.contract import parse, strip_markers
from citation_core.testing import ChatRequest, LocalChatServer, Reply, cooperative_handler

from ..fakes import ANSWER, EXAM, MERGE, MERGE_STEP, TREE
from ..test_cli import SOURCES

WRITTEN = "Merge sort divides the list into two halves and sorts each half recursively."


def trickling(tasks: set[str], pause: float = 0.25, **extra: object) -> Callable[[ChatRequest], Reply]:
    """The cooperative server, whose replies to ``tasks`` trickle in a byte every ``pause`` seconds (a few
    hundred bytes: minutes in all) or are changed by ``extra`` (``cut_after``, ``raw_body``)."""
    base = cooperative_handler()

    def handler(request: ChatRequest) -> Reply:
        reply = Reply(WRITTEN) if request.task == "writer" else base(request)
        if request.task in tasks:
            return dataclasses.replace(reply, trickle=pause if not extra else 0.0, **extra)  # type: ignore[arg-type]
        return reply

    return handler


def http_model(base_url: str, timeout: float) -> ModelConfig:
    return ModelConfig(id="local", type="openai_chat", model="local-model", base_url=base_url, timeout=timeout,
                       max_retries=0)


# --- the library: each call ends at its time limit, the stage at its deadline ---------------------------

@pytest.mark.timeout(40)
def test_a_trickling_placement_reply_ends_at_the_model_timeout() -> None:
    with LocalChatServer(trickling({"placement"})) as srv:
        result = CitationPipeline(http_model(srv.base_url, timeout=1.0), deadline_seconds=None)(
            ANSWER, Sources((MERGE, MERGE_STEP, TREE), (EXAM,)))
    assert result.answer == ANSWER  # nothing placed, nothing lost
    messages = [f.message for f in result.failures if f.kind == "placement"]
    assert messages and all("timed out after 1 s" in m for m in messages)


@pytest.mark.timeout(40)
def test_trickling_keyword_and_summary_replies_end_at_the_deadline_with_the_markers_placed() -> None:
    with LocalChatServer(trickling({"summary", "keywords_batched", "keyword"})) as srv:
        result = CitationPipeline(http_model(srv.base_url, timeout=60.0), deadline_seconds=3.0)(
            ANSWER, Sources((MERGE, MERGE_STEP, TREE), (EXAM,)))
    assert strip_markers(result.answer) == ANSWER
    assert [m.page for m in parse(result.answer, "client")] == ["3", "4", ""]  # placement had come back
    cut = [f for f in result.failures if "the citation deadline was reached" in f.message]
    assert {f.kind for f in cut} >= {"summary"}
    assert all(f.kind in {"summary", "keyword_task", "keyword"} for f in result.failures)


# --- the command line: ask and cite against such a server ----------------------------------------------

def ask(sample_course: Path) -> tuple[str, ...]:
    return ("ask", "--course", str(sample_course), "--unit", "101", "--page", "6", "--question",
            "How does merge sort split the list?")


@pytest.mark.timeout(40)
def test_a_trickling_writer_ends_ask_with_exit_1_and_one_line(run_cli: Callable[..., tuple[int, str, str]],
                                                              sample_course: Path) -> None:
    with LocalChatServer(trickling({"writer"})) as srv:
        code, out, err = run_cli(srv.base_url, *ask(sample_course))
    assert (code, out) == (1, "")
    assert len(err.strip().splitlines()) == 1
    assert "answer writer failed" in err and "timed out after 1.5 s" in err


@pytest.mark.timeout(40)
def test_ask_with_a_trickling_citation_stage_prints_the_answer_with_what_was_placed(
        run_cli: Callable[..., tuple[int, str, str]], sample_course: Path) -> None:
    with LocalChatServer(trickling({"placement", "summary", "keyword", "keywords_batched"})) as srv:
        code, out, err = run_cli(srv.base_url, *ask(sample_course))
    assert code == 0
    assert strip_markers(out).strip() == WRITTEN  # the writer's answer, whole


@pytest.mark.timeout(40)
def test_cite_reports_a_trickling_model_and_keeps_the_answer(run_cli: Callable[..., tuple[int, str, str]],
                                                             tmp_path: Path) -> None:
    src = tmp_path / "sources.json"
    src.write_text(json.dumps(SOURCES), encoding="utf-8")
    with LocalChatServer(trickling({"placement"})) as srv:
        code, out, err = run_cli(srv.base_url, "cite", "--sources", str(src), "--answer", "-", stdin=ANSWER)
    assert code == 0 and out.rstrip("\n") == ANSWER.rstrip("\n")
    assert "warning: placement: placement failed: model local: timed out after 1.5 s" in err


# --- a reply cut off or not JSON: said as what it is ---------------------------------------------------

@pytest.mark.timeout(40)
@pytest.mark.parametrize(("extra", "said"), [
    ({"cut_after": 40}, "the connection to http://127.0.0.1:"),
    ({"raw_body": b'{"id": "chatcmpl-1", "choices": [{"message": {"content": "Mer'}, "the reply is not valid JSON"),
])
def test_a_cut_or_broken_writer_reply_is_one_line_that_says_so(run_cli: Callable[..., tuple[int, str, str]],
                                                              sample_course: Path, extra: dict[str, object],
                                                              said: str) -> None:
    with LocalChatServer(trickling({"writer"}, **extra)) as srv:
        code, out, err = run_cli(srv.base_url, *ask(sample_course))
    assert (code, out) == (1, "")
    assert len(err.strip().splitlines()) == 1 and "internal error" not in err
    assert said in err and "answer writer failed" in err
    if "cut_after" in extra:
        assert "closed before the reply was complete" in err and "cannot connect" not in err
