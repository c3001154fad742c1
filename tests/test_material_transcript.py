"""Transcript loading (WebVTT and SRT): cue times, clean text, warnings and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from citation_core.errors import MaterialError
from citation_core.material.models import Cue
from citation_core.material.transcript import load_transcript
from tests.material_fixtures import PAINLESS_SRT, write_text

SRT = """1
00:00:01,000 --> 00:00:03,500
Martelli:
Welcome to <i>Painless</i> Python.

2
00:00:03,500 --> 00:00:06,000
Lists & dicts
come first.
"""

EXPECTED_SRT = (
    Cue(1.0, 3.5, "Martelli: Welcome to Painless Python."),
    Cue(3.5, 6.0, "Lists & dicts come first."),
)


@pytest.mark.real
def test_real_srt_loads_all_919_cues() -> None:
    transcript = load_transcript(PAINLESS_SRT)
    cues = transcript.cues
    assert len(cues) == 919
    assert (cues[0].start, cues[-1].end) == (3.0, 2274.534)
    assert isinstance(cues[0].start, float) and isinstance(cues[-1].end, float)
    assert cues[0].text == "Martelli: When you typically"
    assert cues[2].text == "you want to see results for what you're doing."  # two lines joined by a space
    assert cues[-1].text == "[applause]"
    assert transcript.warnings == ()


@pytest.mark.parametrize(("bom", "crlf"), [(False, False), (True, False), (False, True), (True, True)])
def test_srt_with_bom_and_crlf_reads_the_same(tmp_path: Path, bom: bool, crlf: bool) -> None:
    transcript = load_transcript(write_text(tmp_path / "talk.srt", SRT, bom=bom, crlf=crlf))
    assert transcript.cues == EXPECTED_SRT


def test_vtt_voice_spans_markup_entities_and_settings(tmp_path: Path) -> None:
    vtt = """WEBVTT - a lecture

NOTE recorded live

intro
00:00.000 --> 00:02.250 align:start position:10%
<v.loud Roger Bingham>We are in <b>New York</b> &amp; it's late</v>
<i>second line</i>

00:00:02.250 --> 00:00:05.000
<v Anna>Hi <c.yellow>there</c>
<00:00:03.000>timed word

00:00:05.000 --> 00:00:07.000
<v Bob>Tom &lt;3 Jerry
"""
    transcript = load_transcript(write_text(tmp_path / "talk.vtt", vtt, bom=True, crlf=True))
    assert transcript.cues == (
        Cue(0.0, 2.25, "Roger Bingham: We are in New York & it's late second line"),
        Cue(2.25, 5.0, "Anna: Hi there timed word"),
        Cue(5.0, 7.0, "Bob: Tom <3 Jerry"),
    )
    assert transcript.warnings == ()


def test_overlapping_and_out_of_order_cues_are_warnings_naming_the_cue(tmp_path: Path) -> None:
    srt = """1
00:00:01,000 --> 00:00:04,000
first

2
00:00:03,000 --> 00:00:05,000
overlaps the first

3
00:00:02,000 --> 00:00:02,500
out of order
"""
    transcript = load_transcript(write_text(tmp_path / "talk.srt", srt))
    assert [c.text for c in transcript.cues] == ["first", "overlaps the first", "out of order"]
    assert len(transcript.warnings) == 2
    overlap, order = transcript.warnings
    assert overlap.startswith("talk.srt: cue 2 overlaps cue 1")
    assert order.startswith("talk.srt: cue 3 is out of order")


def test_cue_that_ends_before_it_starts_is_warned_and_clamped(tmp_path: Path) -> None:
    srt = "1\n00:00:05,000 --> 00:00:04,000\nbackwards\n"
    transcript = load_transcript(write_text(tmp_path / "talk.srt", srt))
    assert transcript.cues == (Cue(5.0, 5.0, "backwards"),)
    assert transcript.warnings[0].startswith("talk.srt: cue 1 ends before it starts")


def test_warning_numbers_follow_the_file_even_when_an_empty_cue_is_dropped(tmp_path: Path) -> None:
    srt = (
        "1\n00:00:01,000 --> 00:00:02,000\none\n\n"
        "2\n00:00:02,000 --> 00:00:03,000\n\n"
        "3\n00:00:01,500 --> 00:00:04,000\nthree\n"
    )
    transcript = load_transcript(write_text(tmp_path / "talk.srt", srt))
    assert [c.text for c in transcript.cues] == ["one", "three"]
    assert transcript.warnings[0].startswith("talk.srt: cue 3 overlaps cue 1")


@pytest.mark.parametrize(
    ("file_name", "content", "phrase"),
    [
        ("talk.txt", "hello", "unsupported transcript type '.txt'"),
        ("talk.srt", "", "empty transcript"),
        ("talk.vtt", "WEBVTT\n\nNOTE nothing here\n", "empty transcript"),
        ("talk.vtt", "00:00:01.000 --> 00:00:02.000\nhi\n", "missing WEBVTT header"),
        ("talk.srt", "just some text\nwithout any cue\n", "not an SRT file"),
        (
            "talk.vtt",
            "WEBVTT\n\n00:01.000 --> 00:02.000\nok\n\n00:02.000 --> 00:0x.000\nbad\n",
            "cue 2: invalid timing",
        ),
        ("talk.vtt", "WEBVTT\n\n00:00:01,000 --> 00:00:02,000\ncomma\n", "cue 1: invalid timing"),
        ("talk.srt", "1\n00:00:01,000 --> 00:00:02,000\nok\n\n2\n00:00:03,000 - 00:00:04,000\nbad\n", "cue 2: invalid"),
        ("talk.vtt", "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<i></i>\n", "no cue has any text"),
    ],
)
def test_unusable_transcripts_raise_one_line_naming_file_and_cue(
    tmp_path: Path, file_name: str, content: str, phrase: str
) -> None:
    path = write_text(tmp_path / file_name, content)
    with pytest.raises(MaterialError) as info:
        load_transcript(path)
    message = str(info.value)
    assert message.startswith(f"{file_name}: ")
    assert phrase in message
    assert "\n" not in message


def test_non_utf8_and_missing_files_are_named(tmp_path: Path) -> None:
    latin1 = tmp_path / "latin.srt"
    latin1.write_bytes("1\n00:00:01,000 --> 00:00:02,000\nGr\xfc\xdfe\n".encode("latin-1"))
    with pytest.raises(MaterialError, match=r"^latin\.srt: not UTF-8 text"):
        load_transcript(latin1)
    with pytest.raises(MaterialError, match=r"^gone\.vtt: file not found"):
        load_transcript(tmp_path / "gone.vtt")
