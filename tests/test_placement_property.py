"""Property: whatever the placement model returns, the final answer minus markers is the answer."""

from __future__ import annotations

import json
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citation_core.contract import strip_markers
from citation_core.llm.base import LlmRequest
from citation_core.pipeline.placement import protected_spans, render_insertions, validate_placement
from citation_core.pipeline.places import PlacesReplyError, number_units, placement, read_reply

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


# --- places mode: any JSON reply ---------------------------------------------------------------------------

json_values = st.recursive(st.none() | st.booleans() | st.integers(-3, 12) | st.floats() | st.text(max_size=5),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner,
                                                                                        max_size=3), max_leaves=8)
places_answers = st.lists(st.sampled_from([
    "Merge sort splits the list.", "It merges them", "- a list item", "1. a numbered item", "```\ncode x = 1\n```",
    "`inline code` is here.", "naïve wörds!", "[cite:L:12:3:::Kw:Sum]", "\n\n", "\n", " ", "Done?"]),
    max_size=12).map("".join)


@settings(max_examples=400, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), answer=places_answers)
def test_any_places_reply_keeps_the_answer_and_only_given_ids_outside_code_and_words(
        data: st.DataObject, answer: str) -> None:
    units = number_units(answer)
    entries = data.draw(st.dictionaries(st.sampled_from([str(n) for n in range(-1, len(units) + 3)] + ["x", "01"]),
                                        st.lists(st.integers(0, 5), max_size=4) | json_values, max_size=6))
    reply = json.dumps(entries)
    if data.draw(st.booleans()):
        reply = data.draw(st.sampled_from(["```json\n{}\n```", "```\n{}\n```", "Sure: {}", "{}"])).replace("{}", reply)
    try:
        read = read_reply(reply, len(units), {1, 2, 3})
    except PlacesReplyError:
        return  # a reply that cannot be read: placement fails, the answer is kept (tested in test_places.py)
    found = placement(answer, units, read)
    final = render_insertions(answer, found.insertions, {s: f"\ue000{s}\ue001" for s in (1, 2, 3)})
    assert re.sub("\ue000[123]\ue001", "", final) == answer  # the answer's own markers stay as they were
    assert set(found.used_seqs) <= {1, 2, 3}
    spans = protected_spans(answer)
    for ins in found.insertions:
        assert not any(a < ins.offset < b for a, b in spans)
        assert not (0 < ins.offset < len(answer) and answer[ins.offset - 1].isalnum() and answer[ins.offset].isalnum())
