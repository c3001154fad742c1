"""Inline citing: handles written by the writer while it streams, expanded into final markers."""

from __future__ import annotations

import threading

from citation_core.contract import FinalMarker, SourceRef
from citation_core.llm.base import LlmRequest
from citation_core.pipeline.model_calls import RoleModel
from citation_core.pipeline.prompts import Prompts
from citation_core.pipeline.registry import CitationRegistry, UncitedStream
from citation_core.sources import FaqSource, PageChunk, TranscriptSegment
from citation_core.testing import ScriptedModel

MERGE = PageChunk("p6", 101, 6, "Merging joins two branches; git creates a merge commit with two parents.")
REBASE = PageChunk("p7", 101, 7, "Rebasing replays commits on top of another branch.")
VIDEO = TranscriptSegment("t1", 101, 75.4, 92.9, "A fast-forward merge just moves the branch pointer.")
FAQ = FaqSource(3, "Can I undo a merge?", "Yes: git merge --abort while the merge is still running.")


def _summary(request: LlmRequest) -> str:
    return "Summary of " + str(request.inputs["paragraph"]).split()[0].rstrip(";:")


def _registry(model: ScriptedModel, deadline: float | None = 30.0) -> CitationRegistry:
    return CitationRegistry(RoleModel.of(model), Prompts.default(), language="en", deadline_seconds=deadline)


def test_complete_handles_become_final_markers_and_the_text_around_them_stays() -> None:
    model = ScriptedModel({"keyword": ["Merge commit", "Fast-forward", "Undo merge"], "summary": _summary})
    with _registry(model) as reg:
        merge, video, faq = reg.register(MERGE), reg.register(VIDEO), reg.register(FAQ)
        text = (f"A merge has two parents.[cite:{merge}] A fast-forward only moves the pointer.[cite:{video}]\n\n"
                f"- `git merge --abort` undoes it[cite:{faq}]")
        out = reg.expand(text, final=True)
    m1 = FinalMarker(SourceRef.of_page(101, 6), "Merge commit", "Summary of Merging").format()
    m2 = FinalMarker(SourceRef.of_span(101, 75.4, 92.9), "Fast-forward", "Summary of A").format()
    m3 = FinalMarker(SourceRef.of_faq(3), "Undo merge", "Summary of Can").format()
    assert out == (f"A merge has two parents.{m1} A fast-forward only moves the pointer.{m2}\n\n"
                   f"- `git merge --abort` undoes it{m3}")
    assert [c.keyword for c in reg.citations()] == ["Merge commit", "Fast-forward", "Undo merge"]
    assert not reg.trace.failures


def test_the_same_source_registered_twice_shares_one_handle() -> None:
    model = ScriptedModel({"keyword": ["Merge commit"], "summary": _summary})
    with _registry(model) as reg:
        first = reg.register(MERGE)
        again = reg.register(PageChunk("p6-again", 101, 6, MERGE.text))
        other = reg.register(REBASE)
        assert first == again == 1 and other == 2
        out = reg.expand("One.[cite:1] Two.[cite:1]", final=True)
    marker = FinalMarker(SourceRef.of_page(101, 6), "Merge commit", "Summary of Merging").format()
    assert out == f"One.{marker} Two.{marker}"
    assert model.tasks().count("keyword") == 1 and model.tasks().count("summary") == 1
    assert len(reg.citations()) == 1


def test_an_invented_handle_is_dropped_and_counted() -> None:
    model = ScriptedModel({"keyword": ["Merge commit"], "summary": _summary})
    with _registry(model) as reg:
        reg.register(MERGE)
        out = reg.expand("Merging.[cite:1] Rebasing.[cite:9] Again.[cite:9]", final=True)
    marker = FinalMarker(SourceRef.of_page(101, 6), "Merge commit", "Summary of Merging").format()
    assert out == f"Merging.{marker} Rebasing. Again."
    assert reg.invented() == {9: 2}
    assert [(f.kind, f.message) for f in reg.trace.failures] == [("validation", "invented handle [cite:9] (2x)")]


def test_a_partial_render_hides_half_typed_handles_and_running_enrichment() -> None:
    release = threading.Event()

    def slow_summary(request: LlmRequest) -> str:
        release.wait(30)
        return "Two parents."

    model = ScriptedModel({"keyword": ["Merge commit"], "summary": slow_summary})
    with _registry(model) as reg:
        reg.register(MERGE)
        for tail in ("[", "[c", "[ci", "[cit", "[cite", "[cite:", "[cite:1"):
            assert reg.expand("A merge has two parents." + tail, final=False) == "A merge has two parents."
        assert reg.expand("Merging.[cite:1] More", final=False) == "Merging. More"  # summary still running
        assert "[cite" not in reg.expand("Merging.[cite:1] More [cite:", final=False)
        release.set()
        out = reg.expand("Merging.[cite:1] More", final=True)
        assert reg.expand("Merging.[cite:1] More", final=False) == out
    marker = FinalMarker(SourceRef.of_page(101, 6), "Merge commit", "Two parents.").format()
    assert out == f"Merging.{marker} More"


def test_keywords_are_made_in_order_of_first_appearance_and_stay_unique() -> None:
    model = ScriptedModel({"keyword": "Branches", "summary": _summary})
    with _registry(model) as reg:
        merge, rebase = reg.register(MERGE), reg.register(REBASE)
        reg.expand(f"Rebase first.[cite:{rebase}] Then merge", final=False)
        out = reg.expand(f"Rebase first.[cite:{rebase}] Then merge.[cite:{merge}]", final=True)
    keyword_calls = [r for r in model.requests if r.task == "keyword"]
    assert [r.inputs["used_keywords"] for r in keyword_calls] == [[], ["Branches"]]
    assert {c.seq: c.keyword for c in reg.citations()} == {rebase: "Branches", merge: "Branches 2"}
    assert ":Branches 2:" in out.split("Then merge.")[1]


def test_the_final_render_does_not_wait_past_the_deadline_for_a_hanging_keyword() -> None:
    release = threading.Event()

    def hanging(request: LlmRequest) -> str:
        release.wait(60)
        return "Too late"

    model = ScriptedModel({"keyword": hanging, "summary": _summary})
    try:
        with _registry(model, deadline=0.5) as reg:
            reg.register(MERGE)
            out = reg.expand("Merging.[cite:1]", final=True)
    finally:
        release.set()
    assert out == "Merging." + FinalMarker(SourceRef.of_page(101, 6), "", "Summary of Merging").format()
    assert any(f.kind == "enrichment_or_rewrite" and f.seq == 1 for f in reg.trace.failures)


def test_a_handle_cut_short_by_the_end_of_a_stream_is_left_out_of_the_final_answer() -> None:
    model = ScriptedModel({"keyword": ["Merge commit"], "summary": _summary})
    with _registry(model) as reg:
        reg.register(MERGE)
        out = reg.expand("Merging.[cite:1] Then[cite:", final=True)
    marker = FinalMarker(SourceRef.of_page(101, 6), "Merge commit", "Summary of Merging").format()
    assert out == f"Merging.{marker} Then"


def test_the_readable_text_piece_by_piece_is_the_text_without_handles() -> None:
    from citation_core.pipeline.registry import UncitedStream, uncited

    for text in ("Merging.[cite:1] Rebasing.[cite:12][cite:3] Done", "See [the slide](x) and [c] or [cite] [cite:a]",
                 "It ends in [", "Cut short[cite:4", "[cite:[cite:1]2] odd"):
        stream = UncitedStream()
        pieces = [stream.feed(ch) for ch in text]
        assert "".join(pieces) + stream.end() == uncited(text)
        assert "[cite:" not in "".join(pieces[:text.index("Done")] if "Done" in text else "")


# A writer's answer with handles as code text (inline code, a fenced block) beside real ones.
CODE_ANSWER = ("Write `[cite:1]` behind a sentence.[cite:1] Longer runs: ``a ` [cite:2] b``.\n\n"
               "```python\nprompt = 'Merging.[cite:2]'\n```\n"
               "A fence can close later.[cite:2]\n\n"
               "~~~\n[cite:1]\n~~~\n"
               "- item `[cite:1]\n- next` stays text[cite:1]\n\n"
               "An open `[cite:2] and no close.\n\nEnd.[cite:2]")


def _subsequence(shorter: str, longer: str) -> bool:
    """Whether ``longer`` holds every character of ``shorter`` in order (text only added, never taken away)."""
    rest = iter(longer)
    return all(ch in rest for ch in shorter)


def test_handles_written_as_code_stay_code_text_and_the_others_become_markers() -> None:
    from citation_core.pipeline.registry import uncited

    model = ScriptedModel({"keyword": ["Merge commit", "Rebase"], "summary": _summary})
    with _registry(model) as reg:
        merge, rebase = reg.register(MERGE), reg.register(REBASE)
        assert (merge, rebase) == (1, 2)
        out = reg.expand(CODE_ANSWER, final=True)
        cited = [c.ref for c in reg.citations()]
    m1 = FinalMarker(SourceRef.of_page(101, 6), "Merge commit", "Summary of Merging").format()
    m2 = FinalMarker(SourceRef.of_page(101, 7), "Rebase", "Summary of Rebasing").format()
    assert out == ("Write `[cite:1]` behind a sentence." + m1 + " Longer runs: ``a ` [cite:2] b``.\n\n"
                   "```python\nprompt = 'Merging.[cite:2]'\n```\n"
                   "A fence can close later." + m2 + "\n\n"
                   "~~~\n[cite:1]\n~~~\n"
                   "- item `" + m1 + "\n- next` stays text" + m1 + "\n\n"
                   "An open `" + m2 + " and no close.\n\nEnd." + m2)
    assert uncited(CODE_ANSWER) == ("Write `[cite:1]` behind a sentence. Longer runs: ``a ` [cite:2] b``.\n\n"
                                    "```python\nprompt = 'Merging.[cite:2]'\n```\n"
                                    "A fence can close later.\n\n"
                                    "~~~\n[cite:1]\n~~~\n"
                                    "- item `\n- next` stays text\n\n"
                                    "An open ` and no close.\n\nEnd.")
    assert cited == [SourceRef.of_page(101, 6), SourceRef.of_page(101, 7)]
    assert not reg.trace.failures


def test_code_handles_stay_text_at_every_chunk_boundary_of_a_stream() -> None:
    """A fence opens in one piece and closes pieces later, a backtick arrives alone: the readable stream
    and the partial renders read the code as the final answer does, wherever the pieces are cut."""
    from citation_core.pipeline.registry import UncitedStream, uncited

    model = ScriptedModel({"keyword": ["Merge commit", "Rebase"], "summary": _summary})
    with _registry(model) as reg:
        reg.register(MERGE), reg.register(REBASE)
        final = reg.expand(CODE_ANSWER, final=True)  # enrichment done: partial renders show every chip
        readable = uncited(CODE_ANSWER)
        n = len(CODE_ANSWER)
        cuts: list[tuple[int, ...]] = [tuple(range(1, n))]  # one character at a time
        cuts += [(i,) for i in range(1, n)]  # two pieces, cut anywhere
        cuts += [(i, i + 1) for i in range(1, n - 1)]  # a character alone between two pieces
        for at in cuts:
            bounds = (0, *at, n)
            pieces = [CODE_ANSWER[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
            stream = UncitedStream()
            said = [stream.feed(p) for p in pieces]
            assert "".join(said) + stream.end() == readable, at
        shown = ""
        for end in range(1, n + 1):  # the partial render after every character
            partial = reg.expand(CODE_ANSWER[:end], final=False)
            assert _subsequence(shown, partial), (end, shown, partial)  # nothing shown is taken back
            assert _subsequence(partial, final), (end, partial)
            shown = partial
        assert reg.expand(CODE_ANSWER, final=False) == final


def test_the_readable_stream_says_code_at_once_and_holds_only_a_handle_whose_code_span_is_open() -> None:
    from citation_core.pipeline.registry import UncitedStream

    stream = UncitedStream()
    assert stream.feed("Intro.[cite:1]\n\n```\nx = '[cite:2]'\n") == "Intro.\n\n```\nx = '[cite:2]'\n"
    assert stream.feed("```\nUse `") == "```\nUse `"  # a backtick alone: its text comes at once
    assert stream.feed("[cite:1]") == ""  # code or a handle: decided by what follows
    assert stream.feed("` here") == "[cite:1]` here"
    assert stream.feed(", a `[cite:1]") == ", a `"
    assert stream.feed("\n\nNext") == "\n\nNext"  # the span never closed: it was a handle, left out
    assert stream.end() == ""


def test_the_final_render_says_how_many_chips_it_is_still_finishing() -> None:
    import queue

    from citation_core.pipeline.trace import ProgressEvent, Trace

    events: queue.Queue[ProgressEvent] = queue.Queue()
    held = {"Merging": threading.Event(), "Rebasing": threading.Event()}

    def summary(request: LlmRequest) -> str:
        first = str(request.inputs["paragraph"]).split()[0]
        held[first].wait(30)
        return "Summary of " + first

    model = ScriptedModel({"keyword": ["Merge commit", "Rebase"], "summary": summary})
    done: list[str] = []
    with CitationRegistry(RoleModel.of(model), Prompts.default(), language="en", deadline_seconds=30.0,
                          trace=Trace("inline", events.put)) as reg:
        reg.register(MERGE), reg.register(REBASE)
        final = threading.Thread(target=lambda: done.append(reg.expand("A.[cite:1] B.[cite:2]", final=True)))
        final.start()
        try:
            first = events.get(timeout=30)
            assert (first.pass_name, first.phase, first.status, first.detail) == ("inline", "finish", "start", "2")
            held["Merging"].set()
            assert events.get(timeout=30).detail == "1"
            held["Rebasing"].set()
            last = events.get(timeout=30)
            assert (last.phase, last.status) == ("finish", "done")
        finally:
            for hold in held.values():
                hold.set()
            final.join(30)
    assert done and "Summary of Rebasing" in done[0]
    assert events.empty()


GIT = PageChunk("p9", 101, 9, "Git basics\n• A branch is a movable pointer to a commit.\n"
                "• A merge commit has two parents: the tips of both branches.\n"
                "• Rebasing replays commits on top of another branch.")


def test_a_summary_is_about_the_passage_the_sentence_before_the_handle_says() -> None:
    """As in placement mode, a chip's summary is made from the passage of its source that the sentence it
    first stands behind quotes or says (the summary prompt's evidence), not from the whole slide; the
    sentence is read from the stream as it comes, the handle split across pieces."""
    model = ScriptedModel({"keyword": ["Merge commit"], "summary": _summary})
    with _registry(model) as reg:
        handle = reg.register(GIT)
        reading = UncitedStream(on_handle=reg.begin)
        text = f"Branches are cheap. When two branches meet, the merge commit has two parents.[cite:{handle}] Done."
        for k in range(0, len(text), 7):
            reading.feed(text[k:k + 7])
        reading.end()
        reg.expand(text, final=True)
    (summary,) = [r for r in model.requests if r.task == "summary"]
    assert "two parents" in summary.inputs["evidence"] and "Rebasing" not in summary.inputs["evidence"]
    assert summary.inputs["evidence"] in summary.messages[0].content  # the prompt's {Evidence}


def test_a_handle_read_only_at_the_final_render_is_summarised_from_its_whole_source() -> None:
    model = ScriptedModel({"keyword": ["Merge commit"], "summary": _summary})
    with _registry(model) as reg:
        handle = reg.register(GIT)
        reg.expand(f"The merge commit has two parents.[cite:{handle}]", final=True)
    (summary,) = [r for r in model.requests if r.task == "summary"]
    assert "evidence" not in summary.inputs
