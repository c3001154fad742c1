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


# --- chips as the Artemis client draws them (iris-citation-text.util.ts) ------------------------------

ChipKind = Literal["faq", "video", "slide", "source"]
# JavaScript's \s and String.prototype.trim (Python's differ: \x1c-\x1f and \x85 are whitespace to
# Python, U+FEFF is not).
JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_BLANK_RE = re.compile(f"[{JS_SPACE}]*")
_PINNED_RE = re.compile(r"v([at])([0-9]+)")


def chip_kind(m: MarkerMatch) -> ChipKind:
    """The chip the Artemis client draws (resolveCitationTypeClass): "faq" for an FAQ, else "video" when
    start or end is not empty, else "slide" when page is not empty, else "source". Any text counts: a
    start of "00:01" makes a video chip."""
    if m.type == "F":
        return "faq"
    if m.start or m.end:
        return "video"
    if m.page:
        return "slide"
    return "source"


def chip_label(m: MarkerMatch) -> str:
    """The chip's label (getCitationLabelText): the keyword trimmed as JavaScript trims, else "FAQ" or
    "Source"."""
    keyword = (m.keyword or "").strip(JS_SPACE)
    return keyword or ("FAQ" if m.type == "F" else "Source")


def pinned_version(m: MarkerMatch) -> dict[str, str] | None:
    """The pinned version as the Artemis client reads it (parseTrailingVersion): ``{"kind": "attachment" |
    "video", "version": "<digits>"}`` from a trailing ``va<N>``/``vt<N>``, else None."""
    found = _PINNED_RE.fullmatch(m.version or "")
    if not found:
        return None
    return {"kind": "video" if found[1] == "t" else "attachment", "version": found[2]}


def artemis_groups(text: str) -> list[dict[str, Any]]:
    """The chips the Artemis client draws for ``text`` (replaceCitationBlocks): one entry per group of
    client-pattern markers with only whitespace between them, in order, as ``{"span": [start, end],
    "chips": [{"kind", "label", "version"}]}`` (span from the first member's start to the last one's end).
    A group with a member the client cannot parse would stay raw text (``"chips": None``); with the client
    pattern every match parses, so that never happens for a plain text."""
    groups: list[list[MarkerMatch]] = []
    last_end: int | None = None
    for m in parse(text, "stored"):
        if last_end is not None and _JS_BLANK_RE.fullmatch(text, last_end, m.span[0]):
            groups[-1].append(m)
        else:
            groups.append([m])
        last_end = m.span[1]
    return [{"span": [g[0].span[0], g[-1].span[1]],
             "chips": [{"kind": chip_kind(m), "label": chip_label(m), "version": pinned_version(m)} for m in g]}
            for g in groups]
