"""Cited while it streams: the writer puts handles such as ``[cite:3]`` behind its sentences, a chat turn in
``citation_mode: inline`` expands them into final markers, over real HTTP to a local chat server."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from citation_core.chat.chat_pipeline import ChatPipeline, ChatResult
from citation_core.chat.view import ViewPosition
from citation_core.contract import FinalMarker, SourceRef, strip_markers
from citation_core.errors import ConfigError
from citation_core.llm.config import CONFIG_DIR_ENV, OVERRIDE_ENV, ModelConfig, load_config
from citation_core.material.library import load_material
from citation_core.testing.server import ChatRequest, LocalChatServer, Reply

from .fakes import config

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_decks"
PAGE6 = SourceRef.of_page(101, 6)  # the open slide: "Merging Two Sorted Subarrays"


def inline_config(base_url: str, deadline: float = 30.0) -> Any:
    cfg = config()
    model = ModelConfig("local", "openai_chat", "local-model", base_url=base_url, timeout=10, max_retries=0)
    roles = {p: {v: dict.fromkeys(r, "local") for v, r in vs.items()} for p, vs in cfg.llm_configuration.items()}
    return dataclasses.replace(cfg, models={**cfg.models, "local": model}, llm_configuration=roles,
                               citation_modes={"default": "inline"}, deadline_seconds=deadline)


def sse(pieces: Sequence[str]) -> list[bytes]:
    """An OpenAI event stream whose content arrives in exactly these pieces."""
    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        body = {"id": "chatcmpl-inline", "object": "chat.completion.chunk", "created": 0, "model": "local-model",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(body)}\n\n".encode()
    return [chunk({"role": "assistant", "content": ""}), *(chunk({"content": p}) for p in pieces),
            chunk({}, "stop"), b"data: [DONE]\n\n"]


def tool_results(body: ChatRequest) -> list[dict[str, Any]]:
    return [item for m in body["messages"] if m.get("role") == "tool" for item in json.loads(m["content"])]


class Writer:
    """A model that looks up the open slide's topic and an FAQ, then streams ``script(handles)`` piece by
    piece; keywords and summaries are answered by ``enrich``."""

    def __init__(self, script: Any, keyword: Any = None, preamble: str = "") -> None:
        self.script = script
        self.preamble = preamble  # text streamed before the tool calls, in the same reply
        self.keyword = keyword or (lambda body: Reply(content="Merge sort"))
        self.system_prompt = ""
        self.results: list[dict[str, Any]] = []  # what the tools gave back, each with its handle

    def __call__(self, body: ChatRequest) -> Reply:
        if body.task == "keyword":
            return self.keyword(body)
        if body.task == "summary":
            paragraph = body["messages"][0]["content"].split("Paragraph:\n", 1)[1]
            return Reply(content="It is about " + paragraph.split()[0] + ".")
        assert body.task == "writer", body.task
        self.system_prompt = body["messages"][0]["content"]
        results = tool_results(body)
        if not results:
            return Reply(content=self.preamble, tool_calls=[
                {"id": "c1", "type": "function", "function": {"name": "lecture_retrieval", "arguments": json.dumps(
                    {"query": "Merging Two Sorted Subarrays MERGE copy of A while L.length"})}},
                {"id": "c2", "type": "function", "function": {"name": "faq_retrieval", "arguments": json.dumps(
                    {"query": "merge sort extra memory"})}}])
        self.results = results
        return Reply(raw_stream=lambda: sse(self.script(results)))


def run(writer: Writer, deadline: float = 30.0) -> tuple[ChatResult, list[str], list[str]]:
    partials: list[str] = []
    deltas: list[str] = []
    with LocalChatServer(writer) as srv:
        chat = ChatPipeline(inline_config(srv.base_url, deadline), load_material(SAMPLES))
        result = chat("How does merging work?", ViewPosition(101, page=6), on_delta=deltas.append,
                      on_partial=partials.append)
    return result, partials, deltas


def faq_handle(results: Iterable[dict[str, Any]]) -> str:
    return next(r["cite"] for r in results if "question" in r)


def test_handles_streamed_in_pieces_become_final_markers_and_partial_renders_never_break() -> None:
    def script(results: list[dict[str, Any]]) -> list[str]:
        faq = faq_handle(results)
        return ["MERGE copies both halves", " and walks them once.[ci", "te:", "1] Extra memory is", " needed.",
                faq[:-1], "]", "[cite:99] Slides say so.", "[cite:1]"]

    writer = Writer(script)
    result, partials, deltas = run(writer)
    faq = faq_handle(writer.results)
    assert "Its handle: [cite:1]" in writer.system_prompt and "[cite:3]" in writer.system_prompt
    # the open slide came back from lecture_retrieval too: the same source kept its handle
    assert [r["cite"] for r in writer.results if r.get("kind") == "slide" and r["page"] == 6] == ["[cite:1]"]
    slide = FinalMarker(PAGE6, "Merge sort", "It is about Merging.").format()
    faq_ref = next(c.ref for c in result.citations if c.ref.type == "F")
    faq_marker = FinalMarker(faq_ref, "Merge sort 2", "It is about Why.").format()
    assert faq == f"[cite:{[c.seq for c in result.citations if c.ref.type == 'F'][0]}]"
    assert result.answer == (f"MERGE copies both halves and walks them once.{slide} Extra memory is needed."
                             f"{faq_marker} Slides say so.{slide}")
    assert result.writer_answer == ("MERGE copies both halves and walks them once. Extra memory is needed. "
                                    "Slides say so.")
    assert strip_markers(result.answer) == result.writer_answer  # the text outside handles is unchanged
    assert [c.keyword for c in result.citations] == ["Merge sort", "Merge sort 2"]  # unique, in order
    assert "".join(deltas) == "".join(script(writer.results))
    assert 1 <= len(partials) <= len(deltas)  # at most every PARTIAL_EVERY s, and at each closing handle
    for partial in partials:  # never a broken marker, and the text so far as it will stay
        plain = strip_markers(partial)
        assert "[cite" not in plain and not plain.endswith("[")
        assert result.writer_answer.startswith(plain)
    assert [(f.kind, f.message) for f in result.failures] == [("validation", "invented handle [cite:99] (1x)")]
    assert len(result.audits) == 3 and {a.index for a in result.audits} == {0, 1, 2}


def test_a_hanging_keyword_call_does_not_hold_the_answer_past_the_deadline() -> None:
    release = threading.Event()

    def keyword(body: ChatRequest) -> Reply:
        if "Why does merge sort need extra memory" in body["messages"][0]["content"]:
            release.wait(20)  # hangs until the test ends
        return Reply(content="Merge sort")

    writer = Writer(lambda results: ["Merging walks both halves.", "[cite:1] It needs memory.",
                                     faq_handle(results)], keyword)
    try:
        result, partials, _ = run(writer, deadline=1.0)
    finally:
        release.set()
    faq_ref = next(c.ref for c in result.citations if c.ref.type == "F")
    slide = FinalMarker(PAGE6, "Merge sort", "It is about Merging.").format()
    assert result.answer == (f"Merging walks both halves.{slide} It needs memory."
                             + FinalMarker(faq_ref, "", "It is about Why.").format())
    assert any(f.kind in ("keyword_task", "enrichment_or_rewrite") for f in result.failures)
    assert all(not re.search(r"\[cite:F", p) for p in partials)  # its chip never showed half made


def test_placement_mode_stays_the_default_and_a_bad_mode_is_one_line(tmp_path: Path) -> None:
    assert config().citation_mode_for("default") == "placement"
    for name in ("llm_config.yml", "application.yml"):
        (tmp_path / name).write_text((ROOT / name).read_text(encoding="utf-8"), encoding="utf-8")
    app = (tmp_path / "application.yml").read_text(encoding="utf-8")
    (tmp_path / "application.yml").write_text(app.replace("mode: placement", "mode: inlined"), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"^application.yml: citation.mode: 'inlined' is not one of placement, "
                                          r"inline$"):
        load_config(tmp_path, override="")
    (tmp_path / "application.yml").write_text(
        app.replace("# citation_mode: inline", "citation_mode: inline"), encoding="utf-8")
    assert load_config(tmp_path, override="").citation_mode_for("advanced") == "inline"


def run_ask(base_url: str, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``citation-studio ask`` as a process of its own, every role on ``base_url``, ``citation.mode: inline``."""
    cfg = tmp_path / "config"
    cfg.mkdir(exist_ok=True)
    app = (ROOT / "application.yml").read_text(encoding="utf-8")
    (cfg / "application.yml").write_text(app.replace("  mode: placement", "  mode: inline"), encoding="utf-8")
    models = {"models": [{"id": "offline", "type": "offline", "model": "offline-extractive-1"},
                         {"id": "local", "type": "openai_chat", "model": "m", "base_url": base_url, "timeout": 10,
                          "max_retries": 0}]}
    (cfg / "llm_config.yml").write_text(yaml.safe_dump(models), encoding="utf-8")
    env = {**os.environ, CONFIG_DIR_ENV: str(cfg), OVERRIDE_ENV: "local"}
    return subprocess.run([sys.executable, "-m", "citation_core.cli.main", "ask", "--course", str(SAMPLES),
                           "--unit", "101", "--page", "6", "--question", "How does merging work?", *extra],
                          capture_output=True, text=True, env=env, timeout=60, check=False)


def test_ask_in_inline_mode_streams_the_text_without_handles_then_prints_the_cited_answer(tmp_path: Path) -> None:
    writer = Writer(lambda results: ["MERGE walks both", " halves once.[cite", ":1] Memory is needed.",
                                     faq_handle(results)])
    with LocalChatServer(writer) as srv:
        streamed = run_ask(srv.base_url, tmp_path, "--stream")
        redirected = run_ask(srv.base_url, tmp_path)
    assert streamed.returncode == 0, streamed.stderr
    text = "MERGE walks both halves once. Memory is needed."
    slide = FinalMarker(PAGE6, "Merge sort", "It is about Merging.").format()
    assert streamed.stdout.startswith(text + "\n\n")  # the words as written, never a handle
    cited = streamed.stdout[len(text) + 2:]
    assert cited.startswith(f"MERGE walks both halves once.{slide} Memory is needed.[cite:F:")
    assert strip_markers(cited).strip() == text
    assert redirected.returncode == 0 and redirected.stdout == cited


def subsequence(shorter: str, longer: str) -> bool:
    """Whether ``longer`` holds every character of ``shorter`` in order (text only added, never taken away)."""
    rest = iter(longer)
    return all(ch in rest for ch in shorter)


CODE_PIECES = ["Write `", "[cite:", "1]", "`", " behind a sentence.[cite:1]\n\n``", "`py\nx = '[cite:1]'\n",
               "print(x)\n", "``", "`\nSo it reads.[ci", "te:1]"]
CODE_TEXT = "".join(CODE_PIECES)


def test_handles_written_as_code_stay_code_text_in_partials_the_answer_and_the_draft() -> None:
    writer = Writer(lambda results: CODE_PIECES)
    result, partials, deltas = run(writer)
    slide = FinalMarker(PAGE6, "Merge sort", "It is about Merging.").format()
    assert result.answer == (f"Write `[cite:1]` behind a sentence.{slide}\n\n```py\nx = '[cite:1]'\nprint(x)\n```\n"
                             f"So it reads.{slide}")
    assert result.writer_answer == ("Write `[cite:1]` behind a sentence.\n\n```py\nx = '[cite:1]'\nprint(x)\n```\n"
                                    "So it reads.")
    assert "".join(deltas) == CODE_TEXT
    assert partials
    shown = ""
    for partial in partials:  # never a chip inside the code, nothing shown taken back
        assert "`[cite:L" not in partial and "'[cite:L" not in partial
        assert subsequence(shown, partial) and subsequence(partial, result.answer)
        shown = partial
    assert [a.citation["page"] for a in result.audits] == [6, 6]


def test_ask_streams_handles_written_as_code_as_they_are(tmp_path: Path) -> None:
    writer = Writer(lambda results: CODE_PIECES)
    with LocalChatServer(writer) as srv:
        streamed = run_ask(srv.base_url, tmp_path, "--stream")
    assert streamed.returncode == 0, streamed.stderr
    text = "Write `[cite:1]` behind a sentence.\n\n```py\nx = '[cite:1]'\nprint(x)\n```\nSo it reads."
    assert streamed.stdout.startswith(text + "\n\n")
    assert streamed.stdout[len(text) + 2:].startswith("Write `[cite:1]` behind a sentence.[cite:L:101:6:")


PREAMBLE = "Let me look at the slides."


def test_text_streamed_before_a_tool_call_stays_in_the_answer() -> None:
    writer = Writer(lambda results: ["MERGE walks both halves once.", "[cite:1]"], preamble=PREAMBLE)
    result, partials, deltas = run(writer)
    slide = FinalMarker(PAGE6, "Merge sort", "It is about Merging.").format()
    assert "".join(deltas) == PREAMBLE + "\n\nMERGE walks both halves once.[cite:1]"  # as the reader got it
    assert result.writer_answer == PREAMBLE + "\n\nMERGE walks both halves once."
    assert result.answer == PREAMBLE + f"\n\nMERGE walks both halves once.{slide}"
    assert any(PREAMBLE in p for p in partials)
    assert all(result.answer.startswith(p) for p in partials)  # what was shown is what is kept


def test_ask_keeps_text_streamed_before_a_tool_call_in_the_cited_answer(tmp_path: Path) -> None:
    writer = Writer(lambda results: ["MERGE walks both halves once.", "[cite:1]"], preamble=PREAMBLE)
    with LocalChatServer(writer) as srv:
        streamed = run_ask(srv.base_url, tmp_path, "--stream")
    assert streamed.returncode == 0, streamed.stderr
    text = PREAMBLE + "\n\nMERGE walks both halves once."
    assert streamed.stdout.startswith(text + "\n\n")
    assert streamed.stdout[len(text) + 2:].startswith(PREAMBLE + "\n\nMERGE walks both halves once.[cite:L:101:6:")


def test_the_whole_text_shows_while_its_last_chip_is_finished_and_the_last_render_is_the_answer() -> None:
    shown_whole = threading.Event()
    text = "Merging walks both halves.[cite:1] It needs extra memory"

    def summary_when_the_whole_text_showed(body: ChatRequest) -> Reply:
        shown_whole.wait(10)
        return Reply(content="It is about merging.")

    class HeldSummary(Writer):
        def __call__(self, body: ChatRequest) -> Reply:
            return summary_when_the_whole_text_showed(body) if body.task == "summary" else super().__call__(body)

    partials: list[str] = []

    def partial(rendered: str) -> None:
        partials.append(rendered)
        if rendered == text.replace("[cite:1]", ""):  # all of it, its chip not made yet
            shown_whole.set()

    with LocalChatServer(HeldSummary(lambda results: ["Merging walks both halves.[cite:1]", " It needs",
                                                      " extra memory"])) as srv:
        chat = ChatPipeline(inline_config(srv.base_url), load_material(SAMPLES))
        result = chat("How does merging work?", ViewPosition(101, page=6), on_partial=partial)
    assert shown_whole.is_set()
    assert partials[-1] == result.answer  # the chip joined the text it was shown with
    assert result.answer.endswith("extra memory") and "It is about merging." in result.answer


def test_inline_citations_carry_the_sentence_and_the_quoted_passage_as_placement_citations_do() -> None:
    writer = Writer(lambda results: ["MERGE copies both halves", " and walks them once.[cite:1]",
                                     " Extra memory is needed.", faq_handle(results)])
    result, _, _ = run(writer)
    slide, faq = result.citations
    assert slide.sentence == "MERGE copies both halves and walks them once."
    assert slide.evidence is not None and slide.evidence.text in slide.source.text  # the slide's own words
    assert "MERGE" in slide.evidence.text and slide.support is not None
    assert faq.sentence == "Extra memory is needed." and faq.evidence is not None
    assert faq.evidence.text in faq.source.answer
    for citation, audit in zip(result.citations, result.audits, strict=True):  # what the chips quote
        assert citation.to_json()["evidence"] == (audit.evidence.to_json() if audit.evidence else None)
