"""Course manifest, FAQs, slide timeline and the source records built from them."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from citation_core.errors import MaterialError
from citation_core.material.chunks import faq_sources, page_chunks, split_text, transcript_segments
from citation_core.material.course import load_course, load_faqs, validate_course, validate_unit
from citation_core.material.deck import load_deck
from citation_core.material.models import (
    Course,
    Cue,
    Deck,
    DeckPage,
    LectureUnit,
    MaterialVersions,
    TimelineEntry,
    Transcript,
)
from citation_core.material.timeline import page_at, parse_timeline
from citation_core.material.transcript import load_transcript
from tests.material_fixtures import make_course, write_text, write_yaml

# --- timeline -------------------------------------------------------------------------------

TIMELINE = (TimelineEntry(0.0, 1), TimelineEntry(12.5, 2), TimelineEntry(30.0, 5))


@pytest.mark.parametrize(
    ("second", "page"),
    [(-1.0, None), (0.0, 1), (12.4, 1), (12.5, 2), (29.99, 2), (30.0, 5), (10_000.0, 5)],
)
def test_page_at_gives_the_slide_shown_at_that_second(second: float, page: int | None) -> None:
    assert page_at(TIMELINE, second) == page


def test_page_at_without_a_timeline_or_before_it_starts_is_none() -> None:
    assert page_at((), 5.0) is None
    assert page_at((TimelineEntry(10.0, 3),), 9.0) is None


def test_parse_timeline_accepts_ints_and_floats() -> None:
    raw = [{"at": 0, "page": 1}, {"at": 12.5, "page": 2}]
    assert parse_timeline(raw, "course.yml") == (TimelineEntry(0.0, 1), TimelineEntry(12.5, 2))


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("0:1", "course.yml: timeline: expected a list of {at, page} entries, got '0:1'"),
        ([{"at": 5, "page": 1}, {"at": 2, "page": 2}], "course.yml: timeline[1].at: timeline must be sorted by time"),
        ([{"at": 5, "page": 1}, {"at": 5, "page": 2}], "course.yml: timeline[1].at: timeline must be sorted by time"),
        ([{"at": -1, "page": 1}], "course.yml: timeline[0].at: must not be negative, got -1"),
        ([{"at": 0, "page": 0}], "course.yml: timeline[0].page: pages start at 1, got 0"),
        ([{"at": 0, "page": "2"}], "course.yml: timeline[0].page: expected an integer, got '2'"),
        ([{"at": True, "page": 1}], "course.yml: timeline[0].at: expected a number of seconds, got True"),
        ([{"at": 0}], "course.yml: timeline[0]: missing 'page'"),
        ([{"at": 0, "page": 1, "slide": 1}], "course.yml: timeline[0]: unknown field 'slide'"),
        ([{"at": 0, "page": 4}], "course.yml: timeline[0].page: page 4 is past the deck's 3 pages"),
    ],
)
def test_bad_timelines_name_the_file_and_entry(raw: object, message: str) -> None:
    with pytest.raises(MaterialError) as info:
        parse_timeline(raw, "course.yml", page_count=3)
    assert str(info.value).startswith(message)


# --- course manifest ------------------------------------------------------------------------


def test_load_course_reads_the_manifest_with_absolute_paths(tmp_path: Path) -> None:
    make_course(tmp_path)
    course = load_course(tmp_path)
    assert (course.id, course.name, course.language) == (1, "Algorithms and Data Structures", "en")
    assert [lecture.id for lecture in course.lectures] == [10]
    unit = course.unit(101)
    assert unit.name == "Merge sort"
    assert (unit.lecture_id, unit.lecture_name) == (10, "Sorting")
    root = tmp_path.resolve()
    assert unit.deck == root / "decks" / "merge_sort.pdf"
    assert unit.video == root / "videos" / "merge_sort.mp4"
    assert unit.transcript == root / "transcripts" / "merge_sort.vtt"
    assert all(p is not None and p.is_absolute() for p in (unit.deck, unit.video, unit.transcript))
    assert unit.timeline == (TimelineEntry(0.0, 1), TimelineEntry(4.0, 2), TimelineEntry(8.5, 3))
    assert unit.versions == MaterialVersions(attachment=2, video=1)
    assert unit.display_overrides == {1: None}
    assert unit.language == "en"
    assert [(f.id, f.language) for f in course.faqs] == [(1, "en"), (2, "de")]
    assert load_course(tmp_path / "course.yml") == course  # the manifest path works too


def test_optional_unit_fields_have_defaults(tmp_path: Path) -> None:
    make_course(
        tmp_path,
        deck=None,
        video=None,
        transcript=None,
        timeline=None,
        versions=None,
        display_numbers=None,
        language="de",
    )
    unit = load_course(tmp_path).unit(101)
    assert (unit.deck, unit.video, unit.transcript, unit.timeline) == (None, None, None, ())
    assert unit.versions == MaterialVersions(1, 1)
    assert unit.display_overrides == {}
    assert unit.language == "de"


def mutate(root: Path, change: Any) -> None:
    path = root / "course.yml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    write_yaml(path, data)


def unit0(data: dict[str, Any]) -> dict[str, Any]:
    unit: dict[str, Any] = data["lectures"][0]["units"][0]
    return unit


def second_unit_with_same_id(data: dict[str, Any]) -> None:
    data["lectures"].append({"id": 11, "name": "Searching", "units": [{"id": 101, "name": "Binary search"}]})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: unit0(d).update(id="abc"), "course.yml: lectures[0].units[0].id: expected an integer, got 'abc'"),
        (
            second_unit_with_same_id,
            "course.yml: lectures[1].units[0].id: duplicate unit id 101 (also at lectures[0].units[0])",
        ),
        (lambda d: unit0(d).update(deck="decks/nope.pdf"), "course.yml: lectures[0].units[0].deck: file not found"),
        (lambda d: unit0(d).update(transcirpt="x.vtt"), "course.yml: lectures[0].units[0]: unknown field 'transcirpt'"),
        (lambda d: d.update(id=True), "course.yml: id: expected an integer, got True"),
        (lambda d: d.pop("name"), "course.yml: name: missing"),
        (lambda d: d.update(lectures="none"), "course.yml: lectures: expected a list, got 'none'"),
        (lambda d: d.update(language="english!"), "course.yml: language: expected a language code"),
        (lambda d: d.update(faqs="missing.yml"), "course.yml: faqs: file not found: missing.yml"),
        (lambda d: unit0(d).update(versions={"attachment": 0}), "course.yml: lectures[0].units[0].versions.attachment"),
        (lambda d: unit0(d).update(display_numbers={2: [1]}), "course.yml: lectures[0].units[0].display_numbers[2]"),
        (
            lambda d: unit0(d).update(timeline=[{"at": 3, "page": 1}, {"at": 1, "page": 2}]),
            "course.yml: lectures[0].units[0].timeline[1].at: timeline must be sorted",
        ),
        (
            lambda d: unit0(d).update(deck=None, display_numbers=None),
            "course.yml: lectures[0].units[0].timeline: a timeline needs a deck",
        ),
        (
            lambda d: unit0(d).update(transcript="videos/merge_sort.mp4"),
            "course.yml: lectures[0].units[0].transcript: unsupported type '.mp4'",
        ),
    ],
)
def test_bad_manifests_raise_one_line_naming_file_and_field(tmp_path: Path, change: Any, message: str) -> None:
    make_course(tmp_path)
    mutate(tmp_path, change)
    with pytest.raises(MaterialError) as info:
        load_course(tmp_path)
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def test_missing_manifest_and_broken_yaml(tmp_path: Path) -> None:
    with pytest.raises(MaterialError, match=r"^course\.yml: course manifest not found"):
        load_course(tmp_path)
    write_text(tmp_path / "course.yml", "id: 1\nname: [unclosed\n")
    with pytest.raises(MaterialError, match=r"^course\.yml: invalid YAML at line \d+, column \d+"):
        load_course(tmp_path)


def test_load_faqs_validates_entries(tmp_path: Path) -> None:
    good = write_yaml(tmp_path / "faqs.yml", [{"id": 3, "question": "Q?", "answer": "A."}])
    assert [(f.id, f.question, f.answer, f.language) for f in load_faqs(good, "fr")] == [(3, "Q?", "A.", "fr")]
    dup = write_yaml(tmp_path / "dup.yml", [{"id": 3, "question": "Q?", "answer": "A."}] * 2)
    with pytest.raises(MaterialError, match=r"^dup\.yml: \[1\]\.id: duplicate FAQ id 3"):
        load_faqs(dup)
    blank = write_yaml(tmp_path / "blank.yml", [{"id": 4, "question": "Q?", "answer": "  "}])
    with pytest.raises(MaterialError, match=r"^blank\.yml: \[0\]\.answer: expected text"):
        load_faqs(blank)


def test_validate_unit_reports_timeline_pages_past_the_deck(tmp_path: Path) -> None:
    make_course(tmp_path, timeline=[{"at": 0, "page": 1}, {"at": 5, "page": 7}])
    course = load_course(tmp_path)  # the page count is only known once the deck is read
    problems = validate_course(course)
    assert problems == ["course.yml: lectures[0].units[0]: timeline[1].page: page 7 is past the deck's 3 pages"]


def test_validate_unit_reports_a_timeline_after_the_transcript_ends(tmp_path: Path) -> None:
    make_course(tmp_path, timeline=[{"at": 0, "page": 1}, {"at": 60, "page": 2}])
    unit = load_course(tmp_path).unit(101)
    assert validate_unit(unit) == ["unit 101 (Merge sort): timeline[1].at: 60 s is after the transcript ends (9.5 s)"]


def test_validate_unit_of_a_sound_unit_is_empty(tmp_path: Path) -> None:
    make_course(tmp_path)
    assert validate_course(load_course(tmp_path)) == []


# --- source records -------------------------------------------------------------------------


@pytest.fixture
def course(tmp_path: Path) -> Course:
    make_course(tmp_path)
    return load_course(tmp_path)


def test_page_chunks_one_per_page_with_stable_ids(course: Course) -> None:
    unit = course.unit(101)
    assert unit.deck is not None
    deck = load_deck(unit.deck, unit.display_overrides)
    chunks = page_chunks(course, unit, deck)
    assert [(c.page_number, c.display_page_number) for c in chunks] == [(1, None), (2, "2"), (3, "3")]
    first = chunks[0]
    assert first.uuid == str(uuid.uuid5(uuid.NAMESPACE_URL, "1:101:page:1:0"))
    assert (first.course_id, first.lecture_id, first.lecture_unit_id, first.lecture_unit_name) == (
        1,
        10,
        101,
        "Merge sort",
    )
    assert first.text == "Merge sort\nDivide and conquer"
    assert page_chunks(course, unit, deck) == chunks


def test_long_pages_split_on_line_boundaries_and_empty_pages_give_no_chunk(course: Course) -> None:
    lines = [f"Line {i}: " + "word " * 20 for i in range(30)]
    deck = Deck(
        path=Path("long.pdf"),
        pages=(
            DeckPage(1, "1", "text", "\n".join(lines), "Line 0"),
            DeckPage(2, None, "none", "", ""),
        ),
    )
    chunks = page_chunks(course, course.unit(101), deck, max_chars=300)
    assert len(chunks) > 1
    assert {c.page_number for c in chunks} == {1}
    assert all(len(c.text) <= 300 for c in chunks)
    assert all(c.text.startswith("Line ") for c in chunks)  # cut at line starts
    assert "\n".join(c.text for c in chunks).split() == "\n".join(lines).split()
    assert len({c.uuid for c in chunks}) == len(chunks)


@given(st.text(alphabet=st.sampled_from("ab \n"), max_size=400), st.integers(min_value=1, max_value=60))
def test_split_text_keeps_every_character_within_the_limit(text: str, max_chars: int) -> None:
    pieces = split_text(text, max_chars)
    assert all(0 < len(p) <= max_chars and p == p.strip() for p in pieces)
    assert "".join("".join(p.split()) for p in pieces) == "".join(text.split())


def test_transcript_segments_carry_the_slide_shown(course: Course) -> None:
    unit = course.unit(101)
    assert unit.transcript is not None
    segments = transcript_segments(unit, load_transcript(unit.transcript), course_id=course.id)
    assert [(s.start, s.end, s.page_number) for s in segments] == [(0.0, 4.0, 1), (4.0, 9.5, 2)]
    assert segments[1].uuid == str(uuid.uuid5(uuid.NAMESPACE_URL, "1:101:cue:1"))
    assert segments[0].text == "Merge sort splits the list"


def test_transcript_segments_skip_empty_cues_and_need_no_timeline() -> None:
    unit = LectureUnit(id=7, name="Intro", lecture_id=1, lecture_name="L1")
    transcript = Transcript(Path("t.vtt"), (Cue(0.0, 1.0, "hello"), Cue(1.0, 2.0, ""), Cue(2.0, 3.0, "world")))
    segments = transcript_segments(unit, transcript)
    assert [(s.text, s.page_number) for s in segments] == [("hello", None), ("world", None)]
    assert segments[1].uuid == str(uuid.uuid5(uuid.NAMESPACE_URL, "7:cue:2"))  # index in the file, not the list


def test_faq_sources_join_question_and_answer(course: Course) -> None:
    sources = faq_sources(course)
    assert [s.id for s in sources] == [1, 2]
    assert sources[0].content == "Is merge sort stable? Yes, it is stable."
