"""Hidden pages and units not released yet (course.yml), as instructors set them in an LMS.

Students never get them: not retrieved, not openable, not cited, not in the chip table's slides; an
instructor preview shows unreleased units; hidden pages stay hidden for everybody.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from citation_core.chat.chat_pipeline import ChatPipeline
from citation_core.chat.view import ViewPosition, current_view
from citation_core.cli.main import main
from citation_core.contract import parse
from citation_core.errors import MaterialError, PositionError, UnknownUnitError
from citation_core.lms.resolve import resolve_citations, unit_table
from citation_core.material.course import load_course
from citation_core.material.library import CourseMaterial, load_material
from citation_core.sources import PageChunk
from tests.fakes import config
from tests.material_fixtures import SMALL_VTT, make_pdf, write_text, write_yaml

SECRET = "zebrafish answer key"  # only on the hidden page
LATER = "platypus rotations"  # only in the unit released in 2999
NEVER = "narwhal buckets"  # only in the unit marked released: false


def make_course(root: Path, changes: dict[int, dict[str, Any]] | None = None) -> Path:
    """A course of three units: 11 with page 3 hidden, 12 released on 2999-01-15, 13 not released."""
    make_pdf(root / "decks" / "graphs.pdf", [
        ["Graph algorithms", "Overview of the lecture"],
        ["Breadth first search", "A queue holds the frontier of the search", "2 / 4"],
        ["Exam solutions", f"The {SECRET} for the final exam", "3 / 4"],
        ["Depth first search", "A stack holds the path of the search", "4 / 4"],
    ])
    make_pdf(root / "decks" / "trees.pdf", [["Balanced trees", f"Balancing with {LATER}"], ["More", "Heights", "2"]])
    make_pdf(root / "decks" / "hashing.pdf", [["Hashing", f"Chaining with {NEVER}"], ["More", "Load factor", "2"]])
    write_text(root / "transcripts" / "graphs.vtt", SMALL_VTT)
    units: list[dict[str, Any]] = [
        {"id": 11, "name": "Graph search", "deck": "decks/graphs.pdf", "hidden_pages": [3],
         "transcript": "transcripts/graphs.vtt", "timeline": [{"at": 0, "page": 2}, {"at": 4, "page": 3}]},
        {"id": 12, "name": "Balanced trees", "deck": "decks/trees.pdf", "release_date": dt.date(2999, 1, 15)},
        {"id": 13, "name": "Hashing", "deck": "decks/hashing.pdf", "released": False},
    ]
    for unit in units:
        unit.update((changes or {}).get(unit["id"], {}))
    return write_yaml(root / "course.yml", {"id": 5, "name": "Algorithms", "language": "en",
                                            "lectures": [{"id": 50, "name": "Lecture 5", "units": units}]})


@pytest.fixture()
def course_dir(tmp_path: Path) -> Path:
    make_course(tmp_path)
    return tmp_path


@pytest.fixture()
def material(course_dir: Path) -> CourseMaterial:
    return load_material(course_dir)


def chunk_pages(sources: object) -> set[tuple[int, int]]:
    return {(s.lecture_unit_id, s.page_number) for s in sources if isinstance(s, PageChunk)}  # type: ignore[attr-defined]


# --- the manifest --------------------------------------------------------------------------------


def test_the_manifest_fields_are_read(course_dir: Path) -> None:
    course = load_course(course_dir)
    graphs, trees, hashing = course.units
    assert (graphs.hidden_pages, graphs.released, graphs.release_date) == (frozenset({3}), True, None)
    assert (trees.release_date, trees.released) == (dt.date(2999, 1, 15), True)
    assert (hashing.released, hashing.release_date) == (False, None)
    assert trees.withheld_reason(dt.datetime(2999, 1, 14, 23, 59)) == "not released before 2999-01-15"
    assert trees.withheld_reason(dt.datetime(2999, 1, 15)) is None
    assert hashing.withheld_reason(dt.datetime(3000, 1, 1)) == "not released"


@pytest.mark.parametrize("value", ["2027-01-15", "2027-01-15 10:30", dt.datetime(2027, 1, 15, 10, 30)])
def test_release_dates_as_text_or_yaml_timestamps(tmp_path: Path, value: object) -> None:
    make_course(tmp_path, {12: {"release_date": value}})
    release = load_course(tmp_path).unit(12).release_date
    assert release is not None and release.isoformat().startswith("2027-01-15")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({13: {"released": "no"}}, "course.yml: lectures[0].units[2].released: expected true or false, got 'no'"),
        ({12: {"release_date": "soon"}},
         "course.yml: lectures[0].units[1].release_date: expected a date like 2027-01-15 (or 2027-01-15 10:00), "
         "got 'soon'"),
        ({11: {"hidden_pages": [3, 0]}},
         "course.yml: lectures[0].units[0].hidden_pages[1]: expected a page number >= 1 (deck index), got 0"),
        ({11: {"hidden_pages": "3"}},
         "course.yml: lectures[0].units[0].hidden_pages: expected a list of page numbers like [3, 4], got '3'"),
    ],
)
def test_bad_fields_are_one_line_naming_the_field(tmp_path: Path, changes: dict[int, Any], message: str) -> None:
    make_course(tmp_path, changes)
    with pytest.raises(MaterialError) as err:
        load_course(tmp_path)
    assert str(err.value) == message


def test_a_hidden_page_past_the_deck_is_a_warning(tmp_path: Path) -> None:
    make_course(tmp_path, {11: {"hidden_pages": [3, 9]}})
    assert "unit 11 (Graph search): hidden_pages: page 9 is past the deck's 4 pages" in load_material(tmp_path).warnings


# --- what students get ----------------------------------------------------------------------------


def test_unreleased_units_are_withheld(material: CourseMaterial) -> None:
    assert list(material.units) == [11]
    assert list(material.withheld) == [12, 13]
    assert list(material.all_units) == [11, 12, 13]
    assert [um.unit.id for um in material.visible_units()] == [11]
    assert [um.unit.id for um in material.visible_units(preview=True)] == [11, 12, 13]
    with pytest.raises(UnknownUnitError, match=r"^unit 12: not released before 2999-01-15 \(only an instructor"):
        material.unit(12)
    with pytest.raises(UnknownUnitError, match=r"^unit 13: not released \("):
        material.unit(13)
    assert material.next_release == dt.date(2999, 1, 15)


def test_release_dates_count_from_the_loading_moment(course_dir: Path) -> None:
    later = load_material(course_dir, now=dt.datetime(2999, 1, 15, 8, 0))
    assert list(later.units) == [11, 12] and list(later.withheld) == [13]
    assert later.next_release is None


def test_hidden_pages_lose_their_text_and_are_never_retrieved(material: CourseMaterial) -> None:
    um = material.unit(11)
    assert um.deck is not None
    hidden = um.deck.page(3)
    assert (hidden.text, hidden.title, hidden.display_page_number) == ("", "", "3")
    assert um.visible_pages() == [1, 2, 4] and um.is_hidden(3)
    assert (um.page_label(3), um.caption(3)) == ("a hidden slide", "Hidden slide (page 3 of 4)")
    assert {c.page_number for c in um.chunks} == {1, 2, 4}
    assert material.lecture_index.search(SECRET, k=20) == []
    assert material.lecture_index.search(LATER, k=20) == [] and material.lecture_index.search(NEVER, k=20) == []
    assert chunk_pages(material.lecture_index.search("queue frontier", k=3)) == {(11, 2)}


def test_the_preview_shows_unreleased_units_but_never_hidden_pages(material: CourseMaterial) -> None:
    preview = material.preview()
    assert preview is material.preview_material and material.preview(False) is material
    assert list(preview.units) == [11, 12, 13] and preview.withheld == {}
    assert chunk_pages(preview.lecture_index.search(LATER, k=3)) == {(12, 1)}
    assert chunk_pages(preview.lecture_index.search(NEVER, k=3)) == {(13, 1)}
    assert preview.lecture_index.search(SECRET, k=20) == []
    assert current_view(preview, ViewPosition(12, page=1)).sources


def test_the_chip_table_says_why_a_marker_does_not_open(material: CourseMaterial) -> None:
    table = unit_table(material)
    assert list(table) == ["11", "12", "13"]
    graphs, trees, hashing = table["11"], table["12"], table["13"]
    assert (graphs["released"], graphs["withheldReason"], graphs["hiddenPages"]) == (True, None, [3])
    assert graphs["slides"]["3"] == {"printed": "3", "title": "", "hidden": True}
    assert graphs["slides"]["2"] == {"printed": "2", "title": "Breadth first search"}
    assert (trees["released"], trees["withheldReason"], trees["releaseDate"], trees["slides"]) == (
        False, "not released before 2999-01-15", "2999-01-15", {})
    assert (hashing["released"], hashing["withheldReason"], hashing["releaseDate"]) == (False, "not released", None)
    assert json.loads(json.dumps(table)) == table  # what the chip component receives


def test_markers_pointing_at_withheld_units_resolve_to_nothing(material: CourseMaterial) -> None:
    answer = "Trees.[cite:L:12:1:::Trees:Balanced.] Graphs.[cite:L:11:2:::BFS:Queue.]"
    assert [c.entityId for c in resolve_citations(answer, material)] == [11]


# --- asking: the chat pipeline and the command line -----------------------------------------------


def cited(answer: str) -> set[tuple[str, str]]:
    return {(m.entity_id, m.page or "") for m in parse(answer, "stored")}


# words that only the withheld material has, and no question asks for
ONLY_WITHHELD = ("final exam", "exam solutions", "balanc", "chaining")


@pytest.mark.parametrize("question", [f"What is the {SECRET}?", f"Explain {LATER}", f"How do {NEVER} work?",
                                      "What holds the frontier of the search?"])
def test_an_answer_never_uses_hidden_or_unreleased_material(material: CourseMaterial, question: str) -> None:
    result = ChatPipeline(config(), material)(question, ViewPosition(11, page=2))
    assert not [w for w in ONLY_WITHHELD if w in result.answer.lower()], result.answer
    assert all(s.lecture_unit_id == 11 for s in result.retrieved)
    assert (11, 3) not in chunk_pages(result.retrieved)
    for source in result.retrieved:
        assert SECRET not in source.text and LATER not in source.text and NEVER not in source.text
    assert not {(e, p) for e, p in cited(result.answer) if e in {"12", "13"} or (e, p) == ("11", "3")}


def test_a_pasted_answer_citing_a_hidden_page_gets_no_marker_there(material: CourseMaterial) -> None:
    pasted = f"The {SECRET} is on slide 3. A queue holds the frontier of the search."
    result = ChatPipeline(config(), material)(f"Where is the {SECRET}?", ViewPosition(11, page=2),
                                              pasted_answer=pasted)
    assert ("11", "3") not in cited(result.answer)
    assert (11, 3) not in chunk_pages(result.retrieved)


def test_a_hidden_page_cannot_be_opened_and_the_video_does_not_name_it(material: CourseMaterial) -> None:
    with pytest.raises(PositionError, match=r"^page 3: hidden, unit 11 does not show it\b") as caught:
        current_view(material, ViewPosition(11, page=3))
    assert "\n" not in str(caught.value)
    with pytest.raises(PositionError, match="page 3: hidden"):
        ChatPipeline(config(), material)("What is on it?", ViewPosition(11, page=3))
    video = current_view(material, ViewPosition(11, second=5.0))  # the timeline shows the hidden page
    assert (video.page, video.display_page_number, video.label, video.title) == (None, None, "the video", "")
    assert video.sources and SECRET not in video.describe() and "slide" not in video.describe()
    assert video.to_json()["page"] is None
    shown = current_view(material, ViewPosition(11, second=1.0))  # a visible page is still named
    assert (shown.page, shown.label) == (2, "slide 2")


def test_an_unreleased_unit_cannot_be_opened(material: CourseMaterial) -> None:
    with pytest.raises(UnknownUnitError, match="not released"):
        ChatPipeline(config(), material)("What are rotations?", ViewPosition(12, page=1))


def test_the_command_line_never_answers_from_hidden_or_unreleased_material(
    course_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CITATION_STUDIO_CONFIG_DIR", raising=False)
    capsys.readouterr()
    code = main(["ask", "--course", str(course_dir), "--unit", "11", "--page", "2", "--question",
                 f"What is the {SECRET} and what are {LATER}?", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    assert SECRET not in data["answer"] and LATER not in data["answer"] and NEVER not in data["answer"]
    assert not [c for c in data["citations"] if c.get("entity_id") in ("12", "13") or
                (c.get("entity_id") == "11" and str(c.get("page")) == "3")]
    code = main(["ask", "--course", str(course_dir), "--unit", "13", "--page", "1", "--question", "Hashing?"])
    out, err = capsys.readouterr()
    assert code == 2 and err.strip().startswith("citation-studio: unit 13: not released"), err
    code = main(["ask", "--course", str(course_dir), "--unit", "11", "--page", "3", "--question", "What is on it?"])
    out, err = capsys.readouterr()
    assert code == 2 and err.strip() == "citation-studio: page 3: hidden, unit 11 does not show it to students", err
