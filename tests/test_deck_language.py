"""The language of a deck, read from its text: at upload, in the upload form's suggestion and in ``deck --json``."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from citation_core.cli.main import main
from citation_core.errors import MaterialError
from citation_core.material.course import load_course
from citation_core.material.deck import load_deck
from citation_core.material.uploads import (
    FIRST_UNIT_ID,
    UPLOAD_LECTURE_NAME,
    Upload,
    add_upload,
    deck_language,
    deck_title,
    suggest_unit,
)
from citation_core.text import languages
from citation_core.text.languages import detect_text_language
from tests.conftest import REAL_DIR, SAMPLE_COURSE
from tests.material_fixtures import make_pdf

GERMAN = SAMPLE_COURSE / "decks" / "binaere_suchbaeume.pdf"  # "Binäre Suchbäume", German slides
ENGLISH = SAMPLE_COURSE / "decks" / "hash_tables.pdf"
REAL_DECKS = sorted((REAL_DIR / "decks").glob("*.pdf")) if REAL_DIR.is_dir() else []


@pytest.fixture()
def without_lingua(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """As if lingua (which comes with the app's extra) were not installed."""
    languages._lingua.cache_clear()
    monkeypatch.setitem(sys.modules, "lingua", None)  # import lingua raises ImportError
    yield
    languages._lingua.cache_clear()


def test_the_text_of_a_german_deck_is_german_and_of_an_english_one_english() -> None:
    assert deck_language(load_deck(GERMAN, read_images=False)) == "de"
    assert deck_language(load_deck(ENGLISH, read_images=False)) == "en"


@pytest.mark.real
@pytest.mark.parametrize("path", REAL_DECKS, ids=lambda p: p.name)
def test_the_real_decks_are_read_in_their_language(path: Path) -> None:
    assert deck_language(load_deck(path, read_images=False)) == path.name.split("_")[0]  # en_…, de_…


def test_a_text_too_short_to_tell_has_no_language() -> None:
    assert detect_text_language("") is None
    assert detect_text_language("x = 3 · 4 → 12, O(n)") is None
    assert detect_text_language("Das ist ein sehr kurzer, aber deutscher Satz über Bäume.") == "de"
    assert detect_text_language("Une pile est une structure de données où le dernier entré sort le premier.") == "fr"


def test_without_lingua_the_stop_words_tell_the_language(without_lingua: None) -> None:
    assert languages._lingua() is None
    assert deck_language(load_deck(GERMAN, read_images=False)) == "de"
    assert deck_language(load_deck(ENGLISH, read_images=False)) == "en"
    assert detect_text_language("Hashing Chaining Buckets Probing Collisions Table") is None  # nothing decides


def test_an_uploaded_german_deck_is_german_without_being_told(tmp_path: Path) -> None:
    res = add_upload(tmp_path, Upload("baeume.pdf", GERMAN.read_bytes()))
    assert res.language == "de" and load_course(tmp_path).unit(res.unit_id).language == "de"
    english = add_upload(tmp_path, Upload("hash_tables.pdf", ENGLISH.read_bytes()))
    assert english.language == "en"


def test_a_language_given_at_upload_wins_and_a_reupload_keeps_the_units_own(tmp_path: Path) -> None:
    res = add_upload(tmp_path, Upload("baeume.pdf", GERMAN.read_bytes()), language="en")
    assert res.language == "en"
    again = add_upload(tmp_path, Upload("baeume.pdf", ENGLISH.read_bytes()))  # changed content, nothing told
    assert (again.replaced, again.language) == (True, "en")


def test_upload_names_the_unit_its_lecture_and_course(tmp_path: Path) -> None:
    res = add_upload(tmp_path, Upload("baeume.pdf", GERMAN.read_bytes()), name="  Binäre   Suchbäume ",
                     lecture_name="Vorlesung 3", language="de")
    assert (res.unit_name, res.lecture_name, res.language, res.course_name, res.course_id) == (
        "Binäre Suchbäume", "Vorlesung 3", "de", "My uploads", 900)
    unit = load_course(tmp_path).unit(res.unit_id)
    assert (unit.name, unit.lecture_name, unit.versions.attachment) == ("Binäre Suchbäume", "Vorlesung 3", 1)
    # the same file again with another name: the metadata changes, the version stays
    again = add_upload(tmp_path, Upload("baeume.pdf", GERMAN.read_bytes()), name="Suchbäume",
                       lecture_name=UPLOAD_LECTURE_NAME)
    assert (again.deck_changed, again.attachment_version, again.unit_name, again.lecture_name) == (
        False, 1, "Suchbäume", UPLOAD_LECTURE_NAME)
    data = yaml.safe_load((tmp_path / "course.yml").read_text(encoding="utf-8"))
    assert [lec["name"] for lec in data["lectures"]] == [UPLOAD_LECTURE_NAME]  # the emptied lecture went


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"name": "  "}, "upload: name: must not be empty"),
    ({"lecture_name": "x" * 201}, "upload: lecture name: 201 characters, at most 200"),
    ({"language": "Deutsch!"}, "upload: language: expected a language code like 'en' or 'pt-BR', got 'Deutsch!'"),
])
def test_a_bad_name_lecture_or_language_stores_nothing(tmp_path: Path, kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(MaterialError) as err:
        add_upload(tmp_path / "lib", Upload("baeume.pdf", GERMAN.read_bytes()), **kwargs)  # type: ignore[arg-type]
    assert str(err.value) == message
    assert not (tmp_path / "lib").exists()


def test_the_form_is_offered_the_pdf_title_and_the_language_of_the_text(tmp_path: Path) -> None:
    german = suggest_unit(tmp_path, Upload("folien.pdf", GERMAN.read_bytes()))
    assert (german.name, german.lecture_name, german.language, german.detected, german.existing) == (
        "Binäre Suchbäume", UPLOAD_LECTURE_NAME, "de", "de", None)
    # a deck without a title in its metadata is offered its file name
    make_pdf(tmp_path / "untitled.pdf", [["Stacks and queues", "A stack is last in, first out: push and pop "
                                          "work on the same end of the list"]])
    plain = suggest_unit(tmp_path, Upload("stacks_and_queues.pdf", (tmp_path / "untitled.pdf").read_bytes()))
    assert (plain.name, plain.title, plain.language) == ("stacks and queues", None, "en")


def test_a_reupload_is_offered_its_units_own_name_lecture_and_language(tmp_path: Path) -> None:
    res = add_upload(tmp_path, Upload("baeume.pdf", GERMAN.read_bytes()), name="Trees", lecture_name="Week 3",
                     language="en")
    again = suggest_unit(tmp_path, Upload("baeume.pdf", GERMAN.read_bytes()))
    assert (again.name, again.lecture_name, again.language, again.detected, again.existing) == (
        "Trees", "Week 3", "en", "de", res.unit_id)


def test_a_file_that_is_no_pdf_is_said_at_once_and_offered_its_file_name(tmp_path: Path) -> None:
    offer = suggest_unit(tmp_path, Upload("notes_week_2.pdf", b"not a pdf at all"))
    assert (offer.name, offer.language, offer.detected, offer.title) == ("notes week 2", "en", None, None)
    # what adding it would say, said when it is chosen (one line naming the file as it was uploaded)
    assert offer.problem == "notes_week_2.pdf: not a PDF file (no %PDF header)"
    assert suggest_unit(tmp_path, Upload("empty.pdf", b"")).problem == "empty.pdf: the file is empty"
    srt = suggest_unit(tmp_path, Upload("lecture 3.srt", b"1\n00:00:01,000 --> 00:00:02,000\nHello\n"))
    assert (srt.name, srt.problem) == ("lecture 3", "lecture 3.srt: a deck must be .pdf, got .srt")
    assert suggest_unit(tmp_path, Upload("folien.pdf", GERMAN.read_bytes())).problem is None


def test_pdf_titles_are_cleaned_or_left_out(tmp_path: Path) -> None:
    from pypdf import PdfReader, PdfWriter

    def titled(title: str) -> bytes:
        writer = PdfWriter(clone_from=PdfReader(ENGLISH))
        writer.add_metadata({"/Title": title})
        out = io.BytesIO()
        writer.write(out)
        return out.getvalue()

    assert deck_title(ENGLISH.read_bytes()) == "Hash Tables"
    assert deck_title(titled("Microsoft PowerPoint - Lecture 4 Heaps.pptx")) == "Lecture 4 Heaps"
    assert deck_title(titled("  Graphs\n\tand\x00 trees ")) == "Graphs and trees"
    assert deck_title(titled("Untitled")) is None
    assert deck_title(titled("12.pdf")) is None
    assert len(deck_title(titled("T" * 500)) or "") == 200
    assert deck_title(b"%PDF-1.4 broken") is None


def test_deck_json_names_the_language_of_the_deck(capsys: pytest.CaptureFixture[str]) -> None:
    for path, language in ((GERMAN, "de"), (ENGLISH, "en")):
        assert main(["deck", str(path), "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["language"] == language and len(data["pages"]) == len(load_deck(path).pages)


@pytest.mark.real
@pytest.mark.parametrize("path", REAL_DECKS, ids=lambda p: p.name)
def test_deck_json_of_the_real_decks_says_their_language(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deck", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["language"] == path.name.split("_")[0]


def test_the_upload_reads_the_language_once_the_unit_is_new(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A re-upload keeps the unit's language: the deck's text is not judged again."""
    add_upload(tmp_path, Upload("baeume.pdf", GERMAN.read_bytes()))
    seen: list[str] = []
    monkeypatch.setattr("citation_core.material.uploads.detect_text_language",
                        lambda text: seen.append(text) or "fr")
    again = add_upload(tmp_path, Upload("baeume.pdf", ENGLISH.read_bytes()))
    assert (again.language, seen) == ("de", [])
    assert load_course(tmp_path).unit(FIRST_UNIT_ID).language == "de"


MATERIAL_REAL = Path(__file__).parent / "material_real" / "decks"


@pytest.mark.parametrize("name", ["de_git_branches.pdf", "en_nlp_rag.pdf"])
def test_the_real_decks_in_the_tests_read_as_their_language(name: str) -> None:
    """A German lecture deck full of console output and commit graphs, and an English one."""
    path = MATERIAL_REAL / name
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    assert deck_language(load_deck(path, read_images=False)) == name[:2]
    assert suggest_unit(Path("/nonexistent-library"), Upload(name, path.read_bytes())).language == name[:2]
