"""Property: whatever the placement model returns, the final answer minus markers is the answer."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citation_core.contract import strip_markers
from citation_core.llm.base import LlmRequest
from citation_core.pipeline.placement import render_insertions, validate_placement

from .fakes import MERGE, MERGE_STEP, TREE, FakeFactory, pipeline

ALLOWED = {"[cite:L:12:3::!1]": 1, "[cite:L:12:4::!2]": 2, "[cite:L:12::75:92!3]": 3}
INVENTED = ["[cite:L:99:1::!9]", "[cite:L:12:3::!2]", "[cite:F:1:::!1]", "[cite:L:12:3:!1]", "[cite:"]
# answers without marker syntax of their own (a "[cite:" in the answer is text, checked separately)
answers = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=200).filter(
    lambda t: "[cite:" not in t)


@st.composite
def model_outputs(draw: st.DrawFn, answer: str) -> str:
    """The answer with ids (real, altered, invented, broken) inserted and some text edited."""
    text = answer
    for _ in range(draw(st.integers(0, 6))):
        pos = draw(st.integers(0, len(text)))
        marker = draw(st.sampled_from([*ALLOWED, *INVENTED]))
        text = text[:pos] + marker + text[pos:]
    if draw(st.booleans()) and text:
        a = draw(st.integers(0, len(text)))
        b = draw(st.integers(a, min(len(text), a + 10)))
        text = text[:a] + draw(st.text(max_size=8)) + text[b:]
    if draw(st.booleans()):
        text = draw(st.sampled_from(["Sure! Here it is:\n\n", "```\n", ""])) + text
    return text


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), answer=answers)
def test_validated_placement_never_changes_the_answer(data: st.DataObject, answer: str) -> None:
    output = data.draw(model_outputs(answer))
    placement = validate_placement(answer, output, ALLOWED)
    final = render_insertions(answer, placement.insertions, {s: f"[cite:L:12:{s}:::k:summary {s}]" for s in (1, 2, 3)})
    assert strip_markers(final) == answer
    assert set(placement.used_seqs) <= {1, 2, 3}
    assert all(0 <= ins.offset <= len(answer) for ins in placement.insertions)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), answer=answers)
def test_pipeline_with_any_placement_output_keeps_the_answer(data: st.DataObject, answer: str) -> None:
    output = data.draw(model_outputs(answer))

    def respond(req: LlmRequest) -> str | None:
        return output if req.task == "placement" else None

    result = pipeline(FakeFactory(respond))(answer, [MERGE, MERGE_STEP, TREE])
    assert strip_markers(result.answer) == answer


def test_marker_text_inside_the_answer_is_kept_as_text() -> None:
    answer = "Write [cite:L:12:3::!1] in your notes. Merge sort divides the list into two halves."
    placement = validate_placement(answer, answer + "[cite:L:12:4::!2]", ALLOWED)
    final = render_insertions(answer, placement.insertions, {2: "<2>", 1: "<1>"})
    assert final == answer + "<2>"
