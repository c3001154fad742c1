"""The marker contract: typed markers and their formatting (DESIGN 2).

A marker is ``[cite:`` + colon-separated fields + ``]`` in one of three forms:

* intermediate ``type:entity_id:page:start:end!seq`` (given to and written by the placement model)
* final ``type:entity_id:page:start:end:keyword:summary`` (what the pipeline returns)
* stored: final + ``:va<N>`` or ``:vt<N>`` (what the LMS persists)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ..errors import MarkerError

CitationType = Literal["L", "F"]
VersionKind = Literal["a", "t"]

_WS = re.compile(r"\s+")
_VERSION = re.compile(r"v([at])([0-9]+)")


def sanitize_field(value: str) -> str:
    """Make a generated keyword or summary safe inside a marker.

    ``:`` becomes `` -``, ``]`` becomes ``)``, ``[`` becomes ``(`` and whitespace runs collapse
    to one space (leading and trailing whitespace removed).
    """
    value = value.replace(":", " -").replace("]", ")").replace("[", "(")
    return _WS.sub(" ", value).strip()


def _num(value: int | None) -> str:
    return "" if value is None else str(value)


@dataclass(frozen=True)
class SourceRef:
    """What a marker points at: one page, one time span, or one FAQ."""

    type: CitationType
    entity_id: str
    page: int | None = None
    start: int | None = None
    end: int | None = None

    def __post_init__(self) -> None:
        if self.type == "F" and (self.page is not None or self.start is not None or self.end is not None):
            raise MarkerError("an FAQ citation carries no page, start or end")
        if self.page is not None and (self.start is not None or self.end is not None):
            raise MarkerError("a lecture citation is on a page or on a time span, never both")

    @property
    def kind(self) -> Literal["faq", "slide", "video", "other"]:
        if self.type == "F":
            return "faq"
        if self.page is not None:
            return "slide"
        if self.start is not None:
            return "video"
        return "other"

    def fields(self) -> str:
        return f"{self.type}:{self.entity_id}:{_num(self.page)}:{_num(self.start)}:{_num(self.end)}"

    @staticmethod
    def of_page(entity_id: int | str, page: int) -> SourceRef:
        return SourceRef("L", str(entity_id), page=page)

    @staticmethod
    def of_span(entity_id: int | str, start: float, end: float) -> SourceRef:
        # The seed drops fractions with int(); so do we.
        return SourceRef("L", str(entity_id), start=int(start), end=int(end))

    @staticmethod
    def of_faq(faq_id: int | str) -> SourceRef:
        return SourceRef("F", str(faq_id))


@dataclass(frozen=True)
class IntermediateMarker:
    ref: SourceRef
    seq: int

    def format(self) -> str:
        return f"[cite:{self.ref.fields()}!{self.seq}]"


@dataclass(frozen=True)
class FinalMarker:
    ref: SourceRef
    keyword: str
    summary: str

    def format(self) -> str:
        return f"[cite:{self.ref.fields()}:{sanitize_field(self.keyword)}:{sanitize_field(self.summary)}]"

    def stored(self, version: int) -> StoredMarker:
        return StoredMarker(self.ref, sanitize_field(self.keyword), sanitize_field(self.summary), version)


@dataclass(frozen=True)
class StoredMarker:
    ref: SourceRef
    keyword: str
    summary: str
    version: int | None  # None for FAQ citations and lecture citations without a position

    @property
    def version_field(self) -> str | None:
        if self.version is None:
            return None
        kind = "t" if self.ref.kind == "video" else "a"
        return f"v{kind}{self.version}"

    def format(self) -> str:
        base = f"[cite:{self.ref.fields()}:{sanitize_field(self.keyword)}:{sanitize_field(self.summary)}"
        vf = self.version_field
        return f"{base}:{vf}]" if vf else f"{base}]"


def parse_version_field(value: str) -> tuple[VersionKind, int] | None:
    """``("a", 3)`` for ``va3``; None when ``value`` is no version field; MarkerError for a version of more
    than 18 digits."""
    m = _VERSION.fullmatch(value)
    if not m:
        return None
    if len(m.group(2)) > 18:
        raise MarkerError("version: a number of more than 18 digits")
    kind: VersionKind = "a" if m.group(1) == "a" else "t"
    return kind, int(m.group(2))
