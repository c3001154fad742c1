"""Hostile transcripts: long runs that made the markup patterns backtrack, impossible times, non-files.

Every outcome is asserted exactly; how the time grows with the input is measured by
bench/hostile_material.py, never here (the timeout only stops a run that hangs).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citation_core.cli.main import main as cli
from citation_core.errors import MaterialError
from citation_core.material.models import Cue
from citation_core.material.transcript import _plain, load_transcript

VTT_HEAD = "WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n"
SRT_HEAD = "1\n00:00:01,000 --> 00:00:04,000\n"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.timeout(20)
def test_an_unclosed_voice_span_after_4000_spaces_is_text(tmp_path: Path) -> None:
    transcript = load_transcript(write(tmp_path / "talk.vtt", VTT_HEAD + "<v" + " " * 4000 + "x"))
    assert transcript.cues == (Cue(1.0, 4.0, "<v x"),)
    assert transcript.warnings == ()


@pytest.mark.timeout(20)
def test_an_unclosed_voice_span_after_3000_tabs_in_srt_is_text(tmp_path: Path) -> None:
    transcript = load_transcript(write(tmp_path / "talk.srt", SRT_HEAD + "<v" + "\t" * 3000 + "x\n"))
    assert transcript.cues == (Cue(1.0, 4.0, "<v x"),)


@pytest.mark.timeout(20)
def test_a_voice_span_padded_with_thousands_of_spaces_still_names_the_speaker(tmp_path: Path) -> None:
    line = "<v.loud" + " " * 5000 + "Roger Bingham" + "\t" * 5000 + ">We are live"
    transcript = load_transcript(write(tmp_path / "talk.vtt", VTT_HEAD + line + "\n"))
    assert transcript.cues == (Cue(1.0, 4.0, "Roger Bingham: We are live"),)


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    ("line", "text"),
    [
        ("<" * 20_000, "<" * 20_000),  # no tag ever closes: all of it is text
        ("<v" * 10_000, "<v" * 10_000),
        ("{\\" * 10_000 + "end", "{\\" * 10_000 + "end"),  # an override that never closes
        ("<v" + ".a" * 10_000 + " Ann>hi", "Ann: hi"),
        ("a<b>" * 10_000, "a" * 10_000),
    ],
    ids=["lt-run", "voice-opening-run", "override-run", "many-voice-classes", "many-tags"],
)
def test_long_runs_of_markup_openings_give_the_same_text_as_before(tmp_path: Path, line: str, text: str) -> None:
    transcript = load_transcript(write(tmp_path / "talk.vtt", VTT_HEAD + line + "\n"))
    assert transcript.cues == (Cue(1.0, 4.0, text),)


# The regular expressions the cue text was cleaned with before; on short lines they are fast, and
# the linear scan must give exactly what they gave.
_OLD_VOICE = re.compile(r"<v(?:\.[\w-]+)*\s+([^>]*?)\s*>")
_OLD_TAG = re.compile(r"<[^>]*>")
_OLD_OVERRIDE = re.compile(r"\{\\[^}]*\}")


def _old_plain(lines: list[str]) -> str:
    import html

    parts = []
    for line in lines:
        line = _OLD_VOICE.sub(lambda m: f"{m.group(1)}: " if m.group(1) else "", line)
        parts.append(html.unescape(_OLD_OVERRIDE.sub("", _OLD_TAG.sub("", line))))
    return " ".join(" ".join(parts).split())


@settings(max_examples=600, deadline=None)
@given(st.lists(st.text(alphabet="<>v.-_ \t\u00a0{}\\aé1&;", max_size=24), min_size=1, max_size=3))
def test_cue_text_cleaning_matches_the_former_patterns(lines: list[str]) -> None:
    assert _plain(lines) == _old_plain(lines)


@pytest.mark.timeout(20)
def test_a_long_digit_run_in_an_srt_timing_line_is_named_briefly(tmp_path: Path) -> None:
    srt = "1\n00:00:00,000 --> 00:00:01,000\nfirst\n\n2\n" + "1" * 20_000 + ": 2:3\nlost\n"
    with pytest.raises(MaterialError) as err:
        load_transcript(write(tmp_path / "talk.srt", srt))
    assert str(err.value) == (
        "talk.srt: cue 2: invalid timing line '" + "1" * 57 + "...' (expected 'start --> end')"
    )


@pytest.mark.parametrize(
    ("name", "timing", "shown"),
    [
        ("talk.srt", "99999999999999999999:00:01,000 --> 99999999999999999999:00:02,000",
         "99999999999999999999:00:01,000 --> 99999999999999999999:0..."),
        ("talk.srt", "00:00:01,000 --> 00:00:02,99999999999999999999",
         "00:00:01,000 --> 00:00:02,99999999999999999999"),
        ("talk.vtt", "99999999999999999999:00:01.000 --> 99999999999999999999:00:02.000",
         "99999999999999999999:00:01.000 --> 99999999999999999999:0..."),
        ("talk.srt", "9" * 5000 + ":00:01,000 --> 00:00:02,000", "9" * 57 + "..."),
    ],
    ids=["srt-20-digit-hours", "srt-20-digit-milliseconds", "vtt-20-digit-hours", "srt-5000-digit-hours"],
)
def test_a_time_past_the_largest_timestamp_is_an_error_naming_the_cue(
    tmp_path: Path, name: str, timing: str, shown: str
) -> None:
    if name.endswith(".vtt"):
        body = f"WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nfirst\n\n{timing}\nlost\n"
    else:
        body = f"1\n00:00:00,000 --> 00:00:01,000\nfirst\n\n2\n{timing}\nlost\n"
    with pytest.raises(MaterialError) as err:
        load_transcript(write(tmp_path / name, body))
    assert str(err.value) == f"{name}: cue 2: time after the largest timestamp 9999999999:59:59.999 in '{shown}'"


def test_a_20_digit_hour_of_leading_zeros_is_an_ordinary_hour(tmp_path: Path) -> None:
    srt = "1\n00000000000000000001:00:01,000 --> 00000000000000000001:00:02,000\nlate\n"
    assert load_transcript(write(tmp_path / "talk.srt", srt)).cues == (Cue(3601.0, 3602.0, "late"),)


def test_the_largest_timestamp_itself_is_read(tmp_path: Path) -> None:
    srt = "1\n9999999999:59:59,998 --> 9999999999:59:59,999\nthe end\n"
    (cue,) = load_transcript(write(tmp_path / "talk.srt", srt)).cues
    assert (cue.end, cue.text) == ((10**10 * 3_600_000 - 1) / 1000, "the end")


def test_a_directory_is_named_as_one(tmp_path: Path) -> None:
    (tmp_path / "talk.vtt").mkdir()
    with pytest.raises(MaterialError) as err:
        load_transcript(tmp_path / "talk.vtt")
    assert str(err.value) == "talk.vtt: is a directory, not a transcript file"


@pytest.mark.timeout(20)
def test_a_fifo_is_not_opened_and_is_named_as_not_a_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "talk.srt"
    os.mkfifo(fifo)  # opening it for reading would block until a writer comes
    with pytest.raises(MaterialError) as err:
        load_transcript(fifo)
    assert str(err.value) == "talk.srt: is not a regular file (a device, pipe or socket?)"


def test_a_missing_file_is_still_not_found(tmp_path: Path) -> None:
    with pytest.raises(MaterialError, match=r"^gone\.vtt: file not found \("):
        load_transcript(tmp_path / "gone.vtt")


@pytest.mark.timeout(20)
def test_the_transcript_command_says_what_a_directory_or_fifo_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "dir.vtt").mkdir()
    os.mkfifo(tmp_path / "pipe.vtt")
    assert cli(["transcript", str(tmp_path / "dir.vtt")]) == 2
    assert capsys.readouterr().err == "citation-studio: dir.vtt: is a directory, not a transcript file\n"
    assert cli(["transcript", str(tmp_path / "pipe.vtt")]) == 2
    assert capsys.readouterr().err == (
        "citation-studio: pipe.vtt: is not a regular file (a device, pipe or socket?)\n"
    )
