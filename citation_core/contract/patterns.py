"""The four marker parsers.

``iris``, ``server`` and ``client`` accept exactly what the Iris intermediate pattern, the Artemis
server pattern and the Artemis client pattern accept (DESIGN 2); ``stored`` reads the final and
stored forms and splits off a version field when the last field matches ``^v[at]\\d+$``.
Every parser returns field values as strings exactly as written, ``None`` where its pattern does not
carry that field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from ..errors import MarkerError
from .markers import FinalMarker, IntermediateMarker, SourceRef, StoredMarker, parse_version_field

PatternName = Literal["iris", "server", "client", "stored"]
PATTERN_NAMES: tuple[PatternName, ...] = ("iris", "server", "client", "stored")

IRIS_RE = re.compile(r"\[cite:([LF]):([^:\]]*):([^:\]]*):([^:\]]*):([^:\]]*)!(\d+)\]")
# The Artemis server pattern (Java: \d is ASCII only), with capture groups around the fields it delimits.
SERVER_RE = re.compile(r"\[cite:(L):([0-9]+):([^:\]]*):([^:\]]*):([^:\]]*):([^:\]]*):([^\]]*)\]")
# The Artemis client pattern (JavaScript ``[^:[\]]`` is ``[^:\[\]]`` here), with capture groups.
CLIENT_RE = re.compile(
    r"\[cite:([LF]):([^:\[\]]+):([^:\[\]]*):([^:\[\]]*):([^:\[\]]*):([^:\[\]]*):([^\[\]]*)\]"
)
_VERSION_TAIL = re.compile(r":(v[at][0-9]+)\Z")
MAX_NUMBER_DIGITS = 18  # a page or second of a marker; longer numbers are no position (and cost to convert)


@dataclass(frozen=True)
class MarkerMatch:
    span: tuple[int, int]
    type: str
    entity_id: str
    page: str | None
    start: str | None
    end: str | None
    keyword: str | None = None
    summary: str | None = None
    seq: str | None = None
    version: str | None = None

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["span"] = list(self.span)
        return d

    def source_ref(self) -> SourceRef:
        """The typed reference; raises MarkerError naming the field when a page, start or end is not a whole
        number (ASCII digits) of at most ``MAX_NUMBER_DIGITS`` digits."""

        def num(field: str, v: str | None) -> int | None:
            if v is None or v == "":
                return None
            if not (v.isascii() and v.isdigit()):
                shown = v if len(v) <= 20 else v[:20] + "…"
                raise MarkerError(f"{field}: not a whole number: {shown!r}")
            if len(v) > MAX_NUMBER_DIGITS:
                raise MarkerError(f"{field}: a number of more than {MAX_NUMBER_DIGITS} digits")
            return int(v)

        t: Literal["L", "F"] = "F" if self.type == "F" else "L"
        return SourceRef(t, self.entity_id, num("page", self.page), num("start", self.start), num("end", self.end))


def _iris(text: str) -> list[MarkerMatch]:
    return [
        MarkerMatch(m.span(), m[1], m[2], m[3], m[4], m[5], seq=m[6]) for m in IRIS_RE.finditer(text)
    ]


def _seven(regex: re.Pattern[str], text: str, split_version: bool) -> list[MarkerMatch]:
    out = []
    for m in regex.finditer(text):
        summary, version = m[7], None
        if split_version:
            tail = _VERSION_TAIL.search(summary)
            if tail:
                summary, version = summary[: tail.start()], tail[1]
        out.append(MarkerMatch(m.span(), m[1], m[2], m[3], m[4], m[5], m[6], summary, None, version))
    return out


def parse(text: str, pattern: PatternName) -> list[MarkerMatch]:
    """All non-overlapping matches of ``pattern`` in ``text``, left to right."""
    if pattern == "iris":
        return _iris(text)
    if pattern == "server":
        return _seven(SERVER_RE, text, split_version=False)
    if pattern == "client":
        return _seven(CLIENT_RE, text, split_version=False)
    if pattern == "stored":
        return _seven(CLIENT_RE, text, split_version=True)
    raise MarkerError(f"unknown pattern {pattern!r}: expected one of {', '.join(PATTERN_NAMES)}")


def parse_intermediate(marker: str) -> IntermediateMarker:
    """Parse exactly one intermediate marker (the whole string)."""
    found = _iris(marker)
    if len(found) != 1 or found[0].span != (0, len(marker)):
        raise MarkerError(f"not an intermediate marker: {marker!r}")
    return IntermediateMarker(found[0].source_ref(), int(found[0].seq or 0))


def parse_final(marker: str) -> FinalMarker:
    """Parse exactly one final-form marker; a trailing version field is rejected."""
    found = parse(marker, "stored")
    if len(found) != 1 or found[0].span != (0, len(marker)) or found[0].version is not None:
        raise MarkerError(f"not a final marker: {marker!r}")
    mm = found[0]
    return FinalMarker(mm.source_ref(), mm.keyword or "", mm.summary or "")


def parse_stored(marker: str) -> StoredMarker:
    """Parse exactly one stored-form marker (version field optional)."""
    found = parse(marker, "stored")
    if len(found) != 1 or found[0].span != (0, len(marker)):
        raise MarkerError(f"not a stored marker: {marker!r}")
    mm = found[0]
    version = parse_version_field(mm.version) if mm.version else None
    return StoredMarker(mm.source_ref(), mm.keyword or "", mm.summary or "", version[1] if version else None)


ANY_MARKER_RE = re.compile(IRIS_RE.pattern + "|" + CLIENT_RE.pattern)


def strip_markers(text: str) -> str:
    """Remove every intermediate, final and stored marker from ``text``."""
    return ANY_MARKER_RE.sub("", text)


@dataclass(frozen=True)
class Text:
    """A run of answer text between markers."""

    text: str


@dataclass(frozen=True)
class Marker:
    """One marker as written (``raw``) and as its parser read it."""

    raw: str
    match: MarkerMatch


Segment = Text | Marker


def segments(text: str, pattern: PatternName = "stored") -> list[Segment]:
    """``text`` cut into text runs and the markers ``pattern`` finds; joining the pieces gives ``text`` back."""
    out: list[Segment] = []
    pos = 0
    for m in parse(text, pattern):
        start, end = m.span
        if start > pos:
            out.append(Text(text[pos:start]))
        out.append(Marker(text[start:end], m))
        pos = end
    if pos < len(text):
        out.append(Text(text[pos:]))
    return out


def join_segments(pieces: Sequence[Segment]) -> str:
    return "".join(p.text if isinstance(p, Text) else p.raw for p in pieces)


def insert_at(text: str, insertions: Iterable[tuple[int, str]]) -> str:
    """``text`` with each string inserted at its offset (offsets ascending; equal offsets keep their order)."""
    pieces: list[str] = []
    pos = 0
    for offset, inserted in insertions:
        pieces.append(text[pos:offset])
        pieces.append(inserted)
        pos = offset
    pieces.append(text[pos:])
    return "".join(pieces)
