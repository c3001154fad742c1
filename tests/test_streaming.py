"""The answer streams: the OpenAI writer asks with ``stream: true`` and its words reach the caller as they
arrive, through ``ChatPipeline(on_delta=…)`` and ``citation-studio ask``; tool calls that arrive in pieces,
a server that does not stream and a stream cut short each still give a cited answer."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from citation_core.chat.chat_pipeline import ChatPipeline
from citation_core.chat.view import ViewPosition
from citation_core.contract import strip_markers
from citation_core.llm.config import CONFIG_DIR_ENV, OVERRIDE_ENV, ModelConfig, defaults_dir
from citation_core.material.library import load_material
from citation_core.testing.server import LocalChatServer, Reply

from .fakes import config

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_decks"
ANSWER = ("Merge sort splits the list into two halves, sorts each half recursively and then merges the two "
          "sorted halves.\n\n```python\nmerge(left, right)\n```\n\nThe merge step compares the heads — "
          "in linear time.")


def openai_config(base_url: str) -> Any:
    cfg = config()
    model = ModelConfig("local", "openai_chat", "local-model", base_url=base_url, timeout=10, max_retries=0)
    roles = {p: {v: dict.fromkeys(r, "local") for v, r in vs.items()} for p, vs in cfg.llm_configuration.items()}
    return dataclasses.replace(cfg, models={**cfg.models, "local": model}, llm_configuration=roles)


def is_writer(body: dict[str, Any]) -> bool:
    return "tutor for the course" in body["messages"][0]["content"]


def citing(body: dict[str, Any]) -> Reply:
    """The citation stage's calls: placement cites the first paragraph it was given, the rest answer briefly."""
    first = body["messages"][0]["content"]
    if "Paragraphs:" in first:
        ids = [e["id"] for e in json.loads(first.split("Paragraphs:\n", 1)[1].split("\n\nAnswer:")[0])]
        answer = first.split("\n\nAnswer:\n", 1)[1] if "\n\nAnswer:\n" in first else ""
        return Reply(content=answer.strip() + (ids[0] if ids else ""))
    return Reply(content="Merge sort")


def ask(handler: Any, question: str = "How does merge sort work?") -> tuple[Any, list[tuple[float, str]], float]:
    pieces: list[tuple[float, str]] = []
    with LocalChatServer(handler) as srv:
        chat = ChatPipeline(openai_config(srv.base_url), load_material(SAMPLES))
        start = time.monotonic()
        result = chat(question, ViewPosition(101, page=6),
                      on_delta=lambda text: pieces.append((time.monotonic() - start, text)))
    return result, pieces, time.monotonic() - start


def test_the_writers_words_reach_the_caller_as_they_arrive_and_the_answer_is_cited_unaltered() -> None:
    def handler(body: dict[str, Any]) -> Reply:
        if is_writer(body):
            assert body.get("stream") is True and body.get("stream_options") == {"include_usage": True}
            return Reply(content=ANSWER, first_token_delay=0.3, token_rate=40)
        return citing(body)

    result, pieces, _ = ask(handler)
    assert len(pieces) > 10  # word by word, not the whole reply at once
    assert "".join(p for _, p in pieces) == ANSWER == result.writer_answer
    assert strip_markers(result.answer) == ANSWER and result.citations
    assert pieces[0][0] >= 0.3 and pieces[-1][0] - pieces[0][0] >= 0.2  # spread over the writing
    writer_call = next(c for c in result.traces["chat"].calls if c.task == "writer")
    assert not writer_call.estimated  # usage as the server reported it in the stream's last chunk


def test_tool_calls_that_arrive_in_pieces_run_and_only_the_answer_is_streamed() -> None:
    def handler(body: dict[str, Any]) -> Reply:
        if is_writer(body):
            if not [m for m in body["messages"] if m.get("role") == "tool"]:
                return Reply(tool_calls=[
                    {"id": "c1", "type": "function",
                     "function": {"name": "lecture_retrieval", "arguments": json.dumps({"query": "merge linear"})}},
                    {"id": "c2", "type": "function",
                     "function": {"name": "faq_retrieval", "arguments": json.dumps({"query": "merge sort stable"})}},
                ], token_rate=50)
            return Reply(content=ANSWER, token_rate=200)
        return citing(body)

    result, pieces, _ = ask(handler)
    assert "".join(p for _, p in pieces) == ANSWER
    assert result.retrieved  # lecture_retrieval ran with its arguments put together
    assert strip_markers(result.answer) == ANSWER


def test_a_server_that_does_not_stream_gives_the_whole_answer_as_one_piece() -> None:
    def handler(body: dict[str, Any]) -> Reply:
        return Reply(content=ANSWER, stream=False) if is_writer(body) else citing(body)

    result, pieces, _ = ask(handler)
    assert [p for _, p in pieces] == [ANSWER]
    assert strip_markers(result.answer) == ANSWER and not [f for f in result.failures if f.kind == "writer"]


def test_a_stream_cut_short_keeps_what_arrived_cites_it_and_reports_the_cut() -> None:
    def handler(body: dict[str, Any]) -> Reply:
        return Reply(content=ANSWER, cut_after=900) if is_writer(body) else citing(body)

    result, pieces, _ = ask(handler)
    arrived = "".join(p for _, p in pieces)
    assert arrived and ANSWER.startswith(arrived) and arrived != ANSWER
    assert result.writer_answer == arrived and strip_markers(result.answer) == arrived  # never altered
    (cut,) = [f for f in result.failures if f.kind == "writer"]
    assert "closed before the reply was complete" in cut.message and "kept" in cut.message


def test_a_cut_before_any_word_is_a_failed_writer() -> None:
    def handler(body: dict[str, Any]) -> Reply:
        return Reply(content=ANSWER, cut_after=40) if is_writer(body) else citing(body)

    try:
        ask(handler)
    except Exception as exc:  # noqa: BLE001
        assert "answer writer failed" in str(exc) and "closed before the reply was complete" in str(exc)
    else:
        raise AssertionError("a stream cut before its first word must fail the writer")


LENGTH_CUT = "the answer was cut by the model's length limit"


def test_a_reply_that_stopped_at_the_models_length_limit_is_kept_cited_and_reported_as_cut() -> None:
    """finish_reason "length": the model ran out of output tokens. What it wrote is the answer, cited as it
    is, and the turn says that it was cut, whether the reply streamed or came whole."""
    written = ANSWER[: ANSWER.index("```")].rstrip()  # the answer as far as the model got

    def handler(body: dict[str, Any]) -> Reply:
        return Reply(content=written, finish_reason="length") if is_writer(body) else citing(body)

    streamed, pieces, _ = ask(handler)
    assert "".join(p for _, p in pieces) == written == streamed.writer_answer
    with LocalChatServer(handler) as srv:  # no on_delta: the reply comes whole
        whole = ChatPipeline(openai_config(srv.base_url), load_material(SAMPLES))(
            "How does merge sort work?", ViewPosition(101, page=6))
    for result in (streamed, whole):
        assert strip_markers(result.answer) == written and result.citations  # kept and cited, never altered
        (cut,) = [f for f in result.failures if f.kind == "writer"]
        assert LENGTH_CUT in cut.message and "\n" not in cut.message
        assert cut in result.traces["chat"].failures


def test_ask_says_on_stderr_that_the_model_stopped_at_its_length_limit(tmp_path: Path) -> None:
    written = ANSWER[: ANSWER.index("```")].rstrip()

    def handler(body: dict[str, Any]) -> Reply:
        return Reply(content=written, finish_reason="length") if is_writer(body) else citing(body)

    with LocalChatServer(handler) as srv:
        streamed = run_ask(srv.base_url, tmp_path, "--stream")
        redirected = run_ask(srv.base_url, tmp_path)
    for run in (streamed, redirected):
        assert run.returncode == 0, run.stderr
        assert strip_markers(run.stdout).strip().endswith(written)
        (said,) = [line for line in run.stderr.splitlines() if LENGTH_CUT in line]
        assert said.startswith("citation-studio: model local: ")


def run_ask(base_url: str, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``citation-studio ask`` as a process of its own (its stdout a pipe), every role on ``base_url``."""
    cfg = tmp_path / "config"
    cfg.mkdir(exist_ok=True)
    (cfg / "application.yml").write_text(defaults_dir().joinpath("application.yml").read_text(encoding="utf-8"),
                                         encoding="utf-8")
    models = {"models": [{"id": "offline", "type": "offline", "model": "offline-extractive-1"},
                         {"id": "local", "type": "openai_chat", "model": "m", "base_url": base_url, "timeout": 10,
                          "max_retries": 0}]}
    (cfg / "llm_config.yml").write_text(yaml.safe_dump(models), encoding="utf-8")
    env = {**os.environ, CONFIG_DIR_ENV: str(cfg), OVERRIDE_ENV: "local"}
    return subprocess.run([sys.executable, "-m", "citation_core.cli.main", "ask", "--course", str(SAMPLES),
                           "--unit", "101", "--page", "6", "--question", "How does merge sort work?", *extra],
                          capture_output=True, text=True, env=env, timeout=60, check=False)


def test_ask_streams_the_draft_then_prints_the_cited_answer(tmp_path: Path) -> None:
    def handler(body: dict[str, Any]) -> Reply:
        return Reply(content=ANSWER, token_rate=100) if is_writer(body) else citing(body)

    with LocalChatServer(handler) as srv:
        streamed = run_ask(srv.base_url, tmp_path, "--stream")
        redirected = run_ask(srv.base_url, tmp_path)
    assert streamed.returncode == 0, streamed.stderr
    draft, cited = streamed.stdout.split("\n\n", 1)[0], streamed.stdout
    assert streamed.stdout.startswith(ANSWER + "\n\n")
    assert strip_markers(cited[len(ANSWER) + 2:]).strip() == ANSWER and draft
    assert redirected.returncode == 0 and strip_markers(redirected.stdout).strip() == ANSWER  # cited only


def test_text_streamed_before_a_tool_call_is_kept_in_the_draft_and_the_cited_answer() -> None:
    preamble = "Let me look at the slides."

    def handler(body: dict[str, Any]) -> Reply:
        if is_writer(body):
            if not [m for m in body["messages"] if m.get("role") == "tool"]:
                return Reply(content=preamble, tool_calls=[
                    {"id": "c1", "type": "function",
                     "function": {"name": "lecture_retrieval", "arguments": json.dumps({"query": "merge linear"})}}])
            return Reply(content=ANSWER, token_rate=200)
        return citing(body)

    result, pieces, _ = ask(handler)
    shown = "".join(p for _, p in pieces)
    assert shown == preamble + "\n\n" + ANSWER  # the words as the reader got them, both replies
    assert result.writer_answer == shown and strip_markers(result.answer) == shown
    assert result.retrieved
