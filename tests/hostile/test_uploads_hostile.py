"""Uploads with hostile file names: a browser's name is shown, never used as a path.

Whatever the name (``../`` runs, an absolute path, ``\\``, NUL, only dots, HTML with ``/``), nothing
is written outside the library folder, a good file lands under a name the library makes up, and a
bad one is one MaterialError line naming the file as the user knows it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from citation_core.errors import MaterialError
from citation_core.material.course import load_course
from citation_core.material.uploads import Upload, add_upload, display_name
from tests.conftest import SAMPLE_COURSE

DECK = (SAMPLE_COURSE / "decks" / "hash_tables.pdf").read_bytes()
VTT = (SAMPLE_COURSE / "transcripts" / "merge_sort.vtt").read_bytes()
FAQS = b"- id: 1\n  question: Is it stable?\n  answer: Yes.\n"


def escape_to(target: Path) -> str:
    """A relative name that climbs from any folder to ``target`` (seven ``..`` reach ``/`` from /tmp/x/y)."""
    return "../" * 12 + str(target).lstrip("/")


def everything_outside(tmp_path: Path, library: Path) -> list[str]:
    """Every file below ``tmp_path`` that is not in the library folder."""
    found: list[str] = []
    for folder, _, files in os.walk(tmp_path):
        if Path(folder) == library or library in Path(folder).parents:
            continue
        found.extend(str(Path(folder, f).relative_to(tmp_path)) for f in files)
    return sorted(found)


@pytest.fixture()
def places(tmp_path: Path) -> tuple[Path, Path]:
    library, outside = tmp_path / "library", tmp_path / "outside"
    outside.mkdir()
    return library, outside


@pytest.mark.parametrize(
    ("name", "shown", "deck_file"),
    [
        ("{escape}/ESCAPED.pdf", "ESCAPED.pdf", "9001_ESCAPED.pdf"),
        ("{outside}/ABSOLUTE.pdf", "ABSOLUTE.pdf", "9001_ABSOLUTE.pdf"),
        ("..\\..\\..\\outside\\BACKSLASH.pdf", "BACKSLASH.pdf", "9001_BACKSLASH.pdf"),
        ("nul\x00byte.pdf", "nul byte.pdf", "9001_nul_byte.pdf"),
        ("<script>alert(1)</script>.pdf", "script>.pdf", "9001_script.pdf"),
        ("....pdf", "....pdf", "9001_deck.pdf"),
        ("line\nbreak\u202e.pdf", "line break .pdf", "9001_line_break.pdf"),
        ("x" * 5000 + ".pdf", "x" * 75 + "….pdf", "9001_" + "x" * 60 + ".pdf"),
    ],
    ids=["dot-dot-run", "absolute", "backslashes", "nul", "html-with-slash", "only-dots-and-suffix",
         "control-and-format-characters", "5000-characters"],
)
def test_a_good_deck_with_a_hostile_name_lands_inside_the_library(
    tmp_path: Path, places: tuple[Path, Path], name: str, shown: str, deck_file: str
) -> None:
    library, outside = places
    name = name.format(escape=escape_to(outside).rstrip("/"), outside=outside)
    result = add_upload(library, Upload(name, DECK))
    assert (result.unit_id, result.unit_name, result.pages, result.replaced) == (
        9001, shown.removesuffix(".pdf").strip(), 16, False)
    (unit,) = load_course(library).units
    assert unit.deck == library.resolve() / "decks" / deck_file and unit.deck.read_bytes() == DECK
    manifest = yaml.safe_load((library / "course.yml").read_text(encoding="utf-8"))
    assert manifest["lectures"][0]["units"][0]["source_name"] == shown
    assert everything_outside(tmp_path, library) == []
    assert sorted(p.name for p in library.iterdir()) == [".lock", "course.yml", "decks"]  # no scratch left


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("{escape}/ESCAPED.pdf", "ESCAPED.pdf: not a PDF file (no %PDF header)"),
        ("{outside}/ABSOLUTE.pdf", "ABSOLUTE.pdf: not a PDF file (no %PDF header)"),
        ("<script>alert(1)</script>.pdf", "script>.pdf: not a PDF file (no %PDF header)"),
        ("..", "..: a deck must be .pdf, got no extension"),
        ("...", "...: a deck must be .pdf, got no extension"),
        ("", "unnamed: a deck must be .pdf, got no extension"),
        ("{outside}/", "unnamed: a deck must be .pdf, got no extension"),
        ("{escape}/notes.txt", "notes.txt: a deck must be .pdf, got .txt"),
    ],
    ids=["dot-dot-run", "absolute", "html-with-slash", "two-dots", "three-dots", "empty", "a-folder",
         "wrong-suffix"],
)
def test_a_rejected_upload_with_a_hostile_name_writes_nothing_outside(
    tmp_path: Path, places: tuple[Path, Path], name: str, message: str
) -> None:
    library, outside = places
    name = name.format(escape=escape_to(outside).rstrip("/"), outside=outside)
    with pytest.raises(MaterialError) as err:
        add_upload(library, Upload(name, b"this is not a pdf"))
    assert str(err.value) == message
    assert everything_outside(tmp_path, library) == []
    assert not library.exists() or list(library.iterdir()) == []  # the scratch copy is gone too


def test_hostile_transcript_and_faq_names_land_inside_and_warnings_name_the_upload(
    tmp_path: Path, places: tuple[Path, Path]
) -> None:
    library, outside = places
    vtt = b"WEBVTT\n\n1\n00:00:05.000 --> 00:00:09.000\nlater\n\n2\n00:00:01.000 --> 00:00:03.000\nearlier\n"
    result = add_upload(
        library,
        Upload("hash_tables.pdf", DECK),
        Upload(escape_to(outside / "talk.vtt"), vtt),
        Upload(str(outside / "faqs.yml"), FAQS),
    )
    assert result.warnings == (
        "talk.vtt: cue 2 is out of order: it starts at 1.000 s, before cue 1 (5.000 s)",
    )
    (unit,) = load_course(library).units
    assert unit.transcript == library.resolve() / "transcripts" / "9001_hash_tables.vtt"
    assert [f.question for f in load_course(library).faqs] == ["Is it stable?"]
    assert everything_outside(tmp_path, library) == []


@pytest.mark.parametrize(
    ("transcript", "faqs", "message"),
    [
        (Upload("../../outside/talk.vtt", b"WEBVTT\n\n"), None, "talk.vtt: empty transcript (no cues)"),
        (Upload("..\\talk.srt", b"1\n99999999999999999999:00:01,000 --> 00:00:02,000\nx\n"), None,
         "talk.srt: cue 1: time after the largest timestamp 9999999999:59:59.999 in "
         "'99999999999999999999:00:01,000 --> 00:00:02,000'"),
        (None, Upload("/outside/faqs.yml", b"[" * 5000 + b"]" * 5000), "faqs.yml: invalid YAML: nested too deeply"),
        (None, Upload("../faqs.yml", b"- id: x\n"), "faqs.yml: [0].id: expected an integer, got 'x'"),
    ],
    ids=["empty-transcript", "20-digit-hour", "deep-faqs", "bad-faq-id"],
)
def test_bad_companion_files_are_named_as_uploaded(
    tmp_path: Path, places: tuple[Path, Path], transcript: Upload | None, faqs: Upload | None, message: str
) -> None:
    library, _ = places
    with pytest.raises(MaterialError) as err:
        add_upload(library, Upload("hash_tables.pdf", DECK), transcript, faqs)
    assert str(err.value) == message
    assert not (library / "course.yml").exists()
    assert everything_outside(tmp_path, library) == []


def test_a_reupload_under_a_hostile_name_replaces_the_same_unit(places: tuple[Path, Path]) -> None:
    library, outside = places
    first = add_upload(library, Upload(escape_to(outside / "deck.pdf"), DECK))
    second = add_upload(library, Upload("C:\\Users\\me\\deck.pdf", DECK + b"\n"))  # changed content
    assert (first.unit_id, second.unit_id, second.replaced, second.attachment_version) == (9001, 9001, True, 2)


def test_a_manifest_path_that_leaves_the_library_is_refused(tmp_path: Path, places: tuple[Path, Path]) -> None:
    library, outside = places
    add_upload(library, Upload("deck.pdf", DECK))
    manifest = library / "course.yml"
    data = yaml.safe_load(manifest.read_text(encoding="utf-8"))
    (outside / "victim.pdf").write_bytes(DECK)
    data["lectures"][0]["units"][0]["deck"] = "../outside/victim.pdf"
    manifest.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(MaterialError) as err:
        add_upload(library, Upload("deck.pdf", b"%PDF-1.4 replaced" + DECK))
    assert str(err.value) == (
        "course.yml: '../outside/victim.pdf' is outside the library folder; the upload was not stored")
    assert (outside / "victim.pdf").read_bytes() == DECK


def test_a_lock_file_planted_as_a_link_is_not_followed(tmp_path: Path, places: tuple[Path, Path]) -> None:
    library, outside = places
    library.mkdir()
    (outside / "precious.txt").write_text("keep me", encoding="utf-8")
    (library / ".lock").symlink_to(outside / "precious.txt")
    with pytest.raises(MaterialError) as err:
        add_upload(library, Upload("deck.pdf", DECK))
    assert str(err.value) == f"{library / '.lock'}: cannot lock the library folder (Too many levels of symbolic links)"
    assert (outside / "precious.txt").read_text(encoding="utf-8") == "keep me"


@pytest.mark.parametrize(
    ("name", "shown"),
    [("a/b\\c.pdf", "c.pdf"), ("  spaced   out .pdf ", "spaced out .pdf"), ("\x00\x01", "unnamed"),
     ("é" * 100 + ".vtt", "é" * 75 + "….vtt")],
)
def test_display_name(name: str, shown: str) -> None:
    assert display_name(name) == shown


def test_names_given_in_the_library_are_stored_without_terminal_controls(tmp_path: Path) -> None:
    """ESC, BEL, NUL, a right-to-left override and a zero-width space typed (or pasted) into a unit's name and
    lecture are not stored: what a terminal or a page later shows cannot be steered by them."""
    import yaml

    from citation_core.material.uploads import Upload, add_upload, update_unit
    from tests.conftest import SAMPLE_COURSE

    lib = tmp_path / "library"
    add_upload(lib, Upload("hash_tables.pdf", (SAMPLE_COURSE / "decks" / "hash_tables.pdf").read_bytes()))
    update_unit(lib, 9001, name="Hash\x1b]0;pwned\x07ing\u202e\u200b", lecture_name="Lec\x00ture\x1b[2J 2")
    stored = (lib / "course.yml").read_text(encoding="utf-8")
    assert not any(c in stored for c in "\x1b\x07\x00\u202e\u200b")
    data = yaml.safe_load(stored)
    lecture = next(lec for lec in data["lectures"] if any(u["id"] == 9001 for u in lec["units"]))
    unit = next(u for u in lecture["units"] if u["id"] == 9001)
    assert (unit["name"], lecture["name"]) == ("Hash ]0;pwned ing", "Lec ture [2J 2")


def test_a_transcript_name_with_markdown_is_shown_as_written_in_the_library(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The transcript's expander label is Markdown: a file named with an image link would make the browser fetch
    it. The label shows the name escaped."""
    import shutil

    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from studio.keys import W_LIBRARY_COURSE
    from tests.conftest import ROOT
    from tests.material_fixtures import make_course

    root = make_course(tmp_path / "course").parent
    name = "t![p](p.png)**b**.vtt"
    shutil.move(root / "transcripts" / "merge_sort.vtt", root / "transcripts" / name)
    manifest = (root / "course.yml").read_text(encoding="utf-8").replace("transcripts/merge_sort.vtt",
                                                                         f"'transcripts/{name}'")
    manifest = manifest.replace("id: 1\nname: Algorithms and Data Structures", "id: 77\nname: Hostile names")
    (root / "course.yml").write_text(manifest, encoding="utf-8")
    monkeypatch.setenv("CITATION_STUDIO_DB", str(tmp_path / "lms.sqlite3"))
    monkeypatch.setenv("CITATION_STUDIO_LIBRARY", str(root))
    monkeypatch.chdir(ROOT)
    st.cache_resource.clear()
    st.cache_data.clear()
    try:
        at = AppTest.from_file(str(ROOT / "pages" / "library.py"), default_timeout=120).run()
        at.selectbox(key=W_LIBRARY_COURSE).select("Hostile names (id 77)").run()
        assert not at.exception, at.exception
        labels = [e.label for e in at.expander if e.label.startswith("Transcript")]
        assert labels == ["Transcript t\\!\\[p\\]\\(p\\.png\\)\\*\\*b\\*\\*\\.vtt · 2 cues"]
    finally:
        st.cache_resource.clear()
        st.cache_data.clear()
