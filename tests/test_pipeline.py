"""The citation pipeline, phase by phase, on the offline model and on scripted models."""

from __future__ import annotations

import json
import threading
import time

import pytest

from citation_core import Sources
from citation_core.contract import parse, strip_markers
from citation_core.errors import ModelCallError
from citation_core.llm.base import LlmRequest
from citation_core.pipeline import PHASES, CitationPipeline, PassRun, PlacementError, replace_phase
from citation_core.pipeline.languages import LANGUAGES
from citation_core.pipeline.serialize import serialize_faqs, serialize_lecture

from .fakes import ANSWER, EMPTY, EXAM, LATE, MERGE, MERGE_STEP, TREE, FakeFactory, pipeline


def test_serialize_pages_first_then_segments_empty_skipped() -> None:
    ser = serialize_lecture([TREE, MERGE, EMPTY, MERGE_STEP])
    ids = [e["id"] for e in json.loads(ser.json_text)]
    assert ids == ["[cite:L:12:3::!1]", "[cite:L:12:4::!2]", "[cite:L:12::75:92!3]"]
    assert json.loads(ser.json_text)[2]["content"] == TREE.text


def test_serialize_faq_content_is_question_and_answer() -> None:
    ser = serialize_faqs([EXAM])
    (entry,) = json.loads(ser.json_text)
    assert entry == {"id": "[cite:F:17:::!1]", "content": f"{EXAM.question} {EXAM.answer}"}


def test_offline_run_cites_each_sentence_with_unique_keywords() -> None:
    result = pipeline().run_pass(ANSWER, [MERGE, MERGE_STEP, TREE])
    assert result.rewritten
    found = parse(result.answer, "client")
    assert [(m.page, m.start, m.end) for m in found] == [("3", "", ""), ("4", "", ""), ("", "75", "92")]
    keywords = [m.keyword for m in found]
    assert all(keywords) and len({k.lower() for k in keywords}) == len(keywords)
    assert all(m.summary for m in found)
    assert strip_markers(result.answer) == ANSWER
    assert parse(result.answer, "iris") == []


def test_only_used_sources_are_enriched() -> None:
    factory = FakeFactory()
    unrelated = [type(MERGE)(f"x{i}", 99, i, f"Hash tables chapter {i} buckets probing") for i in range(1, 19)]
    result = pipeline(factory).run_pass(ANSWER.split(". ")[0] + ".", [MERGE, MERGE_STEP, *unrelated])
    assert result.used_seqs == (1,)
    tasks = [r.task for r in factory.requests]
    assert tasks.count("keyword") == 1 and tasks.count("summary") == 1 and tasks.count("placement") == 1


def test_keywords_are_sequential_and_see_earlier_keywords() -> None:
    inflight = 0
    max_inflight = 0
    lock = threading.Lock()
    seen_used: list[list[str]] = []

    def respond(req: LlmRequest) -> str | None:
        nonlocal inflight, max_inflight
        if req.task != "keyword":
            return None
        with lock:
            inflight += 1
            max_inflight = max(max_inflight, inflight)
        seen_used.append(list(req.inputs["used_keywords"]))
        time.sleep(0.05)
        with lock:
            inflight -= 1
        return "Sorting"  # the same keyword every time: uniqueness is still enforced

    result = pipeline(FakeFactory(respond)).run_pass(ANSWER, [MERGE, MERGE_STEP, TREE])
    assert max_inflight == 1
    assert seen_used == [[], ["Sorting"], ["Sorting", "Sorting 2"]]
    assert [m.keyword for m in parse(result.answer, "client")] == ["Sorting", "Sorting 2", "Sorting 3"]


def test_summaries_run_in_parallel() -> None:
    inflight = 0
    max_inflight = 0
    lock = threading.Lock()

    def respond(req: LlmRequest) -> str | None:
        nonlocal inflight, max_inflight
        if req.task != "summary":
            return None
        with lock:
            inflight += 1
            max_inflight = max(max_inflight, inflight)
        time.sleep(0.2)
        with lock:
            inflight -= 1
        return "A summary."

    pipeline(FakeFactory(respond)).run_pass(ANSWER, [MERGE, MERGE_STEP, TREE])
    assert max_inflight == 3


def test_every_task_gets_its_own_model_client() -> None:
    factory = FakeFactory()
    pipeline(factory).run_pass(ANSWER, [MERGE, MERGE_STEP, TREE])
    assert factory.created == len(factory.requests) == 1 + 3 + 3


def test_batched_strategy_one_keyword_call_uniqueness_enforced() -> None:
    factory = FakeFactory(lambda r: '["Merge", "merge", "Tree"]' if r.task == "keywords_batched" else None)
    result = pipeline(factory, strategy="batched").run_pass(ANSWER, [MERGE, MERGE_STEP, TREE])
    assert [r.task for r in factory.requests].count("keywords_batched") == 1
    assert [m.keyword for m in parse(result.answer, "client")] == ["Merge", "merge 2", "Tree"]


def test_every_prompt_starts_with_the_language_line() -> None:
    factory = FakeFactory()
    result = pipeline(factory).run_pass(ANSWER, [MERGE, MERGE_STEP, TREE], language="de")
    line = result.trace.info["language_line"]
    assert "German (Deutsch)" in line
    assert len(factory.requests) == 7
    for req in factory.requests:
        assert req.messages[0].content.startswith(line + "\n")


@pytest.mark.parametrize("code", sorted(LANGUAGES))
def test_each_supported_language_has_its_own_line(code: str) -> None:
    factory = FakeFactory()
    result = pipeline(factory).run_pass(ANSWER, [MERGE], language=code)
    assert result.trace.warnings == []
    assert LANGUAGES[code].name in factory.requests[0].messages[0].content.splitlines()[0]


def test_unknown_language_falls_back_to_english_with_a_warning() -> None:
    factory = FakeFactory()
    result = pipeline(factory).run_pass(ANSWER, [MERGE], language="xx")
    assert any("xx" in w and "English" in w for w in result.trace.warnings)
    assert factory.requests[0].messages[0].content.startswith(result.trace.info["language_line"])
    assert "English" in result.trace.info["language_line"]


def test_nothing_used_returns_the_answer_unchanged() -> None:
    result = pipeline().run_pass("The weather is nice today.", [MERGE, MERGE_STEP])
    assert result.answer == "The weather is nice today." and result.used_seqs == ()


def test_trace_shows_every_phase_with_inputs_and_outputs() -> None:
    events: list[tuple[str, str]] = []
    result = pipeline().run_pass(ANSWER, [MERGE, MERGE_STEP, TREE],
                                progress=lambda e: events.append((e.phase, e.status)))
    t = result.trace.to_json()
    phases = {p["name"]: p for p in t["phases"]}
    # the evidence comes before enrichment: a chip's summary is about the passage it quotes
    assert list(phases) == ["serialize", "place", "validate", "collect", "evidence", "enrich", "rewrite"]
    assert json.loads(phases["serialize"]["outputs"]["sources_json"])[0]["id"] == "[cite:L:12:3::!1]"
    assert "[cite:L:12:3::!1]" in phases["place"]["outputs"]["raw_output"]
    assert phases["collect"]["outputs"]["used_sequence_numbers"] == [1, 2, 3]
    assert set(phases["enrich"]["outputs"]["keywords"]) == {"1", "2", "3"}
    assert {c["task"] for c in t["calls"]} == {"placement", "keyword", "summary"}
    assert all(c["model_id"] == "offline" and c["prompt"] for c in t["calls"])
    assert t["usage"]["calls"] == 7 and t["usage"]["prompt_tokens"] > 0
    assert events[0] == ("serialize", "start") and events[-1] == ("rewrite", "done")


def test_two_runs_at_once_on_one_pipeline_do_not_mix_sources() -> None:
    p = pipeline()
    other = type(MERGE)("h1", 77, 6, "Hash table\nA hash function maps keys to buckets; collisions are chained.")
    results: dict[str, str] = {}

    def run(name: str, answer: str, sources: list) -> None:  # type: ignore[type-arg]
        for _ in range(5):
            results[name] = p(answer, sources).answer

    a = threading.Thread(target=run, args=("a", ANSWER, [MERGE, MERGE_STEP, TREE]))
    b = threading.Thread(target=run, args=("b", "A hash function maps keys to buckets and collisions are chained.",
                                            [other]))
    a.start(), b.start()
    a.join(), b.join()
    assert {m.entity_id for m in parse(results["a"], "client")} == {"12"}
    assert {(m.entity_id, m.page) for m in parse(results["b"], "client")} == {("77", "6")}


# --- the failure table (DESIGN 4.3) --------------------------------------------------------------

def test_failed_summary_leaves_that_summary_empty_and_rewrite_continues() -> None:
    def respond(req: LlmRequest) -> str | None:
        if req.task == "summary" and "merge step" in req.inputs["paragraph"].lower():
            raise ModelCallError("HTTP 500")
        return None

    result = pipeline(FakeFactory(respond)).run_pass(ANSWER, [MERGE, MERGE_STEP, TREE])
    found = parse(result.answer, "client")
    assert [m.summary == "" for m in found] == [False, True, False]
    assert all(m.keyword for m in found)
    (f,) = result.trace.failures
    assert (f.kind, f.seq) == ("summary", 2)
    assert strip_markers(result.answer) == ANSWER


def test_failed_keyword_task_leaves_keywords_empty_and_rewrite_continues() -> None:
    def respond(req: LlmRequest) -> str | None:
        if req.task == "keyword":
            raise ModelCallError("keyword model timed out")
        return None

    result = pipeline(FakeFactory(respond)).run_pass(ANSWER, [MERGE, MERGE_STEP, TREE])
    found = parse(result.answer, "client")
    assert len(found) == 3 and all(m.keyword == "" and m.summary for m in found)
    assert [f.kind for f in result.trace.failures] == ["keyword_task"]
    assert "timed out" in result.trace.failures[0].message


def test_unexpected_enrichment_error_returns_the_placement_result() -> None:
    def broken(run: PassRun) -> dict[str, object]:
        raise KeyError("boom")

    p = CitationPipeline(phases=replace_phase(PHASES, "rewrite", broken))
    result = p.run_pass(ANSWER, [MERGE, MERGE_STEP, TREE])
    assert not result.rewritten
    assert [m.seq for m in parse(result.answer, "iris")] == ["1", "2", "3"]
    assert [f.kind for f in result.trace.failures] == ["enrichment_or_rewrite"]
    assert [p.status for p in result.trace.phases][-1] == "failed"
    assert strip_markers(result.answer) == ANSWER


def test_placement_failure_is_raised_with_the_trace() -> None:
    def respond(req: LlmRequest) -> str | None:
        if req.task == "placement":
            raise ModelCallError("refused")
        return None

    with pytest.raises(PlacementError) as err:
        pipeline(FakeFactory(respond)).run_pass(ANSWER, [MERGE])
    assert [f.kind for f in err.value.trace.failures] == ["placement"]
    assert "refused" in str(err.value)


def test_invented_and_altered_ids_are_removed() -> None:
    def respond(req: LlmRequest) -> str | None:
        if req.task == "placement":
            s1, s2 = ANSWER.split(". ", 1)
            return f"{s1}.[cite:L:12:3::!1][cite:L:99:1::!7] {s2}[cite:L:12:5::!2]"
        return None

    result = pipeline(FakeFactory(respond)).run_pass(ANSWER, [MERGE, MERGE_STEP])
    assert result.used_seqs == (1,)
    validate = next(p for p in result.trace.phases if p.name == "validate")
    assert validate.outputs["removed_markers"] == ["[cite:L:99:1::!7]", "[cite:L:12:5::!2]"]
    assert strip_markers(result.answer) == ANSWER


def test_model_that_rewrites_the_text_gets_its_markers_reanchored() -> None:
    def respond(req: LlmRequest) -> str | None:
        if req.task == "placement":
            return ("Sure, here it is:\n\nMerge sort splits the list into two halves and sorts each half "
                    "recursively.[cite:L:12:3::!1] The merge step combines two sorted lists in linear time."
                    "[cite:L:12:4::!2]")
        return None

    result = pipeline(FakeFactory(respond)).run_pass(ANSWER, [MERGE, MERGE_STEP])
    assert strip_markers(result.answer) == ANSWER
    assert result.used_seqs == (1, 2)
    before = strip_markers(result.answer[: result.answer.index("[cite:L:12:4:")])
    assert before == ANSWER[: ANSWER.index("linear time.") + len("linear time.")]
    assert any(f.kind == "validation" for f in result.trace.failures)


def test_faq_pass_then_lecture_pass_keeps_faq_markers() -> None:
    p = pipeline()
    answer = "The final exam is open book and printed notes are allowed. " + ANSWER
    faq = p.run_pass(answer, [EXAM, LATE], kind="faq")
    assert [(m.type, m.entity_id) for m in parse(faq.answer, "client")] == [("F", "17")]
    lecture = p.run_pass(faq.answer, [MERGE, MERGE_STEP, TREE])
    kinds = [m.type for m in parse(lecture.answer, "client")]
    assert kinds[0] == "F" and kinds.count("L") == 3
    assert strip_markers(lecture.answer) == answer


def test_both_passes_through_the_public_api() -> None:
    from citation_core import Sources, cite

    answer = "The final exam is open book and printed notes are allowed. " + ANSWER
    result = cite(answer, Sources(lecture=(MERGE, MERGE_STEP, TREE), faqs=(EXAM, LATE)))
    assert [m.type for m in parse(result.answer, "client")] == ["F", "L", "L", "L"]
    assert strip_markers(result.answer) == answer
    assert list(result.traces) == ["faq", "lecture"] and result.failures == ()
    assert result.used_sequence_numbers() == {"faq": [1], "lecture": [1, 2, 3]}


def test_a_lecture_placement_failure_keeps_the_faq_citations() -> None:
    def respond(req: LlmRequest) -> str | None:
        if req.task == "placement" and "Paragraphs:" in req.messages[0].content:
            raise ModelCallError("lecture placement down")
        return None

    answer = "The final exam is open book and printed notes are allowed. " + ANSWER
    result = pipeline(FakeFactory(respond))(answer, [EXAM, MERGE, MERGE_STEP])
    assert [m.type for m in parse(result.answer, "client")] == ["F"]
    assert [f.kind for f in result.failures] == ["placement"]
    assert strip_markers(result.answer) == answer


def test_placeholders_inside_filled_text_stay_text() -> None:
    from citation_core.pipeline.prompts import Prompts

    prompt = Prompts.default().render("placement_lecture", "LANG", Paragraphs='[{"content": "see {Answer}"}]',
                                      Answer="The answer.")
    assert 'see {Answer}' in prompt and prompt.count("The answer.") == 1


def test_both_passes_at_once_give_the_answer_of_the_seed_order() -> None:
    answer = "The final exam is open book and printed notes are allowed. " + ANSWER
    sources = Sources((MERGE, MERGE_STEP, TREE), (EXAM, LATE))
    together = CitationPipeline(pass_order="parallel")(answer, sources)
    seed = CitationPipeline(pass_order="faq_then_lecture")(answer, sources)
    assert together.answer == seed.answer
    assert [c.ref for c in together.citations] == [c.ref for c in seed.citations]


def test_both_passes_at_once_report_progress_on_the_calling_thread() -> None:
    seen: list[tuple[str, str, int]] = []
    answer = "The final exam is open book and printed notes are allowed. " + ANSWER
    CitationPipeline()(answer, Sources((MERGE,), (EXAM,)),
                       progress=lambda e: seen.append((e.pass_name, e.phase, threading.get_ident())))
    assert {t for _, _, t in seen} == {threading.get_ident()}
    assert {(p, ph) for p, ph, _ in seen} >= {("faq", "rewrite"), ("lecture", "rewrite")}


def test_both_passes_at_once_keep_the_lecture_citations_when_the_faq_pass_fails() -> None:
    def respond(req: LlmRequest) -> str | None:
        if req.task == "placement" and "FAQ entries:" in req.messages[0].content:
            raise ModelCallError("faq placement down")
        return None

    answer = "The final exam is open book and printed notes are allowed. " + ANSWER
    result = pipeline(FakeFactory(respond))(answer, Sources((MERGE, MERGE_STEP), (EXAM,)))
    assert [m.type for m in parse(result.answer, "client")] == ["L", "L"]
    assert [f.kind for f in result.failures] == ["placement"] and strip_markers(result.answer) == answer


def test_keyword_cleaning_drops_paired_markdown_but_keeps_underscores_inside_text() -> None:
    from citation_core.pipeline.enrich import clean_keyword

    assert clean_keyword("**Merge sort**") == "Merge sort"
    assert clean_keyword("Keyword: __Heap__") == "Heap"
    assert clean_keyword('<img src=x onerror="window.__xss=8">') == '<img src=x onerror="window.__xss=8">'


def _cite_first_sentence(req: LlmRequest) -> str | None:
    """Placement that copies the first id behind the first sentence, after any marker already there."""
    if req.task != "placement":
        return None
    answer, first_id = req.inputs["answer"], req.inputs["sources"][0]["id"]
    end = answer.index(".") + 1
    while answer.startswith("[cite:", end):
        end = answer.index("]", end) + 1
    return answer[:end] + first_id + answer[end:]


@pytest.mark.parametrize("order", ["parallel", "faq_then_lecture"])
def test_the_sentences_own_slide_leads_its_group_before_an_faq(order: str) -> None:
    answer = "Merge sort splits the list into two halves; the exam is open book. " + ANSWER
    pipe = pipeline(FakeFactory(_cite_first_sentence))
    pipe.pass_order = order  # type: ignore[assignment]
    result = pipe(answer, Sources((MERGE, MERGE_STEP), (EXAM,)))
    group = parse(result.answer, "client")
    assert [(m.type, m.entity_id) for m in group] == [("L", "12"), ("F", "17")]
    assert strip_markers(result.answer) == answer
    # the two markers stand together behind the first sentence, the slide's first
    head = answer.split(". ")[0] + "."
    assert group[0].span == (len(head), group[1].span[0]) and result.answer.startswith(head + "[cite:L:12:3:")
