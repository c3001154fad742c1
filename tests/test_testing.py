"""citation_core.testing: the scripted model, and the cooperative handler over real HTTP."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from citation_core.errors import ModelCallError
from citation_core.llm.base import ChatMessage, ChatModel, LlmRequest, Task, estimate_tokens
from citation_core.llm.config import ModelConfig
from citation_core.llm.openai_chat import OpenAIChatModel
from citation_core.pipeline.prompts import Prompts
from citation_core.testing import LocalChatServer, ScriptedModel, cooperative_handler

ROOT = Path(__file__).resolve().parents[1]
LANGUAGE_LINE = "Write in English."


def request(task: Task, prompt: str = "prompt", **inputs: object) -> LlmRequest:
    return LlmRequest(task, (ChatMessage("user", prompt),), inputs)


# --- ScriptedModel ------------------------------------------------------------------------------------


def test_a_string_reply_answers_every_call_with_estimated_usage() -> None:
    model = ScriptedModel({"summary": "A summary."}, model_id="small", model_name="small-model-1")
    first = model.complete(request("summary", "x" * 40))
    second = model.complete(request("summary"))
    assert (first.content, second.content) == ("A summary.", "A summary.")
    assert (first.model_id, first.model_name) == ("small", "small-model-1")
    assert (first.usage.prompt_tokens, first.usage.completion_tokens) == (10, estimate_tokens("A summary."))
    assert first.usage.estimated and first.usage.cost == 0.0
    assert model.offline is False
    chat_model: ChatModel = model  # it is a ChatModel
    assert chat_model.model_id == "small"


def test_list_replies_are_used_in_order_per_task_then_fail() -> None:
    model = ScriptedModel({"keyword": ["Heaps", "Tries"], "summary": ["one", "two"]})
    got = [model.complete(request(task)).content for task in ("keyword", "summary", "keyword", "summary")]
    assert got == ["Heaps", "one", "Tries", "two"]
    with pytest.raises(ModelCallError, match="keyword"):
        model.complete(request("keyword"))
    assert model.tasks() == ["keyword", "summary", "keyword", "summary", "keyword"]


def test_an_exception_reply_is_raised_and_the_request_recorded() -> None:
    failure = ModelCallError("model m: HTTP 500 from http://127.0.0.1")
    model = ScriptedModel({"placement": failure})
    sent = request("placement", "the placement prompt")
    with pytest.raises(ModelCallError) as err:
        model.complete(sent)
    assert err.value is failure
    assert model.requests == [sent]


def test_a_function_reply_gets_the_request() -> None:
    model = ScriptedModel({"keyword": lambda r: f"{r.inputs['paragraph']} ({len(r.messages)} message)"})
    assert model.complete(request("keyword", paragraph="Merge sort")).content == "Merge sort (1 message)"


def test_a_list_may_mix_failures_and_texts() -> None:
    model = ScriptedModel({"summary": [TimeoutError("slow"), "late but fine"]})
    with pytest.raises(TimeoutError):
        model.complete(request("summary"))
    assert model.complete(request("summary")).content == "late but fine"


def test_a_task_without_a_reply_names_the_task() -> None:
    model = ScriptedModel({"placement": "A."}, model_id="local")
    with pytest.raises(ModelCallError, match=r"local.*no scripted reply for task 'summary'.*placement"):
        model.complete(request("summary"))
    assert model.tasks() == ["summary"]


def test_unknown_tasks_and_reply_kinds_are_refused_up_front() -> None:
    with pytest.raises(ValueError, match="keywords"):
        ScriptedModel({"keywords": "typo"})
    with pytest.raises(TypeError, match="'summary'"):
        ScriptedModel({"summary": 42})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="'summary'"):
        ScriptedModel({"summary": ["fine", 42]})  # type: ignore[list-item]
    with pytest.raises(TypeError, match="'placement'"):
        ScriptedModel({"placement": ModelCallError})  # an exception class, not an instance


def test_parallel_calls_each_get_their_own_reply() -> None:
    replies = [f"summary {k}" for k in range(8)]
    model = ScriptedModel({"summary": replies})
    start = threading.Barrier(len(replies), timeout=10)

    def call(k: int) -> str:
        start.wait()  # all threads call at once
        return model.complete(request("summary", f"paragraph {k}")).content

    with ThreadPoolExecutor(max_workers=len(replies)) as pool:
        got = list(pool.map(call, range(len(replies))))
    assert sorted(got) == sorted(replies)  # none used twice, none lost
    assert sorted(r.messages[0].content for r in model.requests) == sorted(f"paragraph {k}" for k in range(8))


def test_function_replies_run_in_parallel() -> None:
    parties = 4
    together = threading.Barrier(parties, timeout=10)  # breaks if the model ran the calls one at a time

    def reply(r: LlmRequest) -> str:
        together.wait()
        return r.messages[0].content.upper()

    model = ScriptedModel({"summary": reply})
    with ThreadPoolExecutor(max_workers=parties) as pool:
        got = list(pool.map(lambda k: model.complete(request("summary", f"p{k}")).content, range(parties)))
    assert got == [f"P{k}" for k in range(parties)]


# --- cooperative_handler over HTTP --------------------------------------------------------------------

PROMPTS = Prompts.load(ROOT / "prompts")

MERGE_ID = "[cite:L:12:3::!1]"
TREE_ID = "[cite:L:12:::!2]"
ENTRIES = [
    {"id": MERGE_ID, "content": "Merge sort\nDivide the list into two halves, sort each half recursively."},
    {"id": TREE_ID, "content": "The recursion tree of merge sort has log n levels and every level costs n."},
]


def placement_prompt(answer: str, entries: list[dict[str, str]] = ENTRIES, kind: str = "lecture") -> str:
    # as the pipeline renders it: the entries as indented JSON
    paragraphs = json.dumps(entries, ensure_ascii=False, indent=2)
    return PROMPTS.render(f"placement_{kind}", LANGUAGE_LINE, Paragraphs=paragraphs, Answer=answer)


@pytest.fixture
def server() -> Iterator[LocalChatServer]:
    with LocalChatServer(cooperative_handler()) as srv:
        yield srv


def model_for(server: LocalChatServer) -> OpenAIChatModel:
    return OpenAIChatModel(
        ModelConfig(id="m", type="openai_chat", model="local-model", base_url=server.base_url, timeout=10,
                    max_retries=0)
    )


def test_placement_puts_the_best_entry_behind_each_sentence(server: LocalChatServer) -> None:
    answer = (
        "Merge sort divides the list into two halves. "
        "Its recursion tree has log n levels! "
        "Nothing else matters."
    )
    out = model_for(server).complete(request("placement", placement_prompt(answer)))
    assert out.content == (
        f"Merge sort divides the list into two halves.{MERGE_ID} "
        f"Its recursion tree has log n levels!{TREE_ID} "
        "Nothing else matters."
    )
    (recorded,) = server.requests
    assert recorded.task == "placement" and recorded.status == 200


def test_placement_keeps_markers_code_and_the_faq_template(server: LocalChatServer) -> None:
    faq_id = "[cite:F:17:::!1]"
    faqs = [{"id": faq_id, "content": "Is the exam open book?\nYes, the final exam is open book."}]
    answer = (
        f"The final exam is open book.{MERGE_ID} Run `exam.open_book()` for the final exam.\n\n"
        "```\nfinal. exam. open. book.\n```\nVersion 3.14 of the exam is open to all."
    )
    out = model_for(server).complete(request("placement", placement_prompt(answer, faqs, "faq")))
    assert out.content == (
        f"The final exam is open book.{MERGE_ID}{faq_id} Run `exam.open_book()` for the final exam.{faq_id}\n\n"
        f"```\nfinal. exam. open. book.\n```\nVersion 3.14 of the exam is open to all.{faq_id}"
    )


def test_placement_without_entries_returns_the_answer(server: LocalChatServer) -> None:
    answer = "Merge sort is stable.\n"
    out = model_for(server).complete(request("placement", placement_prompt(answer, [])))
    assert out.content == answer


def test_keyword_summary_and_batched_keywords(server: LocalChatServer) -> None:
    model = model_for(server)
    paragraph = "Merge step\nThe merge step combines two sorted lists. It runs in linear time."
    keyword = PROMPTS.render("keyword", LANGUAGE_LINE, UsedKeywords="Merge sort", Paragraph=paragraph)
    summary = PROMPTS.render("summary", LANGUAGE_LINE, Paragraph=paragraph)
    batched = PROMPTS.render(
        "keywords_batched", LANGUAGE_LINE,
        Paragraphs=json.dumps([paragraph, "Quicksort: it picks a [pivot] element and partitions.", "Heaps"], indent=1),
    )
    assert model.complete(request("keyword", keyword)).content == "Merge step"
    assert model.complete(request("summary", summary)).content == "The merge step combines two sorted lists."
    assert json.loads(model.complete(request("keywords_batched", batched)).content) == [
        "Merge step", "Quicksort it", "Heaps"]
    assert [r.task for r in server.requests] == ["keyword", "summary", "keywords_batched"]


def test_the_header_decides_the_task_not_the_wording(server: LocalChatServer) -> None:
    paragraph = "Merge step\nThe merge step combines two sorted lists."
    keyword_prompt = PROMPTS.render("keyword", LANGUAGE_LINE, UsedKeywords="(none yet)", Paragraph=paragraph)
    out = model_for(server).complete(request("summary", keyword_prompt))
    assert out.content == "The merge step combines two sorted lists."


def test_tasks_it_cannot_answer_and_broken_prompts_are_http_errors(server: LocalChatServer) -> None:
    model = model_for(server)
    with pytest.raises(ModelCallError, match="HTTP 400"):
        model.complete(request("writer", "Answer the question."))
    with pytest.raises(ModelCallError, match="HTTP 500"):
        model.complete(request("placement", "Paragraphs:\nnot JSON"))
    assert [(r.task, r.status) for r in server.requests] == [("writer", 400), ("placement", 500)]


def test_delay_per_task() -> None:
    with LocalChatServer(cooperative_handler(delay={"summary": 0.3})) as srv:
        model = model_for(srv)
        paragraph = "Heaps\nA heap keeps its smallest key at the root."
        for task in ("summary", "keyword"):
            model.complete(request(task, PROMPTS.render(task, LANGUAGE_LINE, UsedKeywords="", Paragraph=paragraph)))
        took = {r.task: r.finished - r.started for r in srv.requests}
    assert took["summary"] >= 0.3
    assert took["keyword"] < 0.3


def test_a_fixed_delay_lets_parallel_requests_overlap() -> None:
    with LocalChatServer(cooperative_handler(delay=0.3)) as srv:
        model = model_for(srv)
        prompts = [PROMPTS.render("summary", LANGUAGE_LINE, Paragraph=f"Topic {k}. More.") for k in range(3)]
        with ThreadPoolExecutor(max_workers=3) as pool:
            got = list(pool.map(lambda p: model.complete(request("summary", p)).content, prompts))
        assert got == ["Topic 0.", "Topic 1.", "Topic 2."]
        assert srv.max_overlap(lambda r: r.task == "summary") >= 2
        assert min(r.finished - r.started for r in srv.requests) >= 0.3


def test_the_bench_server_apart_cites_a_whole_pass_and_reports_its_requests() -> None:
    """``citation-studio bench`` serves from a process of its own: a pass gets every reply, and the requests the
    server saw come back with their tasks and times on the shared clock."""
    import os
    import time

    from citation_core.pipeline import CitationPipeline
    from citation_core.testing.rounds import ServedApart, build_case

    answer, pages = build_case(3)
    before = time.monotonic()
    with ServedApart(0.0) as srv:
        model = ModelConfig(id="bench", type="openai_chat", model="bench-model", base_url=srv.base_url,
                            timeout=30.0, max_retries=0)
        result = CitationPipeline(model, keyword_strategy="batched").run_pass(answer, pages)
        seen = srv.requests
        process = srv._process
        assert process.pid != os.getpid()
    assert len(result.used_seqs) == 3 and result.trace.failures == []
    assert sorted(r.task or "" for r in seen) == ["keywords_batched", "placement", "summary", "summary", "summary"]
    assert all(before <= r.started <= r.finished <= time.monotonic() for r in seen)
    assert not process.is_alive()  # stopped with the block
