"""The chat pipeline on the sample course: current view, retrieval, writer, both citation passes."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from citation_core import cite
from citation_core.chat.chat_pipeline import ChatPipeline, merge_lecture_sources
from citation_core.chat.offline_writer import PHRASES, write_answer
from citation_core.chat.tools import ToolState
from citation_core.chat.view import ViewPosition, current_view
from citation_core.chat.writers import WriterTurn
from citation_core.contract import parse, strip_markers
from citation_core.errors import InputError, ModelCallError
from citation_core.llm.base import LlmRequest
from citation_core.llm.config import ModelConfig
from citation_core.material.library import CourseMaterial, load_material
from citation_core.pipeline import Trace
from citation_core.pipeline.languages import choose_language
from citation_core.sources import FaqSource, PageChunk, Sources
from citation_core.testing.server import LocalChatServer, Reply
from citation_core.text import keyword_problems, summary_problems

from .fakes import FakeFactory, config

SAMPLES = Path(__file__).resolve().parents[1] / "sample_decks"


@cache
def material() -> CourseMaterial:
    return load_material(SAMPLES)


def chat(factory: Any = None) -> ChatPipeline:
    kwargs = {} if factory is None else {"factory": factory}
    return ChatPipeline(config(), material(), **kwargs)


def test_page_view_names_the_printed_number_and_keeps_the_deck_index() -> None:
    view = current_view(material(), ViewPosition(101, page=6))
    assert (view.page, view.display_page_number, view.label) == (6, "4", "slide 4")
    assert "slide 4" in view.describe() and "page 6" not in view.describe()
    assert {s.page_number for s in view.sources} == {6}  # type: ignore[union-attr]


def test_an_unnumbered_slide_is_named_by_its_place_and_its_title_when_no_other_page_has_it() -> None:
    view = current_view(material(), ViewPosition(101, page=8))  # a section divider
    assert view.display_page_number is None
    assert view.label == "page 8 of 17 (“Part 2: Running-Time Analysis”)"


def test_time_view_is_the_segment_playing_at_that_second() -> None:
    view = current_view(material(), ViewPosition(101, second=130.0))
    (seg,) = view.sources
    assert seg.start <= 130.0 < seg.end  # type: ignore[union-attr]
    assert view.page == 6 and view.label == "slide 4"  # the timeline shows deck page 6 from 109.5 s on


def test_out_of_range_positions_are_input_errors() -> None:
    with pytest.raises(InputError, match="out of range"):
        current_view(material(), ViewPosition(101, page=0))
    with pytest.raises(InputError, match="no transcript"):
        current_view(material(), ViewPosition(201, second=3))


def test_answer_names_printed_numbers_while_citations_carry_deck_indexes() -> None:
    result = chat()("How does the merge procedure on this slide combine two sorted halves?", ViewPosition(101, page=6))
    assert result.writer_answer.startswith("Slide 4 ")
    pages = [c.ref.page for c in result.citations if c.ref.page is not None]
    assert 6 in pages
    assert strip_markers(result.answer) == result.writer_answer
    # the deck index (6) never appears in the words written for people
    assert "page 6" not in result.writer_answer.lower() and "slide 6" not in result.writer_answer.lower()


def test_video_view_cites_seconds() -> None:
    result = chat()("Why does merging take linear time?", ViewPosition(101, second=128.0))
    spans = [(c.ref.start, c.ref.end) for c in result.citations if c.ref.start is not None]
    assert spans and all(isinstance(s, int) and isinstance(e, int) and s < e for s, e in spans)


def test_current_view_first_and_deduplicated_by_uuid() -> None:
    view = current_view(material(), ViewPosition(101, page=6))
    retrieved = material().lecture_index.search("merge two sorted subarrays", k=5)
    assert view.sources[0].uuid in {s.uuid for s in retrieved}
    merged = merge_lecture_sources(view.sources, retrieved)
    assert merged[0].uuid == view.sources[0].uuid
    assert len({s.uuid for s in merged}) == len(merged)


def test_question_about_another_unit_switches_context_and_drops_the_view() -> None:
    result = chat()("How do hash tables resolve collisions?", ViewPosition(101, page=6))
    assert result.context_switched and result.switched_to == 201
    assert all(str(c.ref.entity_id) != "101" for c in result.citations if c.ref.type == "L")


def test_placement_failure_returns_the_answer_with_faq_citations_kept() -> None:
    def respond(req: LlmRequest) -> str | None:
        if req.task == "placement" and "lecture paragraphs" in req.messages[0].content:
            raise ModelCallError("placement model down")
        return None

    pasted = ("You may bring one handwritten A4 sheet of notes to the final exam. "
              "A hash function maps every key of the universe to a slot of the table.")
    result = chat(FakeFactory(respond))("Can I bring notes to the final exam about hash functions?",
                                        ViewPosition(201, page=3), pasted_answer=pasted)
    assert [m.type for m in parse(result.answer, "client")] == ["F"] * len(parse(result.answer, "client"))
    assert parse(result.answer, "client"), "the FAQ pass succeeded before the lecture pass failed"
    assert strip_markers(result.answer) == pasted
    assert [f.kind for f in result.failures] == ["placement"]
    assert set(result.traces) == {"chat", "faq", "lecture"}


def test_pasted_answer_replaces_the_writer() -> None:
    pasted = "MERGE takes linear time because every iteration places one element after one comparison."
    result = chat()("Why is merge linear?", ViewPosition(101, page=6), pasted_answer=pasted)
    assert result.writer_answer == pasted and strip_markers(result.answer) == pasted
    assert any(c.ref.page == 6 for c in result.citations)
    assert result.traces["chat"].calls == []


def _openai_config(base_url: str) -> Any:
    import dataclasses

    cfg = config()
    model = ModelConfig("local", "openai_chat", "local-model", base_url=base_url, timeout=5, max_retries=0)
    roles = {p: {v: dict.fromkeys(r, "local") for v, r in vs.items()} for p, vs in cfg.llm_configuration.items()}
    return dataclasses.replace(cfg, models={**cfg.models, "local": model}, llm_configuration=roles)


def test_openai_writer_uses_tools_and_its_retrieval_is_cited() -> None:
    answer = "Separate chaining stores all keys that hash to the same slot in a linked list."

    def handler(body: dict[str, Any]) -> Reply:
        msgs = body["messages"]
        first = msgs[0]["content"]
        if "tutor for the course" in first:
            tool_msgs = [m for m in msgs if m.get("role") == "tool"]
            if not tool_msgs:
                return Reply(tool_calls=[
                    {"id": "c1", "type": "function", "function": {"name": "switch_context",
                                                                  "arguments": json.dumps({"unit_id": 201})}},
                    {"id": "c2", "type": "function", "function": {"name": "lecture_retrieval",
                                                                  "arguments": json.dumps({"query": "chaining"})}},
                ])
            assert any("slide" in m["content"] for m in tool_msgs), "tool results name printed slide numbers"
            return Reply(content=answer)
        if "Paragraphs:" in first:  # placement: cite the chaining slide
            ids = [e["id"] for e in json.loads(first.split("Paragraphs:\n", 1)[1].split("\n\nAnswer:")[0])]
            return Reply(content=answer + ids[0])
        return Reply(content="Chaining")

    with LocalChatServer(handler) as srv:
        cp = ChatPipeline(_openai_config(srv.base_url), material())
        result = cp("How does chaining work?", ViewPosition(101, page=6))
        writer_requests = [r for r in srv.requests if "tutor for the course" in r.body["messages"][0]["content"]]
    assert len(writer_requests) == 2 and writer_requests[0].body["tools"]
    assert result.context_switched and result.switched_to == 201
    assert result.retrieved and all(s.lecture_unit_id == 201 or s.lecture_unit_id == 101 for s in result.retrieved)
    (cite,) = result.citations
    assert cite.ref.entity_id == str(result.retrieved[0].lecture_unit_id)
    assert strip_markers(result.answer) == answer
    assert result.models["writer"].startswith("local")


# --- the reported problems, one test each ----------------------------------------------------------------

def _cited_pages(result: Any, unit: int) -> set[int]:
    return {c.ref.page for c in result.citations if c.ref.type == "L" and str(c.ref.entity_id) == str(unit)
            and c.ref.page is not None}


@pytest.mark.parametrize(("language", "page"), [("de", 10), ("en", 10), ("de", 7)])
def test_the_open_slide_answers_how_to_delete_a_node_with_two_children(language: str, page: int) -> None:
    # slide 7 "Löschen: drei Fälle" (deck index 10) is open, or slide 4 "Suchen" (deck index 7) and the
    # deletion slide has to be found; "löscht"/"Kindern" must meet "Löschen"/"Kinder"
    result = chat()("Wie löscht man einen Knoten mit zwei Kindern aus einem binären Suchbaum?",
                    ViewPosition(301, page=page), language=language)
    answer = result.writer_answer
    assert "Fall 3: z hat zwei Kinder" in answer and "Nachfolger y = Minimum des rechten Teilbaums" in answer
    assert "nichts gefunden" not in answer and "FAQ" not in answer
    assert answer.startswith("Folie 7" if language == "de" else "Slide 7")
    assert 10 in _cited_pages(result, 301)
    fall3 = next(line for line in result.answer.splitlines() if "Fall 3" in line)
    assert "[cite:L:301:10:" in fall3


def test_formulas_stay_whole_and_no_title_page_filler() -> None:
    result = chat()("What is the merge sort recurrence?", ViewPosition(101, page=1))
    answer = result.writer_answer
    assert "T(n) = 2·T(n/2) + Θ(n) if n > 1" in answer  # the recurrence that was asked for
    assert "Lecture 1 ·" not in answer and "Sorting, recurrences and the master theorem" not in answer
    master = chat()("What does the master theorem say about merge sort?", ViewPosition(101, page=11))
    assert "case 2: T(n) = Θ(n log n)" in master.writer_answer
    for text in (answer, master.writer_answer):
        assert not any(line.rstrip().endswith(("=", "–", " as", " as.", "=.")) for line in text.splitlines())


def test_pseudo_code_and_table_rows_are_not_quoted_as_sentences() -> None:
    # pdfium's text once ran numbered pseudo-code lines (and a table's rows) together into one statement
    # that the writer quoted as a bullet: "1 if p < r // at least two elements 2 q = ⌊(p + r) / 2⌋ // …"
    for question in ("Why is merge sort O(n log n)?", "Where do the comparisons happen in merge sort?"):
        answer = chat()(question, ViewPosition(101, page=5)).writer_answer
        assert "//" not in answer and "MERGE-SORT(A, p, q)" not in answer, answer
    assert "All comparisons happen in MERGE" in answer
    answer = chat()("Which of these sorting algorithms are stable?", ViewPosition(101, page=16)).writer_answer
    assert not any(line.count("Θ(") > 4 for line in answer.splitlines()), answer  # one row, not all of them


def test_the_open_slide_does_not_lead_when_it_only_shares_the_course_words() -> None:
    # the paradigm slide lists "merge sort" among its examples; the answer is on the MERGE slide
    result = chat()("Is merge sort stable?", ViewPosition(101, page=3))
    # the MERGE slide says why, the properties slide says that it is: either answers
    assert result.writer_answer.startswith(("Slide 4 (“Merging Two Sorted Subarrays”) says:",
                                            "Slide 10 (“Properties of Merge Sort”) says:")), result.writer_answer
    assert "Examples: binary search" not in result.writer_answer
    # a table row and an announcement of the lecturer share the words; the lower-bound slide answers
    result = chat()("Why can't a comparison sort be faster than n log n?", ViewPosition(101, page=2))
    assert result.writer_answer.startswith("Slide 11 (“Lower Bound for Comparison Sorting”) says:")
    assert "Every comparison sort needs Ω(n log n) comparisons in the worst case" in result.writer_answer


def test_six_questions_in_a_row_each_find_their_own_slides() -> None:
    # a conversation at the MERGE slide: the turns before add context to retrieval, they must not drown
    # the question (the master theorem question was answered from the MERGE slide, "How deep is the
    # recursion tree?" not at all)
    questions = ["How does the merge procedure combine two sorted halves?", "What does the master theorem say?",
                 "Why is merge sort in Theta of n log n?", "What happens in the divide step?",
                 "How deep is the recursion tree?", "What is the base case of merge sort?"]
    history: list[tuple[str, str]] = []
    leads: list[str] = []
    for question in questions:
        result = chat()(question, ViewPosition(101, page=6), history=history)
        history.append((question, strip_markers(result.answer)))
        leads.append(result.writer_answer.split("\n")[0])
    assert leads[1] == "Slide 8 (“The Master Theorem”) says:"
    assert leads[4] == "Slide 7 (“Solving the Recurrence with a Recursion Tree”) says:"
    # the base case: merge sort's own (slide 2) or the paradigm's statement of it (slide 1)
    assert leads[5] in ("Slide 2 (“Merge Sort: The Idea”) says:", "Slide 1 (“The Divide-and-Conquer Paradigm”) says:")
    assert not any("could not find" in lead for lead in leads), leads


def test_the_video_view_explains_what_the_lecturer_says_at_that_second() -> None:
    result = chat()("What is the lecturer explaining right now?", ViewPosition(101, second=180.0))
    assert "could not find" not in result.writer_answer
    assert "A single element costs constant time." in result.writer_answer
    spans = [(c.ref.start, c.ref.end) for c in result.citations if c.ref.start is not None]
    assert any(s is not None and e is not None and s <= 180 < e for s, e in spans)


def test_the_video_being_watched_answers_before_the_slides_when_it_says_it() -> None:
    # spoken sentences count for less than a slide when ranking the material, not the video that is open
    result = chat()("What does the recursion tree show about the cost?", ViewPosition(101, second=190.0))
    assert result.writer_answer.startswith("In the video at 3:00"), result.writer_answer
    assert "we replace theta of n by c times n and draw the recursion tree" in result.writer_answer
    assert any(c.ref.start is not None and c.ref.start <= 190 for c in result.citations)


def test_a_sentence_that_names_a_slide_is_cited_and_its_own_source_leads() -> None:
    pages = [PageChunk(f"p{i}", 5, i, text, display_page_number=str(i)) for i, text in (
        (17, "Tables\nTable 1: Largest cities in the world (source: Wikipedia)\nCity Population\n17"),
        (18, "Blocks\nThree different block environments are pre-defined and may be styled with an optional\n"
             "background color.\nDefault\nBlock content.\n18"),
        (19, "Math\ne = lim n→∞ (1 + 1/n)^n\n19"))]
    answer = "Slide 18 adds: three different block environments are pre-defined and may be styled with a color."
    result = cite(answer, Sources(lecture=tuple(pages)))
    (first, *_) = parse(result.answer, "client")
    assert first.page == "18"
    assert strip_markers(result.answer) == answer


@pytest.mark.parametrize("lead", [PHRASES[lang]["says"].format(S=PHRASES[lang]["slide_t"].format(t="Cython"))
                                  for lang in PHRASES])
def test_a_line_that_announces_an_unnumbered_slide_is_not_cited(lead: str) -> None:
    # a deck may title several slides alike; the lead line named the quoted slide by its title and was
    # cited with another slide of that title (the one whose text said "next slide")
    pages = [PageChunk("p6", 9001, 6, "Cython\n• The “context manager” with nogil: releases the GIL for the "
                       "dynamic extent of the with block.\n• Almost always, np.array is a good choice."),
             PageChunk("p10", 9001, 10, "Cython\n• Uses OpenMP (Open Multi-Processing): explanation on next slide."
                       "\n• Needs compiler and linker options to enable OpenMP.")]
    bullet = "- The “context manager” with nogil: releases the GIL for the dynamic extent of the with block."
    result = cite(f"{lead}\n\n{bullet}", Sources(lecture=tuple(pages)))
    assert "[cite:" not in result.answer.split("\n")[0]
    assert [(m.entity_id, m.page) for m in parse(result.answer, "client")] == [("9001", "6")]
    assert strip_markers(result.answer) == f"{lead}\n\n{bullet}"


def test_keywords_are_labels_and_summaries_whole_sentences_in_a_real_answer() -> None:
    result = chat()("Wie löscht man einen Knoten mit zwei Kindern aus einem binären Suchbaum?",
                    ViewPosition(301, page=10), language="de")
    used: list[str] = []
    for c in result.citations:
        text = c.source.content if isinstance(c.source, FaqSource) else c.source.text
        assert keyword_problems(c.keyword, text, used) == [], c.keyword
        assert summary_problems(c.summary, text) == [], c.summary
        used.append(c.keyword)
    assert len({c.keyword for c in result.citations}) == len(result.citations)


def test_a_german_date_keeps_its_marker_at_the_end_of_the_sentence() -> None:
    faq = FaqSource(30, "Wann ist die Klausur?", "Die Klausur findet am 14. Februar im Audimax statt.")
    answer = "Die Klausur findet am 14. Februar im Audimax statt. Bringen Sie einen Ausweis mit."
    result = cite(answer, Sources(faqs=(faq,)), language="de")
    assert "14.[cite" not in result.answer
    assert result.answer.startswith("Die Klausur findet am 14. Februar im Audimax statt.[cite:F:30:")


def test_a_pasted_answer_is_cited_from_its_own_sentences() -> None:
    pasted = ("Merge sort splits the array at the midpoint and sorts both halves recursively. "
              "Merging the two sorted halves takes linear time. "
              "The recurrence T(n) = 2T(n/2) + Θ(n) solves to Θ(n log n). "
              "Because ties are taken from the left half, merge sort is stable.")
    result = chat()("Is my summary right?", ViewPosition(101, page=1), pasted_answer=pasted)
    assert strip_markers(result.answer) == pasted
    checkable = re.findall(r"[^.]+\.", pasted)
    assert len(checkable) == 4
    assert all(f"{s.strip()}[cite:" in result.answer for s in checkable), result.answer


def test_a_follow_up_finds_the_slide_of_the_conversation() -> None:
    first = chat()("What does the master theorem say?", ViewPosition(101, page=1))
    follow = chat()("And the second case?", ViewPosition(101, page=1),
                    history=[("What does the master theorem say?", first.answer)])
    assert "Case 2: f(n) = Θ(n^(log_b a)) ⇒ T(n) = Θ(n^(log_b a) · log n)" in follow.writer_answer
    assert 11 in _cited_pages(follow, 101)


def test_the_writer_sees_the_conversation_without_its_markers(monkeypatch: pytest.MonkeyPatch) -> None:
    import citation_core.chat.writers as writers

    seen: list[Any] = []

    def spy(inputs: Any) -> str:
        seen.append(inputs)
        return write_answer(inputs)

    monkeypatch.setattr(writers, "write_answer", spy)
    history = [("What does the master theorem say?", "It compares f(n) with n^(log_b a).[cite:L:101:11:::M:S]")]
    chat()("And the second case?", ViewPosition(101, page=1), history=history)
    assert seen[0]["history"] == [["What does the master theorem say?", "It compares f(n) with n^(log_b a)."]]
    turn = WriterTurn("And the second case?", current_view(material(), ViewPosition(101, page=1)),
                      ToolState(material()), "SYSTEM", "en", Trace("chat"), (("Q1", "A1"),))
    assert [(m.role, m.content) for m in turn.messages()] == [
        ("system", "SYSTEM"), ("user", "Q1"), ("assistant", "A1"), ("user", "And the second case?")]


@pytest.mark.parametrize("language", sorted(PHRASES))
def test_the_writer_speaks_the_chosen_language_around_the_material(language: str) -> None:
    result = chat()("What is the load factor?", ViewPosition(201, page=7), language=language)
    assert result.writer_answer.startswith(PHRASES[language]["slide_n"].format(n="4"))
    assert set(PHRASES[language]) == set(PHRASES["en"])
    assert len(PHRASES) == 12


def test_the_language_line_formats_citations_and_never_asks_for_a_translation() -> None:
    line = choose_language("de").line
    assert "German (Deutsch)" in line and "never translate" in line
    assert "Write every word of your output" not in line
    assert "copy the answer exactly" in choose_language("fr").line_for("placement")


def test_the_draft_is_handed_over_before_the_citation_stage_and_equals_the_cited_text() -> None:
    events: list[str] = []
    drafts: list[str] = []

    def on_draft(text: str) -> None:
        drafts.append(text)
        events.append("draft")

    result = chat()(
        "How does the merge procedure combine two sorted halves?", ViewPosition(101, page=6),
        progress=lambda ev: events.append(f"{ev.pass_name}:{ev.phase}"), on_draft=on_draft)
    assert drafts == [result.writer_answer] and strip_markers(result.answer) == drafts[0]
    first_citation_step = next(i for i, e in enumerate(events) if e.startswith(("faq:", "lecture:")))
    assert events.index("draft") < first_citation_step, events
