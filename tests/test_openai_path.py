"""The citation pipeline over real HTTP: ``openai_chat`` models against a LocalChatServer on 127.0.0.1.

The server's handler plays a realistic LLM: it recognises the task from the prompt wording (the files
in ``prompts/``), places the ids it was given behind the answer's sentences, names a keyword, writes
a summary, and can be told to answer late, fail with an HTTP status or report fixed token usage.
Nothing here reaches the internet.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from citation_core.contract import parse, strip_markers
from citation_core.llm.config import LlmConfig, load_config
from citation_core.pipeline import CitationPipeline, PlacementError
from citation_core.sources import LectureSource, PageChunk
from citation_core.testing import ChatRequest, LocalChatServer, RecordedRequest, Reply, cooperative_handler

from .fakes import ANSWER, EXAM, LATE, MERGE, MERGE_STEP, TREE

ROOT = Path(__file__).resolve().parents[1]

QUICK = PageChunk("p6", 12, 6, "Quicksort\nQuicksort picks a pivot element, partitions the array around "
                  "the pivot and recurses on both partitions.", display_page_number="4")
HASH = PageChunk("p8", 12, 8, "Hash tables\nA hash function maps keys to buckets; collisions are chained.")

ANSWER4 = ANSWER + " Quicksort instead partitions the array around a pivot element."
SOURCES: list[LectureSource] = [MERGE, MERGE_STEP, TREE, HASH]  # HASH is never cited


# --- the fake LLM behind the server ----------------------------------------------------------------



def prompt_of(body: dict[str, object]) -> str:
    messages = body["messages"]
    assert isinstance(messages, list) and messages
    content = messages[0]["content"]
    assert isinstance(content, str)
    return content


def req_task(req: RecordedRequest) -> str:
    return req.task or ""






def paragraph_of(prompt: str) -> str:
    return prompt.split("\nParagraph:\n", 1)[1].strip()


def default_keyword(paragraph: str) -> str:
    """A title line if there is one, else the first two words."""
    first = paragraph.splitlines()[0]
    return first if len(first.split()) <= 3 else " ".join(first.split()[:2])


def default_summary(paragraph: str) -> str:
    lines = paragraph.splitlines()
    flat = " ".join(" ".join(lines[1:] if len(lines) > 1 else lines).split())
    return "Summary: " + flat.split(". ")[0].rstrip(".") + "."


COOPERATIVE = cooperative_handler()


@dataclass
class FakeLlm:
    """The server's handler. Thread-safe; ``log`` holds (task, prompt, reply content) in arrival order."""

    delay: dict[str, float] = field(default_factory=dict)
    status: Callable[[str, str], int] = lambda task, prompt: 200
    usage: dict[str, tuple[int, int]] = field(default_factory=dict)
    keyword: Callable[[str], str] = default_keyword
    summary: Callable[[str], str] = default_summary
    log: list[tuple[str, str, str]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, body: ChatRequest) -> Reply:
        prompt = prompt_of(body)
        task = body.task or ""
        if task == "placement":
            content = COOPERATIVE(body).content
        elif task == "keyword":
            content = self.keyword(paragraph_of(prompt))
        elif task == "summary":
            content = self.summary(paragraph_of(prompt))
        else:
            paragraphs = json.loads(prompt.split("Paragraphs (JSON array):\n", 1)[1])
            content = json.dumps([p.split()[0] for p in paragraphs])  # first words: collisions on purpose
        code = self.status(task, prompt)
        with self._lock:
            self.log.append((task, prompt, content))
        pt, ct = self.usage.get(task, (None, None))
        return Reply(content if code == 200 else f"simulated {code}", status=code,
                     delay=self.delay.get(task, 0.0), prompt_tokens=pt, completion_tokens=ct)

    def tasks(self) -> list[str]:
        with self._lock:
            return [t for t, _, _ in self.log]


# --- configuration written as the user would write it -----------------------------------------------

def write_config(tmp_path: Path, base_url: str, *, timeout: float = 5.0, strategy: str = "sequential") -> LlmConfig:
    (tmp_path / "llm_config.yml").write_text(
        f"""models:
  - id: local-small
    type: openai_chat
    model: small-model-1
    base_url: {base_url}
    temperature: 0.2
    timeout: {timeout}
    max_retries: 0
    cost_per_million: {{input: 0.40, output: 1.60}}
  - id: local-large
    type: openai_chat
    model: large-model-2
    base_url: {base_url}
    timeout: {timeout}
    max_retries: 0
    cost_per_million: {{input: 2.00, output: 8.00}}
""",
        encoding="utf-8",
    )
    (tmp_path / "application.yml").write_text(
        f"""llm_configuration:
  citation_pipeline:
    default: {{chat: local-small, keyword_summary: local-small}}
    advanced: {{chat: local-large}}
  chat_pipeline:
    default: {{chat: local-small}}
    advanced: {{chat: local-large}}
citation:
  keyword_strategy: {strategy}
""",
        encoding="utf-8",
    )
    return load_config(tmp_path, override="")


def markers(answer: str) -> list[tuple[str, str]]:
    return [(m.keyword or "", m.summary or "") for m in parse(answer, "client")]


# --- concurrency and the keyword chain ---------------------------------------------------------------

def test_summaries_overlap_keywords_are_a_chain_that_sees_earlier_keywords(tmp_path: Path) -> None:
    llm = FakeLlm(delay={"summary": 0.3, "keyword": 0.05})
    with LocalChatServer(llm) as srv:
        pipe = CitationPipeline.from_config(write_config(tmp_path, srv.base_url))
        result = pipe.run_pass(ANSWER4, [*SOURCES, QUICK])
        reqs = srv.requests

    assert result.rewritten and result.trace.failures == []
    assert len(result.used_seqs) == 4 and strip_markers(result.answer) == ANSWER4
    assert sorted(req_task(r) for r in reqs) == ["keyword"] * 4 + ["placement"] + ["summary"] * 4
    assert all(r.status == 200 for r in reqs)
    # summaries: one task each, in parallel
    assert srv.max_overlap(lambda r: req_task(r) == "summary") >= 2
    # keywords: one sequential task
    assert srv.max_overlap(lambda r: req_task(r) == "keyword") == 1
    # ... that runs alongside the summaries, not after them
    assert srv.max_overlap(lambda r: req_task(r) != "placement") >= 2

    kw_log = [(p, c) for t, p, c in llm.log if t == "keyword"]
    returned = [c for _, c in kw_log]
    assert returned == ["Merge sort", "Merge step", "The recursion", "Quicksort"]
    for k, (prompt, _) in enumerate(kw_log):
        listed = re.search(r"already used in this answer: (.*)", prompt)
        assert listed is not None
        assert listed.group(1) == (", ".join(returned[:k]) if k else "(none yet)")
    assert [kw for kw, _ in markers(result.answer)] == returned
    assert markers(result.answer)[0][1] == (
        "Divide the list into two halves, sort each half recursively, then merge the sorted halves."
    )


def test_summaries_overlap_in_wall_time(tmp_path: Path) -> None:
    """Four 0.3 s summaries next to a 4 x 0.05 s keyword chain: enrichment takes about one summary."""
    llm = FakeLlm(delay={"summary": 0.3, "keyword": 0.05})
    with LocalChatServer(llm) as srv:
        result = CitationPipeline.from_config(write_config(tmp_path, srv.base_url)).run_pass(ANSWER4, [*SOURCES, QUICK])
    enrich = next(p for p in result.trace.phases if p.name == "enrich")
    assert 0.3 <= enrich.duration < 0.3 * 4


# --- language -------------------------------------------------------------------------------------------

JA_KEYWORDS = {"Merge sort": "マージソート", "Merge step": "マージ手順", "The recursion": "再帰木"}


@pytest.mark.parametrize(("code", "name"), [("de", "German (Deutsch)"), ("ja", "Japanese (日本語)")])
def test_every_request_starts_with_the_language_line(tmp_path: Path, code: str, name: str) -> None:
    llm = FakeLlm()
    if code == "ja":
        llm.keyword = lambda p: JA_KEYWORDS[default_keyword(p)]
        llm.summary = lambda p: "この段落の要約です。"
    with LocalChatServer(llm) as srv:
        pipe = CitationPipeline.from_config(write_config(tmp_path, srv.base_url))
        result = pipe.run_pass(ANSWER, SOURCES, language=code)
        reqs = srv.requests

    line = result.trace.info["language_line"]
    assert name in line and result.trace.info["language"] == code
    assert len(reqs) == 7
    for r in reqs:
        assert prompt_of(r.body).startswith(line + "\n\n")
    assert all(c.prompt.startswith(line + "\n") for c in result.trace.calls)
    if code == "ja":  # non-ASCII survives the round trip into the markers
        assert [kw for kw, _ in markers(result.answer)] == list(JA_KEYWORDS.values())
        assert {s for _, s in markers(result.answer)} == {"この段落の要約です。"}


# --- the failure table over HTTP ---------------------------------------------------------------------

def test_http_429_on_one_summary_leaves_it_empty_and_rewrite_continues(tmp_path: Path) -> None:
    llm = FakeLlm(status=lambda task, prompt: 429 if task == "summary" and "Merge step\n" in prompt else 200)
    with LocalChatServer(llm) as srv:
        result = CitationPipeline.from_config(write_config(tmp_path, srv.base_url)).run_pass(ANSWER, SOURCES)
        statuses = sorted(r.status for r in srv.requests)

    assert statuses == [200] * 6 + [429]  # max_retries 0: asked once
    assert result.rewritten
    found = markers(result.answer)
    assert [s == "" for _, s in found] == [False, True, False]
    assert all(kw for kw, _ in found)
    assert [(f.kind, f.seq) for f in result.trace.failures] == [("summary", 2)]
    assert "429" in result.trace.failures[0].message
    failed = [c for c in result.trace.calls if c.error]
    assert len(failed) == 1 and failed[0].task == "summary" and "HTTP 429" in (failed[0].error or "")
    assert strip_markers(result.answer) == ANSWER


@pytest.mark.parametrize("strategy", ["sequential", "batched"])
def test_http_500_on_keywords_leaves_keywords_empty(tmp_path: Path, strategy: str) -> None:
    llm = FakeLlm(status=lambda task, prompt: 500 if task.startswith("keyword") else 200)
    with LocalChatServer(llm) as srv:
        pipe = CitationPipeline.from_config(write_config(tmp_path, srv.base_url, strategy=strategy))
        result = pipe.run_pass(ANSWER, SOURCES)

    # the sequential task stops at its first failure: one keyword request only
    assert sum(t.startswith("keyword") for t in llm.tasks()) == 1
    assert result.rewritten
    found = markers(result.answer)
    assert len(found) == 3 and all(kw == "" and s for kw, s in found)
    assert [f.kind for f in result.trace.failures] == ["keyword_task"]
    assert "HTTP 500" in result.trace.failures[0].message
    assert strip_markers(result.answer) == ANSWER


def test_placement_timeout_raises_placement_error_with_trace(tmp_path: Path) -> None:
    llm = FakeLlm(delay={"placement": 5.0})
    t0 = time.monotonic()
    with LocalChatServer(llm) as srv:
        pipe = CitationPipeline.from_config(write_config(tmp_path, srv.base_url, timeout=0.4))
        with pytest.raises(PlacementError) as err:
            pipe.run_pass(ANSWER, SOURCES)
    assert time.monotonic() - t0 < 3.0  # gave up after the model timeout, not the reply delay
    assert llm.tasks() == ["placement"]
    trace = err.value.trace
    assert [f.kind for f in trace.failures] == ["placement"]
    assert "timed out" in str(err.value) and "timed out" in trace.failures[0].message
    (call,) = trace.calls
    assert call.task == "placement" and call.error and "timed out" in call.error
    place_phase = next(p for p in trace.phases if p.name == "place")
    assert place_phase.status == "failed"


def test_http_500_on_placement_raises_placement_error(tmp_path: Path) -> None:
    llm = FakeLlm(status=lambda task, prompt: 500 if task == "placement" else 200)
    with LocalChatServer(llm) as srv:
        pipe = CitationPipeline.from_config(write_config(tmp_path, srv.base_url))
        with pytest.raises(PlacementError) as err:
            pipe.run_pass(ANSWER, SOURCES)
        assert [r.status for r in srv.requests] == [500]
    assert [f.kind for f in err.value.trace.failures] == ["placement"]
    assert "HTTP 500" in str(err.value)


# --- usage, cost and who served what -----------------------------------------------------------------------

def test_usage_and_cost_come_from_the_server_numbers_and_the_configured_prices(tmp_path: Path) -> None:
    llm = FakeLlm(usage={"placement": (1000, 200), "keyword": (100, 5), "summary": (200, 30)})
    with LocalChatServer(llm) as srv:
        cfg = write_config(tmp_path, srv.base_url)
        # placement on local-large, the rest on local-small
        result = CitationPipeline.from_config(cfg, "advanced").run_pass(ANSWER, SOURCES)

    # local-large: 2.00 / 8.00 USD per million; local-small: 0.40 / 1.60
    per_call = {"placement": (1000, 200, 0.0036), "keyword": (100, 5, 0.000048), "summary": (200, 30, 0.000128)}
    for c in result.trace.calls:
        pt, ct, cost = per_call[c.task]
        assert (c.prompt_tokens, c.completion_tokens, c.estimated) == (pt, ct, False)
        assert c.cost == pytest.approx(cost, abs=1e-12)
    usage = result.trace.usage()
    assert usage["calls"] == 7
    assert usage["prompt_tokens"] == 1000 + 3 * 100 + 3 * 200 == 1900
    assert usage["completion_tokens"] == 200 + 3 * 5 + 3 * 30 == 305
    assert usage["cost"] == pytest.approx(0.004128, abs=1e-12)
    assert usage["estimated"] is False
    assert result.trace.to_json()["usage"] == usage


def test_trace_calls_name_the_model_and_variant_that_served_them(tmp_path: Path) -> None:
    with LocalChatServer(FakeLlm()) as srv:
        cfg = write_config(tmp_path, srv.base_url)
        advanced = CitationPipeline.from_config(cfg, "advanced").run_pass(ANSWER, SOURCES)
        served = {(req_task(r), r.body["model"]) for r in srv.requests}
        default = CitationPipeline.from_config(cfg).run_pass(ANSWER, SOURCES)

    assert served == {("placement", "large-model-2"), ("keyword", "small-model-1"), ("summary", "small-model-1")}
    assert advanced.trace.info["models"] == {"chat": "local-large (large-model-2)",
                                             "keyword_summary": "local-small (small-model-1)"}
    who = {(c.task, c.model_id, c.model_name, c.variant, c.offline) for c in advanced.trace.calls}
    assert who == {("placement", "local-large", "large-model-2", "advanced", False),
                   ("keyword", "local-small", "small-model-1", "default", False),
                   ("summary", "local-small", "small-model-1", "default", False)}
    assert {(c.task, c.model_id, c.variant) for c in default.trace.calls} == {
        ("placement", "local-small", "default"), ("keyword", "local-small", "default"),
        ("summary", "local-small", "default")}
    assert default.answer == advanced.answer


# --- batched keywords, FAQ pass -----------------------------------------------------------------------------

def test_batched_strategy_makes_one_keyword_request_and_keeps_keywords_unique(tmp_path: Path) -> None:
    llm = FakeLlm(delay={"summary": 0.2, "keywords_batched": 0.2})
    with LocalChatServer(llm) as srv:
        pipe = CitationPipeline.from_config(write_config(tmp_path, srv.base_url, strategy="batched"))
        result = pipe.run_pass(ANSWER4, [*SOURCES, QUICK])
        reqs = srv.requests

    assert result.trace.info["keyword_strategy"] == "batched"
    tasks = sorted(req_task(r) for r in reqs)
    assert tasks == ["keywords_batched", "placement"] + ["summary"] * 4
    (batched_prompt,) = [p for t, p, _ in llm.log if t == "keywords_batched"]
    assert json.loads(batched_prompt.split("Paragraphs (JSON array):\n", 1)[1]) == [
        MERGE.text, MERGE_STEP.text, TREE.text, QUICK.text]  # in the order they are cited
    # the server answered ["Merge", "Merge", "Quicksort", "The"]: uniqueness is enforced afterwards
    keywords = [kw for kw, _ in markers(result.answer)]
    assert keywords == ["Merge", "Merge 2", "The", "Quicksort"]
    assert len({k.lower() for k in keywords}) == len(keywords)
    assert all(s for _, s in markers(result.answer))
    # the one keyword call runs alongside the summaries: enrichment is a single round
    (kw_req,) = [r for r in reqs if req_task(r) == "keywords_batched"]
    assert any(r.started < kw_req.finished and kw_req.started < r.finished
               for r in reqs if req_task(r) == "summary")
    assert srv.max_overlap(lambda r: req_task(r) == "summary") >= 2
    assert strip_markers(result.answer) == ANSWER4 and result.trace.failures == []


def test_faq_pass_over_http(tmp_path: Path) -> None:
    answer = "The final exam is open book and printed notes are allowed. Merge sort is stable."
    with LocalChatServer(FakeLlm()) as srv:
        pipe = CitationPipeline.from_config(write_config(tmp_path, srv.base_url))
        result = pipe.run_pass(answer, [EXAM, LATE], kind="faq")
    found = parse(result.answer, "client")
    assert [(m.type, m.entity_id) for m in found] == [("F", "17")]
    assert found[0].keyword == "Is the" and found[0].summary
    assert "FAQ entries:" in result.trace.calls[0].prompt
    assert strip_markers(result.answer) == answer
