"""Placement by sentence numbers ("places" mode): the model names the numbered sentences each source supports
in a small JSON object, the pipeline reads it strictly and inserts the markers itself."""

from __future__ import annotations

import json
import shutil
from functools import cache
from pathlib import Path

import pytest

from citation_core.chat.chat_pipeline import ChatPipeline, ChatResult
from citation_core.chat.view import ViewPosition
from citation_core.contract import parse, strip_markers
from citation_core.errors import PlacementError
from citation_core.llm.base import LlmRequest
from citation_core.llm.config import load_config
from citation_core.material.library import CourseMaterial, load_material
from citation_core.pipeline import CitationPipeline
from citation_core.pipeline.places import number_units, units_json
from citation_core.pipeline.prompts import Prompts
from citation_core.sources import LectureSource, PageChunk, Sources
from citation_core.testing import ScriptedModel

from .fakes import ANSWER, MERGE, MERGE_STEP, TREE

ROOT = Path(__file__).resolve().parents[1]
SOURCES: list[LectureSource] = [MERGE, MERGE_STEP, TREE]  # numbered 1, 2, 3 in the prompt

CODE_ANSWER = (
    "Git marks the conflict in the file:\n\n"
    "```\n<<<<<<< HEAD\nmerge sort\n=======\n```\n\n"
    "- Merge sort divides the list.  \n"
    "- The merge step is linear.\n\n"
    "Done."
)
GIT = PageChunk("g1", 12, 7, "Conflicts\nGit marks a conflict with <<<<<<< HEAD and ======= in the file.")


def scripted(reply: str) -> ScriptedModel:
    return ScriptedModel({"placement_places": reply, "keywords_batched": lambda r: _keywords(r),
                          "summary": "A summary of the slide."})


def _keywords(request: LlmRequest) -> str:
    import json

    return json.dumps([f"Key {i}" for i in range(len(request.inputs["paragraphs"]))])


def cited(answer: str) -> list[str]:
    """The page (or start second) of every marker, in order."""
    return [m.page or m.start or "" for m in parse(answer, "client")]


def places(model: object) -> CitationPipeline:
    return CitationPipeline(model, placement_mode="places")  # type: ignore[arg-type]


# --- the numbered units ---------------------------------------------------------------------------------

def test_sentences_list_items_and_code_blocks_are_numbered_in_order() -> None:
    units = number_units(CODE_ANSWER + " It was easy. [cite:L:1:2:::Kw:Sum]")
    assert [(u.number, u.code) for u in units] == [(1, False), (2, True), (3, False), (4, False), (5, False),
                                                   (6, False)]
    shown = units_json(CODE_ANSWER + " It was easy. [cite:L:1:2:::Kw:Sum]", units)
    assert '{"n": 2, "text": "```\\n<<<<<<< HEAD\\nmerge sort\\n=======\\n```"}' in shown
    assert '{"n": 3, "text": "- Merge sort divides the list."}' in shown
    assert '{"n": 6, "text": "It was easy."}' in shown  # a marker already there is not shown


# --- a valid reply --------------------------------------------------------------------------------------

def test_each_id_goes_to_the_end_of_its_sentence_and_the_answer_text_never_changes() -> None:
    model = scripted('{"3": [3], "1": [1, 2], "2": [2]}')
    result = places(model)(ANSWER, Sources(lecture=tuple(SOURCES)))
    assert strip_markers(result.answer) == ANSWER and result.failures == ()
    assert cited(result.answer) == ["3", "4", "4", "75"]
    first, second, _ = ANSWER.split(". ")
    assert result.answer.startswith(first + ".[cite:L:12:3:")  # behind the full stop, before the space
    assert "[cite:L:12:4:" + result.answer.split("[cite:L:12:4:", 1)[1].split("]", 1)[0] + "] " + second in (
        result.answer)
    assert model.tasks()[0] == "placement_places"
    prompt = model.requests[0].messages[0].content
    assert '{"n": 2, "text": "The merge step combines two sorted lists in linear time."}' in prompt
    assert '"id": 3,' in prompt and "[cite:" not in prompt  # sources by number, never by marker
    assert ANSWER not in prompt  # the answer only as numbered sentences


def test_a_code_block_is_cited_behind_the_sentence_that_introduces_it_and_list_runs_get_one_chip() -> None:
    model = scripted('{"2": [1], "3": [2], "4": [2]}')
    result = places(model)(CODE_ANSWER, Sources(lecture=(GIT, MERGE)))
    assert strip_markers(result.answer) == CODE_ANSWER and result.failures == ()
    assert result.answer.startswith("Git marks the conflict in the file:[cite:L:12:7:")
    code = result.answer.split("```")[1]
    assert "[cite:" not in code
    # the two list items cite the same slide: one chip behind the last one, standing for both
    assert cited(result.answer) == ["7", "3"]
    assert "- The merge step is linear.[cite:L:12:3:" in result.answer
    assert "divides the list.  \n" in result.answer  # the trailing spaces of the first item kept as they were
    (validate,) = [p for p in result.traces["lecture"].phases if p.name == "validate"]
    assert [r["seq"] for r in validate.outputs["runs"]] == [2] and validate.outputs["merged_in_lists"] == [2]


def test_a_code_block_that_no_sentence_introduces_gets_no_marker_inside_the_code() -> None:
    answer = "```\ngit merge main\n```\n\nThen the merge step combines the lists."
    result = places(scripted('{"1": [1]}'))(answer, Sources(lecture=(GIT,)))
    assert result.answer == answer
    (failure,) = result.failures
    assert failure.kind == "validation"
    assert "ids of a code block without a sentence before it dropped: 1" in failure.message


# --- strict reading: what is left out is counted, the rest is kept ------------------------------------------

@pytest.mark.parametrize(("reply", "kept", "counted"), [
    ('{"1": [1, 7], "2": [2]}', ["3", "4"], "unknown ids removed: 1"),
    ('{"1": [1], "9": [2], "0": [2], "x": [2], "-1": [2]}', ["3"], "unknown sentence numbers removed: 4"),
    ('{"1": 1, "2": ["2", 2.0, true, null, 2]}', ["4"], "entries of the wrong type removed: 5"),
    ('{"1": [1, 1], "2": [2], "2": [3]}', ["3", "4"], "repeated entries removed: 2"),
    ('```json\n{"1": [1], "2": [2]}\n```', ["3", "4"], "reply wrapped in a Markdown fence: 1"),
    ("", [], "empty reply: 1"),
])
def test_a_reply_is_read_strictly_and_every_correction_is_counted(reply: str, kept: list[str], counted: str) -> None:
    result = places(scripted(reply))(ANSWER, Sources(lecture=tuple(SOURCES)))
    assert strip_markers(result.answer) == ANSWER
    assert cited(result.answer) == kept
    (failure,) = result.failures
    assert failure.kind == "validation" and counted in failure.message and "\n" not in failure.message


@pytest.mark.parametrize(("reply", "reason"), [
    ("Sentence 1 is supported by source 1.", "the placement reply is not JSON"),
    ('Here you go: {"1": [1]}', "the placement reply is not JSON"),
    ('[{"1": [1]}]', "the placement reply is an array, not a JSON object"),
    ('"1: [1]"', "the placement reply is a string, not a JSON object"),
    ("1", "the placement reply is a number, not a JSON object"),
    ("[" * 100_000, "the placement reply is not JSON"),
    ('{"1": [' + "1" * 5000 + "]}", "the placement reply is not JSON"),
    (ANSWER.replace("halves.", "halves.[cite:L:12:3::!1]"), "the placement reply is not JSON"),  # Iris's reply
])
def test_a_reply_that_cannot_be_read_is_a_placement_failure_and_the_answer_is_kept(reply: str, reason: str) -> None:
    pipe = places(scripted(reply))
    with pytest.raises(PlacementError) as err:
        pipe.run_pass(ANSWER, SOURCES)
    assert reason in str(err.value) and "\n" not in str(err.value)
    (failure,) = err.value.trace.failures
    assert failure.kind == "placement" and reason in failure.message
    # the whole pipeline: the answer uncited, the failure in its table, the raw reply in the trace
    result = pipe(ANSWER, Sources(lecture=tuple(SOURCES)))
    assert result.answer == ANSWER and result.citations == ()
    assert [f.kind for f in result.failures] == ["placement"]
    assert result.traces["lecture"].calls[0].output == reply


# --- the offline model: the same decisions in both modes -------------------------------------------------------

@cache
def sample() -> CourseMaterial:
    return load_material(ROOT / "sample_decks")


def config_folder(mode: str, tmp: Path) -> Path:
    folder = tmp / mode
    folder.mkdir()
    shutil.copy(ROOT / "llm_config.yml", folder)
    app = (ROOT / "application.yml").read_text(encoding="utf-8")
    assert app.count("\n  placement_mode: iris ") == 1  # the packaged default
    (folder / "application.yml").write_text(app.replace("\n  placement_mode: iris ", f"\n  placement_mode: {mode} "),
                                            encoding="utf-8")
    return folder


PASTED = (
    "Merge sort splits the array into two halves and sorts each half recursively. The merge step then combines "
    "the two sorted halves in linear time, which gives a running time of Θ(n log n).\n\n"
    "The pseudocode reads:\n\n```\nMERGE-SORT(A, p, r)\n  if p < r\n    q = floor((p + r) / 2)\n```\n\n"
    "1. All comparisons happen in MERGE.\n2. The recursion only splits index ranges.\n\n"
    "Hashing with chaining resolves collisions with a linked list per bucket. Good luck with the exam!"
)
QUESTIONS = [
    ("How does the merge procedure combine two sorted halves?", ViewPosition(101, page=6), "en", None),
    ("What does the master theorem say?", ViewPosition(101, page=6), "en", None),
    ("Why is merge sort O(n log n)?", ViewPosition(101, second=130.0), "en", None),
    ("How are collisions resolved in a hash table?", ViewPosition(201, page=3), "en", None),
    ("Was ist ein binärer Suchbaum?", ViewPosition(301, page=2), "de", None),
    ("Is the exam open book, and how does merge sort split the list?", ViewPosition(101, page=2), "en", None),
    ("How does merge sort work?", ViewPosition(101, page=3), "en", PASTED),
]


def test_the_offline_model_cites_the_sample_course_identically_in_both_modes(tmp_path: Path) -> None:
    results: dict[str, list[ChatResult]] = {}
    for mode in ("iris", "places"):
        chat = ChatPipeline(load_config(config_folder(mode, tmp_path), override=""), sample())
        results[mode] = [chat(q, pos, language=lang, pasted_answer=pasted) for q, pos, lang, pasted in QUESTIONS]
    cited = 0
    for iris, by_number in zip(results["iris"], results["places"], strict=True):
        assert by_number.answer == iris.answer
        assert [c.to_json() for c in by_number.citations] == [c.to_json() for c in iris.citations]
        assert by_number.failures == iris.failures == ()
        tasks = {c.task for t in by_number.traces.values() for c in t.calls}
        assert "placement_places" in tasks and "placement" not in tasks
        cited += len(iris.citations)
    assert cited >= 10 and any(r.traces.get("faq") for r in results["places"])


# --- prompts --------------------------------------------------------------------------------------------------

def test_a_configuration_folder_made_before_the_places_mode_takes_its_prompts_from_the_package(
        tmp_path: Path) -> None:
    folder = tmp_path / "prompts"
    shutil.copytree(ROOT / "prompts", folder)
    for name in ("citation_placement_places_lecture.txt", "citation_placement_places_faq.txt"):
        (folder / name).unlink()
    (folder / "citation_placement_lecture.txt").write_text("Own template {Paragraphs} {Answer}", encoding="utf-8")
    prompts = Prompts.load(folder)
    assert prompts.templates["placement_lecture"] == "Own template {Paragraphs} {Answer}"
    assert prompts.templates["placement_places_lecture"] == Prompts.default().templates["placement_places_lecture"]
    assert "{Sentences}" in prompts.templates["placement_places_faq"]


def test_the_trace_shows_the_sources_as_the_places_model_was_given_them() -> None:
    model = scripted('{"1": [1]}')
    result = places(model).run_pass(ANSWER, SOURCES)
    phases = {p.name: p.outputs for p in result.trace.phases}
    shown = phases["serialize"]["sources_json"]
    assert [e["id"] for e in json.loads(shown)] == [1, 2, 3]
    assert shown in model.requests[0].messages[0].content
    assert phases["place"]["raw_output"] == '{"1": [1]}' and phases["place"]["placement_mode"] == "places"
