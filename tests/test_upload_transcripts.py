"""A unit's transcript on its own: added, replaced and removed without its deck, its language read and said,
each change worded as what it did; and a transcript uploaded with an unchanged deck is said as added."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from citation_core.errors import MaterialError
from citation_core.material.course import load_course
from citation_core.material.library import load_material
from citation_core.material.upload_messages import transcript_message, upload_message
from citation_core.material.uploads import (
    FIRST_UNIT_ID,
    Upload,
    add_upload,
    remove_transcript,
    set_transcript,
)
from tests.conftest import SAMPLE_COURSE
from tests.material_fixtures import GERMAN_VTT, PAINLESS_SRT

DECK = (SAMPLE_COURSE / "decks" / "hash_tables.pdf").read_bytes()
REAL_SRT = Upload(PAINLESS_SRT.name, PAINLESS_SRT.read_bytes())  # 919 cues of an English talk
GERMAN = Upload("vorlesung.vtt", GERMAN_VTT.encode("utf-8"))
UNIT = FIRST_UNIT_ID


@pytest.fixture()
def library(tmp_path: Path) -> Path:
    """A library with one deck (unit 9001 "hash tables", English) and no transcript."""
    root = tmp_path / "library"
    add_upload(root, Upload("hash_tables.pdf", DECK))
    return root


def stored(root: Path) -> dict[str, object]:
    unit: dict[str, object] = yaml.safe_load((root / "course.yml").read_text(encoding="utf-8"))["lectures"][0][
        "units"][0]
    return unit


def files(root: Path, folder: str) -> list[str]:
    return sorted(p.name for p in (root / folder).iterdir()) if (root / folder).is_dir() else []


def test_a_transcript_is_added_replaced_and_removed_on_its_own_and_the_deck_stays(library: Path) -> None:
    deck_path = library / "decks" / "9001_hash_tables.pdf"

    added = set_transcript(library, UNIT, REAL_SRT)
    assert (added.change.action, added.change.cues, added.change.language) == ("added", 919, "en")
    assert transcript_message(added) == (
        "Transcript en_google_PainlessPython_part1.srt added to unit 9001 “hash tables” (English, 919 cues).")
    assert (added.warnings, added.stales_answers, added.video_version) == ((), False, 1)
    assert files(library, "transcripts") == ["9001_hash_tables.srt"]
    material = load_material(library)  # the library loads with it, and the transcript is the unit's
    assert material.unit(UNIT).transcript is not None and len(material.unit(UNIT).transcript.cues) == 919

    replaced = set_transcript(library, UNIT, GERMAN)
    assert (replaced.change.action, replaced.change.cues, replaced.change.language) == ("replaced", 4, "de")
    assert transcript_message(replaced) == (
        "Transcript vorlesung.vtt replaced the transcript of unit 9001 “hash tables” (German, 4 cues); the deck "
        "stays. Answers stored for the old transcript now show as stale.")
    # the unit's deck is in English: said at once, naming the file and the unit
    assert replaced.warnings == ("vorlesung.vtt: the transcript is in German, the deck of unit 9001 “hash tables” "
                                 "in English: answers quote each in its own language",)
    assert (replaced.stales_answers, replaced.video_version) == (True, 2)
    assert files(library, "transcripts") == ["9001_hash_tables.vtt"]  # the .srt it replaced is gone

    removed = remove_transcript(library, UNIT)
    assert transcript_message(removed) == (
        "Transcript 9001_hash_tables.vtt removed from unit 9001 “hash tables”; the deck stays. Answers stored "
        "earlier can no longer open the transcript they cite.")
    assert (removed.change.action, removed.video_version) == ("removed", 3)
    assert files(library, "transcripts") == [] and "transcript" not in stored(library)

    # the deck was never touched: same bytes, same attachment version, same unit
    unit = load_course(library).unit(UNIT)
    assert deck_path.read_bytes() == DECK and unit.deck == deck_path and unit.transcript is None
    assert (unit.name, unit.versions.attachment, unit.versions.video) == ("hash tables", 1, 3)


def test_the_same_transcript_again_changes_nothing(library: Path) -> None:
    set_transcript(library, UNIT, GERMAN)
    manifest = library / "course.yml"
    before = (manifest.read_bytes(), manifest.stat().st_mtime_ns)
    again = set_transcript(library, UNIT, Upload("copy.vtt", GERMAN.data))
    assert (again.change.action, again.stales_answers, again.video_version) == ("unchanged", False, 1)
    assert transcript_message(again) == (
        "Transcript copy.vtt is the same file as the transcript of unit 9001 “hash tables”: nothing changed "
        "(German, 4 cues).")
    assert (manifest.read_bytes(), manifest.stat().st_mtime_ns) == before


def test_a_transcript_added_after_a_removal_makes_older_answers_stale(library: Path) -> None:
    # answers stored while the first transcript was there cite video version 1; another transcript added
    # after a removal must not pass for it
    set_transcript(library, UNIT, GERMAN)
    remove_transcript(library, UNIT)
    again = set_transcript(library, UNIT, REAL_SRT)
    assert again.change.action == "added" and again.video_version == 2


def test_a_transcript_too_short_to_tell_its_language_says_so(library: Path) -> None:
    short = Upload("kurz.vtt", b"WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nOkay.\n")
    added = set_transcript(library, UNIT, short)
    assert added.change.language is None and added.warnings == ()
    assert transcript_message(added) == (
        "Transcript kurz.vtt added to unit 9001 “hash tables” (language not told (too little text), 1 cue).")


def test_a_transcript_in_the_units_language_is_not_warned_about(library: Path) -> None:
    from citation_core.material.uploads import update_unit

    update_unit(library, UNIT, language="de-AT")  # a regional code counts as its language
    assert set_transcript(library, UNIT, GERMAN).warnings == ()


@pytest.mark.parametrize(
    ("unit_id", "transcript", "message"),
    [
        (9999, GERMAN, "unit 9999: no such unit in the library"),
        (UNIT, Upload("notes.txt", b"x"), "notes.txt: a transcript must be .vtt or .srt, got .txt"),
        (UNIT, Upload("empty.vtt", b""), "empty.vtt: the file is empty"),
        (UNIT, Upload("../../evil.srt", b"1\nnot a time\nhello\n"), "evil.srt: "),
    ],
)
def test_bad_transcripts_and_units_are_one_line_and_change_nothing(
        library: Path, unit_id: int, transcript: Upload, message: str) -> None:
    set_transcript(library, UNIT, GERMAN)
    before = {p: p.read_bytes() for p in library.rglob("*") if p.is_file()}
    with pytest.raises(MaterialError) as err:
        set_transcript(library, unit_id, transcript)
    assert str(err.value).startswith(message) and "\n" not in str(err.value), str(err.value)
    assert {p: p.read_bytes() for p in library.rglob("*") if p.is_file()} == before


def test_removing_what_is_not_there_is_one_line(library: Path, tmp_path: Path) -> None:
    with pytest.raises(MaterialError, match=r"^unit 9001: it has no transcript to remove$"):
        remove_transcript(library, UNIT)
    with pytest.raises(MaterialError, match=r"^unit 9002: no such unit in the library$"):
        remove_transcript(library, 9002)
    with pytest.raises(MaterialError, match=r"^unit 9001: the library has no uploads yet$"):
        set_transcript(tmp_path / "empty", UNIT, GERMAN)
    assert not (tmp_path / "empty").exists()


def test_a_transcript_uploaded_with_an_unchanged_deck_is_said_as_added(library: Path) -> None:
    again = add_upload(library, Upload("hash_tables.pdf", DECK), GERMAN)
    assert (again.deck_changed, again.transcript is not None and again.transcript.action) == (False, "added")
    message = upload_message(again)
    assert message == (
        "The deck of “hash tables” in the course “My uploads”, lecture “Uploaded decks” is the same file as the "
        "stored one, so its version stays (unit 9001, 16 pages, language English (en), attachment version 1). "
        "Transcript vorlesung.vtt added (German, 4 cues).")
    assert "unchanged" not in message
    replaced = add_upload(library, Upload("hash_tables.pdf", DECK), REAL_SRT)
    assert upload_message(replaced).endswith(
        "Transcript en_google_PainlessPython_part1.srt replaced the stored one (English, 919 cues). Answers stored "
        "for the old transcript now show as stale.")
    same = add_upload(library, Upload("hash_tables.pdf", DECK), REAL_SRT)
    assert upload_message(same) == (
        "“hash tables” in the course “My uploads”, lecture “Uploaded decks” is unchanged: the deck is the same file "
        "as the stored one, so its version stays (unit 9001, 16 pages, language English (en), attachment version "
        "1). Transcript en_google_PainlessPython_part1.srt is the same file as the stored one (English, 919 cues).")
