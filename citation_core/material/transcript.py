"""Load a video transcript (WebVTT or SRT) into timed cues with plain text.

Parsing is done by webvtt-py; this module adds what a user needs on top: errors that name
the file and the cue, warnings for overlapping or out-of-order cues, voice spans kept as
"Speaker: text", markup removed and multi-line cues joined with a space.
"""

from __future__ import annotations

import html
import io
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import webvtt
from webvtt.errors import MalformedCaptionError, MalformedFileError

from ..errors import MaterialError
from ..text_file import read_text_file
from .models import Cue, Transcript

__all__ = ["MAX_CUES", "SUPPORTED_TRANSCRIPT_TYPES", "load_transcript"]

SUPPORTED_TRANSCRIPT_TYPES = {".vtt": "vtt", ".srt": "srt"}

# the timestamps webvtt-py accepts: WebVTT "[hh:]mm:ss.mmm"; SRT "hh:mm:ss,mmm" (or ".")
_VTT_TIME = r"(?:(\d+):)?(\d{1,2}):(\d{1,2})\.(\d{1,3})"
_SRT_TIME = r"(\d+):(\d{1,2}):(\d{1,2})[,.](\d+)"
_TIMING_LINE = {
    "vtt": re.compile(rf"^\s*{_VTT_TIME}\s*-->\s*{_VTT_TIME}(?:\s.*)?$"),
    "srt": re.compile(rf"^\s*{_SRT_TIME}\s*-->\s*{_SRT_TIME}(?:\s.*)?$"),
}
# "digits:digits" somewhere in the line; one digit on each side is the same test, in linear time
_LOOKS_LIKE_TIME = re.compile(r"\d:\d")
_MAX_LISTED_WARNINGS = 20
# the largest timestamp webvtt-py reads (9999999999:59:59.999); a cue timed after it would be dropped
_MAX_MILLISECONDS = 10**10 * 3_600_000 - 1
_MAX_DIGITS = 17  # a field with more significant digits is past that timestamp whatever its unit
_TOO_LATE = "time after the largest timestamp 9999999999:59:59.999"
_SHOWN_LINE = 60  # characters of a timing line quoted in an error
# Cues a transcript may hold: a ten-hour lecture has about 12,000; a million would take minutes and gigabytes
MAX_CUES = 50_000


@dataclass(frozen=True)
class _CueBlock:
    number: int  # 1-based position among the file's cues
    start_ms: int
    end_ms: int


def load_transcript(path: Path) -> Transcript:
    """Read a .vtt or .srt file. Raises MaterialError naming the file (and cue) when unusable."""
    name = path.name
    kind = SUPPORTED_TRANSCRIPT_TYPES.get(path.suffix.lower())
    if kind is None:
        raise MaterialError(f"{name}: unsupported transcript type '{path.suffix or '(none)'}' (expected .vtt or .srt)")
    text = read_text_file(path, MaterialError, "transcript file").lstrip("\r\n\t ")
    if not text:
        raise MaterialError(f"{name}: empty transcript (no cues)")

    blocks = _scan_cue_blocks(text, kind, name)
    try:
        captions = webvtt.from_buffer(io.StringIO(text), format=kind).captions
    except MalformedFileError as err:
        what = "a WebVTT file (missing WEBVTT header)" if kind == "vtt" else "an SRT file"
        raise MaterialError(f"{name}: malformed transcript, not {what} ({err})") from err
    except MalformedCaptionError as err:
        raise MaterialError(f"{name}: malformed cue ({err})") from err

    cues: list[Cue] = []
    numbers: list[int] = []
    warnings: list[str] = []
    block_index = 0
    for caption in captions:
        start_ms = caption.start_time.in_milliseconds()
        end_ms = caption.end_time.in_milliseconds()
        # align with the scanned blocks so messages use the file's own cue numbers
        while block_index < len(blocks) and (
            (blocks[block_index].start_ms, blocks[block_index].end_ms) != (start_ms, end_ms)
        ):
            block_index += 1
        number = blocks[block_index].number if block_index < len(blocks) else len(cues) + 1
        block_index += 1
        if end_ms < start_ms:
            warnings.append(
                f"{name}: cue {number} ends before it starts "
                f"({_seconds(end_ms)} < {_seconds(start_ms)}); its end is set to its start"
            )
            end_ms = start_ms
        cues.append(Cue(start=start_ms / 1000, end=end_ms / 1000, text=_plain(caption.lines)))
        numbers.append(number)

    if not cues:
        raise MaterialError(f"{name}: empty transcript (no cues)")
    if not any(cue.text for cue in cues):
        raise MaterialError(f"{name}: empty transcript (no cue has any text)")
    warnings.extend(_order_warnings(cues, numbers, name))
    return Transcript(path=path, cues=tuple(cues), warnings=tuple(_capped(warnings, name)))


def _scan_cue_blocks(text: str, kind: str, name: str) -> list[_CueBlock]:
    """Find every cue block and check its timing line; webvtt-py silently drops bad ones."""
    blocks: list[_CueBlock] = []
    for lines in _blocks(text):
        timing = next((line for line in lines[:2] if "-->" in line), None)
        if timing is None:
            if kind == "srt" and _srt_cue_without_arrow(lines):
                raise MaterialError(
                    f"{name}: cue {len(blocks) + 1}: invalid timing line '{_shown(lines[1])}' "
                    "(expected 'start --> end')"
                )
            continue
        number = len(blocks) + 1
        if number > MAX_CUES:
            raise MaterialError(f"{name}: more than {MAX_CUES:,} cues: too many to load (a transcript of ten hours "
                                "holds about 12,000)")
        match = _TIMING_LINE[kind].match(timing)
        if match is None:
            hint = " (WebVTT writes '.' before the milliseconds)" if kind == "vtt" else ""
            raise MaterialError(f"{name}: cue {number}: invalid timing line '{_shown(timing)}'{hint}")
        groups = match.groups()
        try:
            start_ms = _milliseconds(groups[:4], kind)
            end_ms = _milliseconds(groups[4:], kind)
        except ValueError as err:
            raise MaterialError(f"{name}: cue {number}: {err} in '{_shown(timing)}'") from err
        blocks.append(_CueBlock(number, start_ms, end_ms))
    return blocks


_LINE_END = re.compile(r"\r\n|\r|\n")


def _blocks(text: str) -> Iterator[list[str]]:
    """The file's blocks of non-blank lines, one at a time (a file of a million cues is never split whole)."""
    current: list[str] = []
    start = 0
    for end in _LINE_END.finditer(text):
        line = text[start:end.start()]
        start = end.end()
        if line.strip():
            current.append(line)
        elif current:
            yield current
            current = []
    line = text[start:]
    if line.strip():
        current.append(line)
    if current:
        yield current


def _srt_cue_without_arrow(lines: Sequence[str]) -> bool:
    """An index line followed by something time-like that is not a valid timing line."""
    return (
        len(lines) >= 2
        and lines[0].strip().isdigit()
        and _LOOKS_LIKE_TIME.search(lines[1]) is not None
        and not lines[1].strip().isdigit()
    )


def _milliseconds(parts: Sequence[str | None], kind: str) -> int:
    """A timestamp read the way webvtt-py reads it for that format; ValueError when it cannot be."""
    hours, minutes, seconds, fraction = parts
    if minutes is None or seconds is None or fraction is None:
        raise ValueError("incomplete timestamp")
    if any(len((field or "").lstrip("0")) > _MAX_DIGITS for field in parts):
        raise ValueError(_TOO_LATE)
    total = (int(hours or 0) * 60 + int(minutes)) * 60 + int(seconds)
    if kind == "srt":  # SRT readers take the fraction as a number of ms and carry over
        milliseconds = total * 1000 + int(fraction)
    else:
        if int(minutes) > 59 or int(seconds) > 59:
            raise ValueError("minutes and seconds must be below 60")
        milliseconds = total * 1000 + int(fraction.ljust(3, "0"))
    if milliseconds > _MAX_MILLISECONDS:
        raise ValueError(_TOO_LATE)
    return milliseconds


def _plain(lines: Sequence[str]) -> str:
    """Cue text without markup: voice spans become "Speaker: ", lines joined with a space."""
    parts = [html.unescape(_without_spans(_without_tags(_voices(line)), "{\\", "}")) for line in lines]
    return " ".join(" ".join(parts).split())

# Markup is removed by scanning each line once, not by regular expressions: a voice-span pattern
# backtracks on long runs of spaces, and "<" or "{\\" without an end make a pattern rescan the line.


def _voices(line: str) -> str:
    """Each voice span ``<v[.class...] Speaker>`` replaced by ``Speaker: `` (nothing without a speaker)."""
    out: list[str] = []
    pos = 0
    while (start := line.find("<v", pos)) != -1:
        i = start + 2
        while i < len(line) and line[i] == "." and i + 1 < len(line) and _class_char(line[i + 1]):
            i += 1
            while i < len(line) and _class_char(line[i]):
                i += 1
        if i >= len(line) or not line[i].isspace():
            out.append(line[pos:start + 1])
            pos = start + 1
            continue
        end = line.find(">", i)
        if end == -1:  # no voice span can close after here
            break
        speaker = line[i:end].strip()
        out.append(line[pos:start])
        out.append(f"{speaker}: " if speaker else "")
        pos = end + 1
    out.append(line[pos:])
    return "".join(out)


def _class_char(char: str) -> bool:
    return char.isalnum() or char in "_-"


def _without_tags(line: str) -> str:
    """The line without ``<...>`` tags; a ``<`` that no ``>`` follows is text."""
    return _without_spans(line, "<", ">")


def _without_spans(line: str, opening: str, closing: str) -> str:
    """The line without each span from ``opening`` to the next ``closing`` (both included)."""
    out: list[str] = []
    pos = 0
    while (start := line.find(opening, pos)) != -1:
        end = line.find(closing, start + len(opening))
        if end == -1:  # nothing closes after here, the rest is text
            break
        out.append(line[pos:start])
        pos = end + len(closing)
    out.append(line[pos:])
    return "".join(out)


def _order_warnings(cues: Sequence[Cue], numbers: Sequence[int], name: str) -> list[str]:
    warnings: list[str] = []
    for i in range(1, len(cues)):
        previous, cue = cues[i - 1], cues[i]
        if cue.start < previous.start:
            warnings.append(
                f"{name}: cue {numbers[i]} is out of order: it starts at {cue.start:.3f} s, "
                f"before cue {numbers[i - 1]} ({previous.start:.3f} s)"
            )
        elif cue.start < previous.end:
            warnings.append(
                f"{name}: cue {numbers[i]} overlaps cue {numbers[i - 1]}: it starts at "
                f"{cue.start:.3f} s, before cue {numbers[i - 1]} ends ({previous.end:.3f} s)"
            )
    return warnings


def _capped(warnings: list[str], name: str) -> list[str]:
    if len(warnings) <= _MAX_LISTED_WARNINGS:
        return warnings
    rest = len(warnings) - _MAX_LISTED_WARNINGS
    return [*warnings[:_MAX_LISTED_WARNINGS], f"{name}: {rest} more cue warnings not listed"]


def _shown(line: str) -> str:
    """A line as quoted in an error: stripped, and cut short when long."""
    line = line.strip()
    return line if len(line) <= _SHOWN_LINE else line[: _SHOWN_LINE - 3] + "..."


def _seconds(milliseconds: int) -> str:
    return f"{milliseconds / 1000:.3f} s"
