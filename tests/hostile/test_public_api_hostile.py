"""The library's entry points under wrong arguments: the documented forms work (``Sources``, source records,
the sources JSON mapping, ``str`` paths), everything else raises ``errors.InputError`` (``SourcesError`` for
sources) naming the argument, and no record reaches a marker that the contract cannot carry."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from citation_core import CitationPipeline, ModelConfig, Sources, cite, default_config, errors
from citation_core.contract import parse, parse_stored
from citation_core.pipeline.audit import audit
from citation_core.sources import FaqSource, PageChunk, TranscriptSegment
from citation_core.testing import ScriptedModel

from ..fakes import ANSWER, EXAM, MERGE, MERGE_STEP, TREE

SOURCES_JSON: dict[str, Any] = {
    "lecture": {
        "pages": [{"uuid": "p3", "lecture_unit_id": 12, "page_number": 3, "display_page_number": "1",
                   "text": MERGE.text}],
        "transcriptions": [{"uuid": "t1", "lecture_unit_id": 12, "start": 75.6, "end": 92.9, "text": TREE.text}],
    },
    "faqs": [{"id": 17, "question": EXAM.question, "answer": EXAM.answer}],
}
CITED = "Merge sort divides the list into two halves and sorts each half recursively."


# --- the documented forms -----------------------------------------------------------------------------------

def test_cite_takes_the_sources_json_mapping() -> None:
    result = cite(CITED, SOURCES_JSON)
    assert result.answer.startswith(CITED + "[cite:L:12:3:::")  # was: the answer uncited, no failure
    assert not result.failures


def test_cite_takes_sources_and_a_list_of_records_alike() -> None:
    by_sources = cite(CITED, Sources((MERGE,)))
    by_list = cite(CITED, [MERGE])
    by_generator = cite(CITED, (s for s in [MERGE]))
    assert by_sources.answer == by_list.answer == by_generator.answer != CITED


def test_the_pipeline_and_the_audit_take_the_mapping_too() -> None:
    result = CitationPipeline()(CITED, SOURCES_JSON)
    assert len(result.citations) == 1
    (a,) = audit(result.answer, SOURCES_JSON)
    assert a.support.verdict == "supported"


def test_sources_load_takes_a_str_path(tmp_path: Path) -> None:
    path = tmp_path / "sources.json"
    path.write_text(json.dumps(SOURCES_JSON), encoding="utf-8")
    assert Sources.load(str(path)) == Sources.load(path)  # was: AttributeError on the str
    assert len(Sources.load(str(path)).lecture) == 2
    with pytest.raises(errors.SourcesError, match=r"^Sources.load: path: expected a path \(str or Path\), got int$"):
        Sources.load(12)  # type: ignore[arg-type]
    with pytest.raises(errors.SourcesError, match="file not found"):
        Sources.load(str(tmp_path / "missing.json"))


# --- the answer, the sources and the language ----------------------------------------------------------------

@pytest.mark.parametrize("answer", [None, 12, object(), b"Merge sort.", ["Merge sort."]],
                         ids=["None", "int", "object", "bytes", "list"])
def test_an_answer_that_is_no_str_is_an_input_error(answer: Any) -> None:
    name = type(answer).__name__
    with pytest.raises(errors.InputError, match=rf"^cite: answer: expected str, got {name}$"):
        cite(answer, Sources((MERGE,)))  # was: TypeError, or a result whose answer was bytes or a list
    with pytest.raises(errors.InputError, match=rf"^CitationPipeline: answer: expected str, got {name}$"):
        CitationPipeline()(answer, Sources((MERGE,)))
    with pytest.raises(errors.InputError, match=rf"^audit: answer: expected str, got {name}$"):
        audit(answer, Sources((MERGE,)))


@pytest.mark.parametrize(("sources", "got"), [
    (["Merge sort divides the list."], "list of str (item 0)"),
    ("sources.json", "str (read a sources file with Sources.load(path))"),
    (Path("sources.json"), "PosixPath (read a sources file with Sources.load(path))"),
    (b"{}", "bytes"),
    (None, "NoneType"),
    (12, "int"),
    ([MERGE, {"uuid": "x"}], "list of dict (item 1)"),
], ids=["list of str", "str", "Path", "bytes", "None", "int", "list with a dict"])
def test_sources_of_another_kind_are_a_sources_error_naming_the_argument(sources: Any, got: str) -> None:
    expected = "sources: expected Sources, source records or the sources JSON mapping, got "
    with pytest.raises(errors.SourcesError) as caught:
        cite(CITED, sources)  # was: the answer uncited with no failure, or a TypeError
    assert str(caught.value) == f"cite: {expected}{got}"
    with pytest.raises(errors.SourcesError, match=r"^audit: sources: "):
        audit(CITED, sources)


def test_a_mapping_with_neither_lecture_nor_faqs_is_refused_not_read_as_no_sources() -> None:
    with pytest.raises(errors.SourcesError, match=r"^cite: sources: expected a JSON object with 'lecture' and/or "
                                                  r"'faqs', got the keys 'pages'$"):
        cite(CITED, {"pages": SOURCES_JSON["lecture"]["pages"]})
    assert cite(CITED, {}).answer == CITED  # no sources at all: nothing to cite


def test_a_bad_record_in_the_mapping_is_named_with_its_path() -> None:
    bad = json.loads(json.dumps(SOURCES_JSON))
    bad["lecture"]["pages"][0]["page_number"] = 0
    with pytest.raises(errors.SourcesError, match=r"^cite: sources: lecture.pages\[0\].page_number: pages start "
                                                  r"at 1, got 0$"):
        cite(CITED, bad)


@pytest.mark.parametrize("language", [5, 2.5, ["de"], b"de"], ids=["int", "float", "list", "bytes"])
def test_a_language_that_is_no_str_is_an_input_error(language: Any) -> None:
    with pytest.raises(errors.InputError, match=r"^cite: language: expected a language code such as 'de' "
                                                r"\(or None\), got "):
        cite(CITED, Sources((MERGE,)), language=language)  # was: AttributeError
    assert cite(CITED, Sources((MERGE,)), language=None).answer != CITED


# --- records whose fields cannot make a marker ---------------------------------------------------------------

@pytest.mark.parametrize(("record", "field", "problem"), [
    (PageChunk("p", 12, math.nan, "Merge sort."), "page_number", "expected a whole page number >= 1, got nan"),  # type: ignore[arg-type]
    (PageChunk("p", 12, -1, "Merge sort."), "page_number", "pages start at 1, got -1"),
    (PageChunk("p", 12, 0, "Merge sort."), "page_number", "pages start at 1, got 0"),
    (PageChunk("p", 12, 10**100, "Merge sort."), "page_number", "a number of more than 18 digits"),
    (PageChunk("p", 12, True, "Merge sort."), "page_number", "expected a whole page number >= 1, got True"),
    (PageChunk("p", 12, "3", "Merge sort."), "page_number", "expected a whole page number >= 1, got '3'"),  # type: ignore[arg-type]
    (PageChunk("p", None, 3, "Merge sort."), "lecture_unit_id", "expected an int or str id, got None"),  # type: ignore[arg-type]
    (PageChunk("p", 10**19, 3, "Merge sort."), "lecture_unit_id", "a number of more than 18 digits"),
    (PageChunk("p", "12:3", 3, "Merge sort."), "lecture_unit_id",
     "an id with ':', '[', ']' or a line break cannot stand in a citation marker, got '12:3'"),
    (PageChunk("p", " ", 3, "Merge sort."), "lecture_unit_id", "an empty id"),
    (PageChunk("p", 12, 3, None), "text", "expected str, got NoneType"),  # type: ignore[arg-type]
    (TranscriptSegment("t", 12, -5.0, 10.0, "Merge sort."), "start", "expected a second >= 0, got -5.0"),
    (TranscriptSegment("t", 12, 5.0, math.inf, "Merge sort."), "end", "expected a second >= 0, got inf"),
    (TranscriptSegment("t", 12, math.nan, 10.0, "Merge sort."), "start", "expected a second >= 0, got nan"),
    (TranscriptSegment("t", 12, 1e300, 1e300, "Merge sort."), "start", "expected a second >= 0, got 1e+300"),
    (TranscriptSegment("t", 12, 20.0, 10.0, "Merge sort."), "end", "10 is before start 20"),
    (TranscriptSegment("t", 12, 5.0, 10.0, "Merge sort.", page_number=0), "page_number", "pages start at 1, got 0"),
    (FaqSource(None, "Open book?", "Yes."), "id", "expected an int or str id, got None"),  # type: ignore[arg-type]
    (FaqSource("a]b", "Open book?", "Yes."), "id",
     "an id with ':', '[', ']' or a line break cannot stand in a citation marker, got 'a]b'"),
    (FaqSource(17, "Open book?", 5), "answer", "expected str, got int"),  # type: ignore[arg-type]
], ids=lambda v: None if isinstance(v, PageChunk | TranscriptSegment | FaqSource) else str(v)[:24])
def test_a_record_that_cannot_make_a_marker_is_named_before_any_model_call(record: Any, field: str,
                                                                           problem: str) -> None:
    model = ScriptedModel({})  # any model call would fail the run: none must happen
    kind = "faqs" if isinstance(record, FaqSource) else "lecture"
    with pytest.raises(errors.SourcesError) as caught:
        cite(CITED, Sources.of([record]), model=model)  # was: markers like [cite:L:12:nan:…], [cite:L:None:…]
    assert str(caught.value) == f"cite: sources.{kind}[0].{field}: {problem}"
    with pytest.raises(errors.SourcesError) as in_list:
        CitationPipeline(model)(CITED, [MERGE, record])
    assert str(in_list.value) == f"CitationPipeline: sources[1].{field}: {problem}"
    with pytest.raises(errors.SourcesError, match=rf"^CitationPipeline.run_pass: sources\[0\].{field}: "):
        CitationPipeline(model).run_pass(CITED, [record])
    with pytest.raises(errors.SourcesError, match=rf"^audit: sources.{kind}\[0\].{field}: "):
        audit(CITED, Sources.of([record]))
    assert model.requests == []


def test_a_record_of_the_wrong_kind_in_sources_is_named() -> None:
    with pytest.raises(errors.SourcesError, match=r"^cite: sources.lecture\[1\]: an FaqSource belongs in faqs$"):
        cite(CITED, Sources((MERGE, EXAM)))  # type: ignore[arg-type]
    with pytest.raises(errors.SourcesError, match=r"^cite: sources.faqs\[0\]: expected FaqSource, got PageChunk$"):
        cite(CITED, Sources((), (MERGE,)))  # type: ignore[arg-type]
    with pytest.raises(errors.SourcesError, match=r"^Sources.of: items\[0\]: expected PageChunk, TranscriptSegment "
                                                  r"or FaqSource, got str$"):
        Sources.of(["Merge sort."])  # type: ignore[list-item]


def test_every_marker_of_a_run_over_valid_records_parses_back() -> None:
    odd = [PageChunk("p", "unit-7", 2, MERGE.text), TranscriptSegment("t", 12, 0.0, 0.0, TREE.text),
           FaqSource("faq-1", EXAM.question, EXAM.answer)]
    result = cite(ANSWER + " The final exam is open book.", odd + [MERGE_STEP])
    markers = parse(result.answer, "stored")
    assert markers and all(m.source_ref() for m in markers)
    assert {m.entity_id for m in markers} >= {"unit-7", "faq-1"}


# --- the pipeline's own arguments ----------------------------------------------------------------------------

@pytest.mark.parametrize(("kwargs", "message"), [
    ({"placement": "gpt"}, "placement: expected a ModelConfig, a ChatModel or None, got str"),
    ({"enrichment": 5}, "enrichment: expected a ModelConfig, a ChatModel or None, got int"),
    ({"judge": object()}, "judge: expected a ModelConfig, a ChatModel or None, got object"),
    ({"keyword_strategy": "x"}, "keyword_strategy: expected one of 'batched', 'sequential', got 'x'"),
    ({"pass_order": None}, "pass_order: expected one of 'parallel', 'faq_then_lecture', got None"),
    ({"deadline_seconds": -1}, "deadline_seconds: expected seconds > 0 (or None), got -1"),
    ({"deadline_seconds": math.nan}, "deadline_seconds: expected seconds > 0 (or None), got nan"),
    ({"deadline_seconds": "5"}, "deadline_seconds: expected seconds > 0 (or None), got '5'"),
    ({"prompts": "prompts/"}, "prompts: expected Prompts or None, got str"),
    ({"variant": 2}, "variant: expected str, got int"),
], ids=lambda v: next(iter(v)) if isinstance(v, dict) else None)
def test_a_pipeline_argument_of_the_wrong_kind_is_named(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(errors.InputError) as caught:
        CitationPipeline(**kwargs)  # was: AttributeError, or accepted ("x") and failing later
    assert str(caught.value) == f"CitationPipeline: {message}"


def test_the_models_the_docs_name_are_accepted() -> None:
    gpt = ModelConfig(id="gpt", type="openai_chat", model="gpt-4.1-mini", base_url="https://api.openai.com/v1",
                      api_key_env="OPENAI_API_KEY")
    assert CitationPipeline(placement=gpt, enrichment=gpt, keyword_strategy="sequential").placement.model_id == "gpt"
    assert CitationPipeline(ScriptedModel({})).placement.model_id == "scripted"
    with pytest.raises(errors.InputError, match=r"^cite: model: expected a ModelConfig, a ChatModel or None, "
                                                r"got str$"):
        cite(CITED, Sources((MERGE,)), model="gpt")  # type: ignore[arg-type]


@pytest.mark.parametrize("config", [None, "llm_config.yml", {"chat": "gpt"}], ids=["None", "str", "dict"])
def test_from_config_names_a_config_of_the_wrong_kind(config: Any) -> None:
    with pytest.raises(errors.InputError, match=r"^CitationPipeline.from_config: config: expected LlmConfig "
                                                r"\(load_config\(folder\) or default_config\(\)\), got "):
        CitationPipeline.from_config(config)  # was: AttributeError
    with pytest.raises(errors.InputError, match=r"^CitationPipeline.from_config: keyword_strategy: "):
        CitationPipeline.from_config(default_config(), keyword_strategy="x")  # type: ignore[arg-type]
    assert CitationPipeline.from_config(default_config()).variant == "default"


# --- the contract's own parsers ------------------------------------------------------------------------------

def test_a_version_field_of_5000_digits_is_a_marker_error() -> None:
    with pytest.raises(errors.MarkerError, match=r"^version: a number of more than 18 digits$"):
        parse_stored("[cite:L:12:3:::Merge:Splits.:va" + "9" * 5000 + "]")  # was: ValueError
    assert parse_stored("[cite:L:12:3:::Merge:Splits.:va7]").version == 7
