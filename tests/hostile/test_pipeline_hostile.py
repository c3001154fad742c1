"""The citation stage under hostile model replies: the answer text never changes, every correction is
counted by kind, no marker lands inside a word, odd reply shapes and slow servers are survived."""

from __future__ import annotations

import random
import string
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citation_core import CitationPipeline, ModelConfig, Sources
from citation_core.contract import parse, strip_markers
from citation_core.pipeline.placement import validate_placement
from citation_core.testing import ChatRequest, LocalChatServer, Reply, ScriptedModel, cooperative_handler

from ..fakes import ANSWER, EXAM, MERGE, MERGE_STEP, TREE

ALLOWED = {"[cite:L:12:3::!1]": 1, "[cite:L:12:4::!2]": 2, "[cite:L:12::75:92!3]": 3}
S1, S2, S3 = (ANSWER.split(". ")[0] + ".", ANSWER.split(". ")[1] + ".", ANSWER.split(". ")[2])


def cite_with(placement_reply: str, answer: str = ANSWER) -> Any:
    model = ScriptedModel({"placement": placement_reply, "keyword": "Merge", "summary": "A summary."})
    return CitationPipeline(model).run_pass(answer, [MERGE, MERGE_STEP, TREE])


def corrections(result: Any) -> dict[str, int]:
    validate = next(p for p in result.trace.phases if p.name == "validate")
    return dict(validate.outputs["corrections"])


# --- every kind of lost or misplaced citation is counted --------------------------------------------------

@pytest.mark.parametrize(("reply", "kind"), [
    (f"{S1}[cite:L:12:3:::Merge:Splits the list.] {S2} {S3}", "final-form markers ignored"),
    (f"{S1}［cite:L:12:3::!1］ {S2} {S3}", "malformed markers ignored"),
    (f"{S1}[ cite:L:12:3::!1] {S2} {S3}", "malformed markers ignored"),
    (f"{S1}[cite:l:12:3::!1] {S2} {S3}", "malformed markers ignored"),
    (f"{S1}[cite:L:99:3::!1] {S2} {S3}", "unknown ids removed"),
    ("", "empty reply"),
])
def test_each_kind_of_lost_citation_is_counted(reply: str, kind: str) -> None:
    result = cite_with(reply)
    assert strip_markers(result.answer) == ANSWER
    assert corrections(result).get(kind) == 1
    failure = next(f for f in result.trace.failures if f.kind == "validation")
    assert kind in failure.message


def test_a_marker_inside_a_word_moves_to_the_end_of_that_word() -> None:
    reply = ANSWER.replace("Merge sort", "Me[cite:L:12:3::!1]rge sort", 1)
    result = cite_with(reply)
    assert result.answer.startswith("Merge[cite:L:12:3:::")
    assert corrections(result) == {"markers moved out of words": 1}


def test_a_translated_reply_keeps_no_citation_on_the_wrong_sentence() -> None:
    reply = ("Mergesort teilt die Liste in zwei Hälften und sortiert jede Hälfte rekursiv.[cite:L:12:3::!1] "
             "Der Mischschritt verbindet zwei sortierte Listen in linearer Zeit.[cite:L:12:4::!2]")
    result = cite_with(reply)
    assert result.answer == ANSWER and result.used_seqs == ()
    assert corrections(result) == {"markers dropped (their text no longer matched)": 2}


def test_a_reordered_reply_keeps_only_markers_whose_sentence_still_matches() -> None:
    reply = f"{S2}[cite:L:12:4::!2] {S1}[cite:L:12:3::!1] {S3}[cite:L:12::75:92!3]"
    result = cite_with(reply)
    assert strip_markers(result.answer) == ANSWER
    for m in parse(result.answer, "client"):
        sentence = result.answer[: m.span[0]]
        before = strip_markers(sentence).rstrip().rsplit(". ", 1)[-1]
        expected = {"3": S1, "4": S2, "": S3}[m.page or ""]
        assert expected.rstrip(".").endswith(before.rstrip(".")[-20:])


def test_a_reply_far_longer_than_the_answer_is_not_aligned() -> None:
    result = cite_with(ANSWER + "[cite:L:12:3::!1]" + " padding" * 20_000)
    assert result.answer == ANSWER
    assert corrections(result)["reply far longer than the answer"] == 1


def test_one_changed_word_in_a_long_answer_keeps_the_other_citations() -> None:
    rng = random.Random(7)
    words = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 9))) for _ in range(600)]
    sentences = [" ".join(words[rng.randrange(600)] for _ in range(12)).capitalize() + "." for _ in range(300)]
    answer = " ".join(sentences)  # about 25 KB
    ids = list(ALLOWED)
    reply = " ".join(f"{s}{ids[i % 3]}" for i, s in enumerate(sentences))
    reply = reply.replace(sentences[150].split()[3], "CHANGED", 1)
    placement = validate_placement(answer, reply, ALLOWED)
    assert len(placement.insertions) >= 298 and placement.text_changed
    offsets = [ins.offset for ins in placement.insertions]
    ends = {answer.index(s) + len(s) for s in sentences}
    assert set(offsets) <= ends


# --- random replies: the answer never changes, no invented id survives, no marker splits a word -----------

PIECES = [*ALLOWED, "[cite:L:77:1::!9]", "[cite:L:12:3:::K:S]", "［cite:L:12:3::!1］", " ", ".", "Merge", "sort",
          "\n", "[", "]", "cite:", "halves", "ü", "```", "`"]


def random_reply(rng: random.Random) -> str:
    reply = ANSWER
    for _ in range(rng.randint(0, 12)):
        at = rng.randint(0, len(reply))
        reply = reply[:at] + rng.choice(PIECES) + reply[at:]
    if rng.random() < 0.2:
        reply = reply[: rng.randint(0, len(reply))]
    return reply


@settings(max_examples=10_000, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_any_reply_leaves_the_answer_unchanged(rng: random.Random) -> None:
    placement = validate_placement(ANSWER, random_reply(rng), ALLOWED)
    assert set(placement.used_seqs) <= {1, 2, 3}
    for ins in placement.insertions:
        assert 0 <= ins.offset <= len(ANSWER)
        assert not (0 < ins.offset < len(ANSWER) and ANSWER[ins.offset - 1].isalnum()
                    and ANSWER[ins.offset].isalnum())


# --- replies of every shape over real HTTP ----------------------------------------------------------------

def shaped(content: object) -> Any:
    cooperative = cooperative_handler()

    def handler(request: ChatRequest) -> Reply:
        if request.task == "placement":
            return Reply(content)  # type: ignore[arg-type]  # the point: not a string
        return cooperative(request)

    return handler


def http_model(base_url: str, timeout: float = 10.0) -> ModelConfig:
    return ModelConfig(id="local", type="openai_chat", model="local-model", base_url=base_url, timeout=timeout,
                       max_retries=0)


@pytest.mark.parametrize("content", [12, {"text": "x"}, [{"type": "image_url"}], True])
def test_a_reply_content_that_is_not_text_fails_placement_and_keeps_the_answer(content: object) -> None:
    answer = "The final exam is open book and printed notes are allowed. " + ANSWER
    with LocalChatServer(shaped(content)) as srv:
        result = CitationPipeline(http_model(srv.base_url))(answer, Sources((MERGE,), (EXAM,)))
    assert result.answer == answer
    assert {f.kind for f in result.failures} == {"placement"}
    assert all("not text" in f.message for f in result.failures)


def test_a_reply_content_of_text_parts_is_read_as_text() -> None:
    parts = [{"type": "text", "text": S1 + "[cite:L:12:3::!1]"}, {"type": "text", "text": " " + S2 + " " + S3}]
    with LocalChatServer(shaped(parts)) as srv:
        result = CitationPipeline(http_model(srv.base_url)).run_pass(ANSWER, [MERGE, MERGE_STEP, TREE])
    assert [m.page for m in parse(result.answer, "client")] == ["3"]
    assert strip_markers(result.answer) == ANSWER


# --- a hanging server: the deadline cuts the stage, the answer is kept ------------------------------------

@pytest.mark.timeout(30)
def test_a_hanging_server_is_cut_by_the_deadline_and_reported() -> None:
    answer = "The final exam is open book and printed notes are allowed. " + ANSWER
    with LocalChatServer(cooperative_handler(delay={"summary": 60.0})) as srv:
        pipe = CitationPipeline(http_model(srv.base_url, timeout=60.0), deadline_seconds=1.5)
        result = pipe(answer, Sources((MERGE, MERGE_STEP, TREE), (EXAM,)))
    assert strip_markers(result.answer) == answer
    kinds = {f.kind for f in result.failures}
    assert "summary" in kinds or "placement" in kinds
    assert any("timed out" in f.message or "deadline" in f.message for f in result.failures)
    assert result.traces["faq"].info["deadline_seconds"] == 1.5
