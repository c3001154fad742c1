"""Source records handed to the citation pipeline (DESIGN 4.1), and ``Sources``, the set of them for one answer."""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import SourcesError


@dataclass(frozen=True)
class PageChunk:
    """One chunk of one deck page. A page may give several chunks."""

    uuid: str
    lecture_unit_id: int | str
    page_number: int
    text: str
    display_page_number: str | None = None
    course_id: int | str | None = None
    lecture_id: int | str | None = None
    lecture_unit_name: str = ""
    score: float = 0.0


@dataclass(frozen=True)
class TranscriptSegment:
    """One transcript cue (or a merged run of cues) of a lecture video."""

    uuid: str
    lecture_unit_id: int | str
    start: float
    end: float
    text: str
    page_number: int | None = None
    score: float = 0.0


@dataclass(frozen=True)
class FaqSource:
    """A course FAQ entry."""

    id: int | str
    question: str
    answer: str
    score: float = 0.0

    @property
    def content(self) -> str:
        return f"{self.question} {self.answer}"


LectureSource = PageChunk | TranscriptSegment
Source = PageChunk | TranscriptSegment | FaqSource


@dataclass(frozen=True)
class Sources:
    """What one answer may be cited from: lecture page chunks and transcript segments, and FAQs.

    ``Sources.from_json`` reads the shape of ``citation-studio cite --sources``::

        {"lecture": {"pages": [{uuid, lecture_unit_id, page_number, display_page_number?, text}],
                     "transcriptions": [{uuid, lecture_unit_id, start, end, page_number?, text}]},
         "faqs": [{id, question, answer}]}
    """

    lecture: tuple[LectureSource, ...] = ()
    faqs: tuple[FaqSource, ...] = ()

    @staticmethod
    def of(items: Iterable[Source]) -> Sources:
        """Sort a mixed list of sources into lecture sources and FAQs (order kept); anything that is not a
        ``PageChunk``, ``TranscriptSegment`` or ``FaqSource`` raises ``SourcesError``."""
        if isinstance(items, str | bytes | bytearray | Mapping) or not isinstance(items, Iterable):
            raise SourcesError(f"Sources.of: items: expected source records, got {type(items).__name__}")
        listed = list(items)
        for i, item in enumerate(listed):
            _check_kind(item, f"Sources.of: items[{i}]")
        return Sources(tuple(s for s in listed if not isinstance(s, FaqSource)),
                       tuple(s for s in listed if isinstance(s, FaqSource)))

    def checked(self, where: str = "sources") -> Sources:
        """``self``, once every record is of its kind and its fields can make a marker (``check_source``);
        else ``SourcesError`` naming the record (``{where}.lecture[2].page_number: …``)."""
        if not isinstance(self.lecture, Iterable) or not isinstance(self.faqs, Iterable):
            raise SourcesError(f"{where}: lecture and faqs must be tuples of source records")
        for i, lec in enumerate(self.lecture):
            if isinstance(lec, FaqSource):
                raise SourcesError(f"{where}.lecture[{i}]: an FaqSource belongs in faqs")
            check_source(lec, f"{where}.lecture[{i}]")
        for i, faq in enumerate(self.faqs):
            if not isinstance(faq, FaqSource):
                raise SourcesError(f"{where}.faqs[{i}]: expected FaqSource, got {type(faq).__name__}")
            check_source(faq, f"{where}.faqs[{i}]")
        return self

    @staticmethod
    def load(path: str | os.PathLike[str]) -> Sources:
        """Read a sources JSON file (``path``: a ``Path`` or a ``str``); any problem raises ``SourcesError``
        naming the file and field."""
        if not isinstance(path, str | os.PathLike):
            raise SourcesError(f"Sources.load: path: expected a path (str or Path), got {type(path).__name__}")
        path = Path(path)
        if not path.is_file():
            raise SourcesError(f"{path}: {'a directory, not a sources file' if path.is_dir() else 'file not found'}")
        try:
            raw = json.loads(path.read_text(encoding="utf-8"), parse_constant=_no_constant)
        except UnicodeDecodeError:
            raise SourcesError(f"{path}: not UTF-8 text") from None
        except json.JSONDecodeError as exc:
            raise SourcesError(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
        except (RecursionError, ValueError) as exc:
            raise SourcesError(f"{path}: invalid JSON: {str(exc)[:80] or 'nested too deeply'}") from None
        return Sources.from_json(raw, path.name)

    @staticmethod
    def from_json(raw: object, name: str = "sources") -> Sources:
        """The sources of the JSON mapping above (a parsed sources file); errors name ``name`` and the field.
        An object with other keys but neither ``lecture`` nor ``faqs`` is refused (no silent empty sources)."""
        if not isinstance(raw, Mapping):
            raise SourcesError(f"{name}: expected a JSON object with 'lecture' and/or 'faqs'")
        if raw and "lecture" not in raw and "faqs" not in raw:
            keys = ", ".join(repr(str(k))[:30] for k in list(raw)[:3])
            raise SourcesError(f"{name}: expected a JSON object with 'lecture' and/or 'faqs', got the keys {keys}")
        lec = raw.get("lecture") or {}
        if not isinstance(lec, Mapping):
            raise SourcesError(f"{name}: lecture: expected an object with 'pages' and/or 'transcriptions'")
        lecture: list[LectureSource] = []
        for i, item in enumerate(_items(lec, "pages", f"{name}: lecture")):
            r = _Record(item, f"{name}: lecture.pages[{i}]")
            dpn = r.get("display_page_number", (str, int), required=False)
            lecture.append(PageChunk(uuid=str(r.get("uuid", (str, int))), lecture_unit_id=r.ident("lecture_unit_id"),
                                     page_number=r.count("page_number"), text=r.get("text", (str,)),
                                     display_page_number=None if dpn is None else str(dpn)))
        for i, item in enumerate(_items(lec, "transcriptions", f"{name}: lecture")):
            r = _Record(item, f"{name}: lecture.transcriptions[{i}]")
            start, end = r.seconds("start"), r.seconds("end")
            if end < start:
                raise SourcesError(f"{r.where}.end: {end:g} is before start {start:g}")
            page = r.count("page_number", required=False)
            lecture.append(TranscriptSegment(uuid=str(r.get("uuid", (str, int))), lecture_unit_id=r.ident(
                "lecture_unit_id"), start=start, end=end, text=r.get("text", (str,)), page_number=page))
        faqs: list[FaqSource] = []
        for i, item in enumerate(_items(raw, "faqs", name)):
            r = _Record(item, f"{name}: faqs[{i}]")
            faqs.append(FaqSource(id=r.ident("id"), question=r.get("question", (str,)),
                                  answer=r.get("answer", (str,))))
        return Sources(tuple(lecture), tuple(faqs))


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")


def _items(parent: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = parent.get(key) or []
    if not isinstance(value, list):
        raise SourcesError(f"{where}.{key}: expected a list, got {type(value).__name__}")
    return value


MAX_ID_DIGITS = 18


class _Record:
    """One JSON object of a sources file, read field by field with errors naming the field."""

    def __init__(self, item: object, where: str) -> None:
        if not isinstance(item, Mapping):
            raise SourcesError(f"{where}: expected an object")
        self.item, self.where = item, where

    def get(self, key: str, kinds: tuple[type, ...], required: bool = True) -> Any:
        value = self.item.get(key)
        if value is None:
            if required:
                raise SourcesError(f"{self.where}: missing field {key!r}")
            return None
        if not isinstance(value, kinds) or isinstance(value, bool):
            names = " or ".join(k.__name__ for k in kinds)
            raise SourcesError(f"{self.where}.{key}: expected {names}, got {json.dumps(value)[:40]}")
        if isinstance(value, int) and len(str(abs(value))) > MAX_ID_DIGITS:
            raise SourcesError(f"{self.where}.{key}: a number of more than {MAX_ID_DIGITS} digits")
        return value

    def ident(self, key: str) -> Any:
        """A lecture unit or FAQ id: it becomes a marker's entity_id."""
        value = self.get(key, (int, str))
        problem = _id_problem(value)
        if problem:
            raise SourcesError(f"{self.where}.{key}: {problem}")
        return value

    def count(self, key: str, required: bool = True) -> Any:
        """A 1-based page number."""
        value = self.get(key, (int,), required)
        if value is not None and value < 1:
            raise SourcesError(f"{self.where}.{key}: pages start at 1, got {value}")
        return value

    def seconds(self, key: str) -> float:
        value = float(self.get(key, (int, float)))
        if not math.isfinite(value) or not 0 <= value < MAX_SECONDS:
            raise SourcesError(f"{self.where}.{key}: expected a second >= 0, got {self.item.get(key)}")
        return value


MAX_SECONDS = 1e18  # a marker's start or end has at most 18 digits
_ID_BREAKS = re.compile(r"[:\[\]\x00-\x1f\x7f\u2028\u2029]")  # would end a marker field or its line


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _id_problem(value: object) -> str | None:
    """Why ``value`` cannot be a marker's entity_id (a lecture unit or FAQ id), or None."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return f"expected an int or str id, got {_shown(value)}"
    if isinstance(value, int):
        return f"a number of more than {MAX_ID_DIGITS} digits" if len(str(abs(value))) > MAX_ID_DIGITS else None
    if not value.strip():
        return "an empty id"
    if _ID_BREAKS.search(value):
        return f"an id with ':', '[', ']' or a line break cannot stand in a citation marker, got {_shown(value)}"
    return None


def _page_problem(value: object) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return f"expected a whole page number >= 1, got {_shown(value)}"
    if value < 1:
        return f"pages start at 1, got {value}"
    if len(str(value)) > MAX_ID_DIGITS:
        return f"a number of more than {MAX_ID_DIGITS} digits"
    return None


def _second_problem(value: object) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"expected a second >= 0, got {_shown(value)}"
    if not (math.isfinite(value) and 0 <= value < MAX_SECONDS):
        return f"expected a second >= 0, got {_shown(value)}"
    return None


def _check_kind(item: object, where: str) -> None:
    if not isinstance(item, PageChunk | TranscriptSegment | FaqSource):
        raise SourcesError(f"{where}: expected PageChunk, TranscriptSegment or FaqSource, got {type(item).__name__}")


def check_source(source: object, where: str) -> None:
    """Raise ``SourcesError`` (``{where}.{field}: …``) unless ``source`` is a source record whose fields can
    make a marker: an id of at most 18 digits or a str without ':', '[', ']' or line breaks; a page a whole
    number >= 1; start and end finite seconds >= 0 with end not before start; the texts str."""
    problems: list[tuple[str, str | None]]
    if isinstance(source, FaqSource):
        problems = [("id", _id_problem(source.id))]
        texts = {"question": source.question, "answer": source.answer}
    elif isinstance(source, PageChunk):
        problems = [("lecture_unit_id", _id_problem(source.lecture_unit_id)),
                    ("page_number", _page_problem(source.page_number))]
        texts = {"text": source.text}
    elif isinstance(source, TranscriptSegment):
        start, end = _second_problem(source.start), _second_problem(source.end)
        problems = [("lecture_unit_id", _id_problem(source.lecture_unit_id)), ("start", start), ("end", end),
                    ("page_number", None if source.page_number is None else _page_problem(source.page_number))]
        if not start and not end and source.end < source.start:
            problems.append(("end", f"{source.end:g} is before start {source.start:g}"))
        texts = {"text": source.text}
    else:
        _check_kind(source, where)
        return
    problems += [(k, None if isinstance(v, str) else f"expected str, got {type(v).__name__}") for k, v in texts.items()]
    for field, problem in problems:
        if problem:
            raise SourcesError(f"{where}.{field}: {problem}")


def as_sources(value: object, where: str = "sources") -> Sources:
    """``value`` as checked ``Sources``: a ``Sources``; source records (``PageChunk``, ``TranscriptSegment``,
    ``FaqSource``) in a list or any other iterable; or the sources JSON mapping (``Sources.from_json``).
    Anything else, and a record whose fields cannot make a marker, raises ``SourcesError`` naming ``where``
    (``cite: sources: expected Sources, source records or the sources JSON mapping, got list of str``)."""
    if isinstance(value, Sources):
        return value.checked(where)
    if isinstance(value, Mapping):
        return Sources.from_json(value, where)
    expected = f"{where}: expected Sources, source records or the sources JSON mapping"
    if isinstance(value, str | os.PathLike):
        raise SourcesError(f"{expected}, got {type(value).__name__} (read a sources file with Sources.load(path))")
    if isinstance(value, bytes | bytearray) or not isinstance(value, Iterable):
        raise SourcesError(f"{expected}, got {type(value).__name__}")
    listed = list(value)
    for i, item in enumerate(listed):
        if not isinstance(item, PageChunk | TranscriptSegment | FaqSource):
            raise SourcesError(f"{expected}, got {type(value).__name__} of {type(item).__name__} (item {i})")
        check_source(item, f"{where}[{i}]")
    return Sources.of(listed)
