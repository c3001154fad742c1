"""Markers never break a fenced code block: in every placement mode the code renders exactly as written, and a
citation of the code stands behind the sentence that introduces it."""

from __future__ import annotations

import json
import re

import pytest

from citation_core import cite
from citation_core.contract import parse, strip_markers
from citation_core.llm.base import LlmRequest
from citation_core.lms.render import render_markdown
from citation_core.pipeline import CitationPipeline
from citation_core.sources import PageChunk, Sources
from citation_core.testing import ScriptedModel

GIT = PageChunk("g1", 12, 7, "Conflicts\nGit marks a conflict with <<<<<<< HEAD and ======= in the file.")
MARKER = "[cite:L:12:7::!1]"  # the id the placement model is given for GIT
INTRO = "Git marks the conflict in the file:"

# a block of each kind of fence; the four-backtick one shows a fence of three inside its code
FENCED = {
    "backticks": "```\n<<<<<<< HEAD\nmerge sort\n=======\n```",
    "tildes": "~~~\n<<<<<<< HEAD\nmerge sort\n=======\n~~~",
    "four backticks": "````markdown\n<<<<<<< HEAD\nmerge sort\n```\n=======\n````",
}


def _keywords(request: LlmRequest) -> str:
    return json.dumps([f"Key {i}" for i in range(len(request.inputs["paragraphs"]))])


def _pipeline(task: str, reply: str, mode: str = "iris") -> CitationPipeline:
    model = ScriptedModel({task: reply, "keywords_batched": _keywords, "summary": "Git marks conflicts."})
    return CitationPipeline(model, keyword_strategy="batched", placement_mode=mode)  # type: ignore[arg-type]


def code_blocks(markdown: str) -> list[str]:
    """The code blocks a reader sees once the answer is rendered."""
    return re.findall(r"<pre>.*?</pre>", render_markdown(markdown), re.S)


def assert_code_intact(answer: str, cited: str) -> None:
    """The cited answer is the answer plus markers, its code renders as in the answer, and every marker is a
    chip candidate outside the code."""
    assert strip_markers(cited) == answer
    assert code_blocks(cited) == code_blocks(answer) != []
    html = render_markdown(cited)
    assert html.count('class="cite-raw"') == len(parse(cited, "client")) > 0


@pytest.mark.parametrize("kind", FENCED)
def test_iris_a_marker_inside_a_code_block_goes_behind_the_sentence_introducing_it(kind: str) -> None:
    block = FENCED[kind]
    answer = f"{INTRO}\n\n{block}\n\nResolve it by hand."
    reply = answer.replace("merge sort\n", f"merge sort{MARKER}\n")
    result = _pipeline("placement", reply)(answer, Sources(lecture=(GIT,)))
    assert_code_intact(answer, result.answer)
    assert result.answer.startswith(f"{INTRO}[cite:L:12:7:")
    (failure,) = result.failures
    assert "markers moved out of code: 1" in failure.message


@pytest.mark.parametrize("kind", FENCED)
def test_iris_a_marker_on_the_closing_fence_line_goes_behind_the_sentence_introducing_it(kind: str) -> None:
    block = FENCED[kind]
    answer = f"{INTRO}\n\n{block}\n\nResolve it by hand."
    result = _pipeline("placement", answer.replace(block, block + MARKER))(answer, Sources(lecture=(GIT,)))
    assert_code_intact(answer, result.answer)
    assert result.answer.startswith(f"{INTRO}[cite:L:12:7:")


def test_iris_a_marker_before_the_opening_fence_on_its_line_goes_behind_the_introduction() -> None:
    answer = f"{INTRO}\n{FENCED['backticks']}"
    result = _pipeline("placement", f"{INTRO}\n{MARKER}{FENCED['backticks']}")(answer, Sources(lecture=(GIT,)))
    assert_code_intact(answer, result.answer)
    assert result.answer.startswith(f"{INTRO}[cite:L:12:7:")


def test_iris_code_after_code_is_cited_behind_the_prose_before_both_blocks() -> None:
    answer = f"{INTRO}\n\n{FENCED['tildes']}\n{FENCED['backticks']}\n"
    reply = answer[: answer.rindex("merge sort")] + f"merge sort{MARKER}" + answer[answer.rindex("merge sort") + 10:]
    result = _pipeline("placement", reply)(answer, Sources(lecture=(GIT,)))
    assert code_blocks(result.answer) == code_blocks(answer) and len(code_blocks(answer)) == 2
    assert result.answer.startswith(f"{INTRO}[cite:L:12:7:") and strip_markers(result.answer) == answer


def test_iris_a_marker_in_code_that_no_sentence_introduces_is_dropped_and_counted() -> None:
    answer = f"{FENCED['backticks']}\n\nResolve it by hand."
    reply = answer.replace("merge sort\n", f"merge sort{MARKER}\n")
    result = _pipeline("placement", reply)(answer, Sources(lecture=(GIT,)))
    assert result.answer == answer
    (failure,) = result.failures
    assert "ids of a code block without a sentence before it dropped: 1" in failure.message


@pytest.mark.parametrize("kind", FENCED)
def test_places_a_code_block_of_any_fence_is_one_unit_cited_behind_its_introduction(kind: str) -> None:
    answer = f"{INTRO}\n\n{FENCED[kind]}\n\nResolve it by hand."
    result = _pipeline("placement_places", '{"2": [1]}', mode="places")(answer, Sources(lecture=(GIT,)))
    assert_code_intact(answer, result.answer)
    assert result.answer.startswith(f"{INTRO}[cite:L:12:7:") and result.failures == ()


@pytest.mark.parametrize("kind", FENCED)
def test_offline_a_quoted_code_block_of_any_fence_is_cited_behind_its_lead_in(kind: str) -> None:
    code = "Git marks a conflict with <<<<<<< HEAD and ======= in the file."
    fence = FENCED[kind].split("\n", 1)[0].rstrip("markdown")
    answer = f"Slide 7 says:\n\n{fence}\n{code}\n{fence}"
    result = cite(answer, Sources(lecture=(GIT,)))
    assert_code_intact(answer, result.answer)
    assert result.answer.startswith("Slide 7 says:[cite:L:12:7:")
