"""Library uploads: good decks land in the library course, bad files give one clear error each."""

from __future__ import annotations

from pathlib import Path

import pytest

from citation_core.errors import MaterialError
from citation_core.material.course import load_course
from citation_core.material.uploads import Upload, add_upload
from tests.conftest import SAMPLE_COURSE

DECK = (SAMPLE_COURSE / "decks" / "hash_tables.pdf").read_bytes()
VTT = (SAMPLE_COURSE / "transcripts" / "merge_sort.vtt").read_bytes()


def test_upload_creates_a_unit_and_a_changed_reupload_bumps_the_attachment_version(tmp_path: Path) -> None:
    first = add_upload(tmp_path, Upload("hash_tables.pdf", DECK), Upload("talk.vtt", VTT))
    assert (first.unit_id, first.attachment_version, first.replaced, first.pages) == (9001, 1, False, 16)
    course = load_course(tmp_path)
    (unit,) = course.units
    assert unit.deck is not None and unit.deck.read_bytes() == DECK and unit.transcript is not None
    same = add_upload(tmp_path, Upload("hash_tables.pdf", DECK))  # identical content: the version stays
    assert (same.unit_id, same.attachment_version, same.replaced, same.deck_changed) == (9001, 1, True, False)
    second = add_upload(tmp_path, Upload("hash_tables.pdf", DECK + b"\n"))
    assert (second.unit_id, second.attachment_version, second.replaced) == (9001, 2, True)
    assert load_course(tmp_path).units[0].versions.attachment == 2
    other = add_upload(tmp_path, Upload("merge.pdf", (SAMPLE_COURSE / "decks" / "merge_sort.pdf").read_bytes()))
    assert other.unit_id == 9002 and len(load_course(tmp_path).units) == 2


@pytest.mark.parametrize(
    ("deck", "transcript", "needle"),
    [
        (Upload("notes.txt", b"hello"), None, "notes.txt: a deck must be .pdf"),
        (Upload("fake.pdf", b"this is not a pdf at all"), None, "fake.pdf"),
        (Upload("cut.pdf", DECK[: len(DECK) // 3]), None, "cut.pdf"),
        (Upload("empty.pdf", b""), None, "empty.pdf: the file is empty"),
        (Upload("big.pdf", DECK), None, "larger than the 0 MB upload limit"),
        (Upload("ok.pdf", DECK), Upload("talk.vtt", b"WEBVTT\n\n"), "talk.vtt"),
        (Upload("ok.pdf", DECK), Upload("talk.txt", b"x"), "talk.txt: a transcript must be .vtt or .srt"),
    ],
)
def test_bad_uploads_give_one_clear_error_and_change_nothing(
    tmp_path: Path, deck: Upload, transcript: Upload | None, needle: str
) -> None:
    limit = 100 if "big" in deck.name else 50_000_000
    with pytest.raises(MaterialError) as err:
        add_upload(tmp_path, deck, transcript, max_bytes=limit)
    message = str(err.value)
    assert needle in message and "\n" not in message
    assert not (tmp_path / "course.yml").exists()


def test_encrypted_pdf_is_refused(tmp_path: Path) -> None:
    import io

    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in PdfReader(io.BytesIO(DECK)).pages[:2]:
        writer.add_page(page)
    writer.encrypt("secret")
    buf = io.BytesIO()
    writer.write(buf)
    with pytest.raises(MaterialError, match="locked.pdf"):
        add_upload(tmp_path, Upload("locked.pdf", buf.getvalue()))


def test_bad_faq_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(MaterialError, match="faqs.yml"):
        add_upload(tmp_path, Upload("ok.pdf", DECK), faqs=Upload("faqs.yml", b"- id: x\n  question: q\n"))


def test_out_of_order_cues_are_kept_with_a_warning_naming_the_cue(tmp_path: Path) -> None:
    vtt = b"WEBVTT\n\n1\n00:00:05.000 --> 00:00:09.000\nlater\n\n2\n00:00:01.000 --> 00:00:03.000\nearlier\n"
    result = add_upload(tmp_path, Upload("ok.pdf", DECK), Upload("talk.vtt", vtt))
    assert any("talk.vtt" in w and "2" in w for w in result.warnings)


def test_a_transcript_in_another_language_than_its_deck_is_said_on_upload(tmp_path: Path) -> None:
    from tests.material_fixtures import make_pdf

    deck = make_pdf(tmp_path / "merge.pdf", [["Merge sort", "Split the list into two halves, sort both halves "
                                                            "recursively and merge the sorted halves into one list"]])
    german = ("WEBVTT\n\n00:00:01.000 --> 00:00:05.000\nHeute sehen wir uns an, wie Mergesort eine Liste in zwei "
              "Hälften teilt.\n\n00:00:05.000 --> 00:00:09.000\nDanach werden die beiden sortierten Hälften wieder "
              "zusammengeführt.\n")
    added = add_upload(tmp_path / "library", Upload("merge.pdf", deck.read_bytes()),
                       transcript=Upload("vorlesung.vtt", german.encode("utf-8")))
    said = [w for w in added.warnings if "vorlesung.vtt" in w]
    assert said == ["vorlesung.vtt: the transcript is in German, the deck merge.pdf in English: answers quote each "
                    "in its own language"]
    assert added.transcript is not None and added.transcript.language == "de"  # read and kept for the message
