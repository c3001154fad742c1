"""The library course: re-uploads compared by content, editable unit metadata, progress while pages are read."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import yaml

from citation_core.errors import MaterialError
from citation_core.material import ocr
from citation_core.material.course import load_course
from citation_core.material.library import decks_to_read, load_material
from citation_core.material.uploads import FIRST_UNIT_ID, Upload, add_upload, update_unit
from tests.conftest import SAMPLE_COURSE
from tests.material_decks import build_decks

DECK = (SAMPLE_COURSE / "decks" / "hash_tables.pdf").read_bytes()
OTHER = (SAMPLE_COURSE / "decks" / "merge_sort.pdf").read_bytes()
VTT = (SAMPLE_COURSE / "transcripts" / "merge_sort.vtt").read_bytes()


def versions(root: Path, unit_id: int = FIRST_UNIT_ID) -> tuple[int, int]:
    unit = load_course(root).unit(unit_id)
    return unit.versions.attachment, unit.versions.video


# --- re-uploads --------------------------------------------------------------------------------


def test_an_identical_reupload_changes_no_version(tmp_path: Path) -> None:
    first = add_upload(tmp_path, Upload("hash_tables.pdf", DECK), Upload("talk.vtt", VTT))
    assert (first.replaced, first.stales_answers) == (False, False)  # a first upload stales nothing
    stamp = (tmp_path / "decks" / "9001_hash_tables.pdf").stat().st_mtime_ns
    again = add_upload(tmp_path, Upload("hash_tables.pdf", DECK), Upload("talk.vtt", VTT))
    assert (again.replaced, again.deck_changed, again.transcript_changed, again.stales_answers) == (
        True, False, False, False)
    assert (again.attachment_version, again.video_version) == (1, 1) == versions(tmp_path)
    assert (tmp_path / "decks" / "9001_hash_tables.pdf").stat().st_mtime_ns == stamp  # not even rewritten


def test_changed_content_bumps_only_what_changed(tmp_path: Path) -> None:
    add_upload(tmp_path, Upload("hash_tables.pdf", DECK), Upload("talk.vtt", VTT))
    deck = add_upload(tmp_path, Upload("hash_tables.pdf", OTHER), Upload("talk.vtt", VTT))
    assert (deck.deck_changed, deck.transcript_changed, deck.stales_answers) == (True, False, True)
    assert versions(tmp_path) == (2, 1)
    talk = add_upload(tmp_path, Upload("hash_tables.pdf", OTHER), Upload("talk.vtt", VTT.replace(b"merge", b"MERGE")))
    assert (talk.deck_changed, talk.transcript_changed, talk.stales_answers) == (False, True, True)
    assert versions(tmp_path) == (2, 2)
    assert (tmp_path / "decks" / "9001_hash_tables.pdf").read_bytes() == OTHER


def test_a_transcript_added_later_stales_nothing(tmp_path: Path) -> None:
    add_upload(tmp_path, Upload("hash_tables.pdf", DECK))
    later = add_upload(tmp_path, Upload("hash_tables.pdf", DECK), Upload("talk.vtt", VTT))
    assert (later.transcript_changed, later.stales_answers) == (False, False)
    assert versions(tmp_path) == (1, 1)
    assert load_course(tmp_path).unit(FIRST_UNIT_ID).transcript is not None


# --- unit metadata -------------------------------------------------------------------------------


def test_name_lecture_and_language_change_without_a_version_change(tmp_path: Path) -> None:
    add_upload(tmp_path, Upload("en_metropolis_demo.pdf", DECK))
    add_upload(tmp_path, Upload("second.pdf", OTHER))
    assert load_course(tmp_path).unit(FIRST_UNIT_ID).name == "en metropolis demo"  # from the file name
    unit = update_unit(tmp_path, FIRST_UNIT_ID, name="  Hash   tables ", lecture_name="Lecture 3: Hashing",
                       language="de")
    assert (unit.name, unit.lecture_name, unit.language) == ("Hash tables", "Lecture 3: Hashing", "de")
    assert versions(tmp_path) == (1, 1)
    course = load_course(tmp_path)
    assert [(lec.name, [u.id for u in lec.units]) for lec in course.lectures] == [
        ("Uploaded decks", [9002]), ("Lecture 3: Hashing", [9001])]
    # a re-upload finds the renamed unit by its file name and keeps the new name
    again = add_upload(tmp_path, Upload("en_metropolis_demo.pdf", DECK))
    assert (again.unit_id, again.unit_name, again.attachment_version) == (FIRST_UNIT_ID, "Hash tables", 1)


def test_a_lecture_left_empty_is_removed_and_uploads_find_their_lecture_again(tmp_path: Path) -> None:
    add_upload(tmp_path, Upload("one.pdf", DECK))
    update_unit(tmp_path, FIRST_UNIT_ID, lecture_name="Week 1")
    assert [lec.name for lec in load_course(tmp_path).lectures] == ["Week 1"]
    update_unit(tmp_path, FIRST_UNIT_ID, lecture_name="Week 1")  # the same name: nothing moves
    add_upload(tmp_path, Upload("two.pdf", OTHER))
    course = load_course(tmp_path)
    assert [(lec.name, [u.id for u in lec.units]) for lec in course.lectures] == [
        ("Week 1", [9001]), ("Uploaded decks", [9002])]
    assert len({lec.id for lec in course.lectures}) == 2


def test_the_material_reloads_with_the_new_metadata_and_the_same_versions(tmp_path: Path) -> None:
    add_upload(tmp_path, Upload("deck.pdf", DECK))
    update_unit(tmp_path, FIRST_UNIT_ID, name="Hashing")
    material = load_material(tmp_path)
    um = material.unit(FIRST_UNIT_ID)
    assert um.unit.name == "Hashing" and um.unit.versions.attachment == 1
    assert {c.lecture_unit_name for c in um.chunks} == {"Hashing"}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"name": "   "}, "unit 9001: name: must not be empty"),
        ({"lecture_name": ""}, "unit 9001: lecture name: must not be empty"),
        ({"name": "x" * 201}, "unit 9001: name: 201 characters, at most 200"),
        ({"language": "english!"},
         "unit 9001: language: expected a language code like 'en' or 'pt-BR', got 'english!'"),
    ],
)
def test_bad_metadata_is_one_line_and_changes_nothing(tmp_path: Path, changes: dict[str, str], message: str) -> None:
    add_upload(tmp_path, Upload("deck.pdf", DECK))
    before = (tmp_path / "course.yml").read_bytes()
    with pytest.raises(MaterialError) as err:
        update_unit(tmp_path, FIRST_UNIT_ID, **changes)  # type: ignore[arg-type]
    assert str(err.value) == message
    assert (tmp_path / "course.yml").read_bytes() == before


def test_an_unknown_unit_or_an_empty_library(tmp_path: Path) -> None:
    with pytest.raises(MaterialError, match="^unit 9001: the library has no uploads yet$"):
        update_unit(tmp_path, FIRST_UNIT_ID, name="x")
    add_upload(tmp_path, Upload("deck.pdf", DECK))
    with pytest.raises(MaterialError, match="^unit 42: no such unit in the library$"):
        update_unit(tmp_path, 42, name="x")


def test_metadata_edits_keep_the_rest_of_the_manifest(tmp_path: Path) -> None:
    add_upload(tmp_path, Upload("deck.pdf", DECK), Upload("talk.vtt", VTT))
    data = yaml.safe_load((tmp_path / "course.yml").read_text(encoding="utf-8"))
    data["lectures"][0]["units"][0]["hidden_pages"] = [2]
    (tmp_path / "course.yml").write_text(yaml.safe_dump(data), encoding="utf-8")
    unit = update_unit(tmp_path, FIRST_UNIT_ID, name="Renamed")
    assert unit.hidden_pages == frozenset({2}) and unit.transcript is not None


# --- progress while the page images are read ----------------------------------------------------


@pytest.mark.skipif(ocr.ocr_unavailable() is not None, reason=f"OCR: {ocr.ocr_unavailable()}")
def test_an_upload_that_reads_page_images_reports_progress_and_loads_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ocr.CACHE_ENV, str(tmp_path / "cache"))
    (spec,) = build_decks(tmp_path / "decks", ["folie_top_right_images"])
    seen: list[tuple[int, int]] = []
    result = add_upload(tmp_path / "lib", Upload("folien.pdf", spec.path.read_bytes()),
                        progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (len(spec.expected), len(spec.expected)) and len(seen) == len(spec.expected)
    assert decks_to_read(tmp_path / "lib") == []  # the stored copy has the same content: already read

    def no_reading(*_: object) -> None:
        raise AssertionError("the page images were read again")

    monkeypatch.setattr(ocr, "_read_document", no_reading)
    deck = load_material(tmp_path / "lib").unit(result.unit_id).deck
    assert deck is not None and {p.display_source for p in deck.pages} == {"ocr", "none"}


@pytest.mark.skipif(ocr.ocr_unavailable() is not None, reason=f"OCR: {ocr.ocr_unavailable()}")
def test_decks_to_read_lists_the_decks_not_read_yet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ocr.CACHE_ENV, str(tmp_path / "cache"))
    (spec,) = build_decks(tmp_path / "decks", ["lone_top_right_vectors"])
    add_upload(tmp_path / "lib", Upload("vectors.pdf", spec.path.read_bytes()))
    monkeypatch.setenv(ocr.CACHE_ENV, str(tmp_path / "another_cache"))
    assert [u.id for u in decks_to_read(tmp_path / "lib")] == [FIRST_UNIT_ID]
    assert decks_to_read(tmp_path / "nothing_here") == []


def test_terminal_progress_draws_only_on_a_terminal() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert ocr.terminal_progress("Reading", io.StringIO()) is None
    screen = Terminal()
    show = ocr.terminal_progress("Reading deck.pdf", screen)
    assert show is not None
    show(1, 2)
    show(2, 2)
    assert screen.getvalue() == ("\rReading deck.pdf: page 1 of 2\rReading deck.pdf: page 2 of 2"
                                 "\r" + " " * len("Reading deck.pdf: page 2 of 2") + "\r")
