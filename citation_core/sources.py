"""Source records handed to the citation pipeline (DESIGN 4.1), and ``Sources``, the set of them for one answer."""

from __future__ import annotations

import json
import math
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
        """Sort a mixed list of sources into lecture sources and FAQs (order kept)."""
        listed = list(items)
        return Sources(tuple(s for s in listed if not isinstance(s, FaqSource)),
                       tuple(s for s in listed if isinstance(s, FaqSource)))

    @staticmethod
    def load(path: Path) -> Sources:
        """Read a sources JSON file; any problem raises ``SourcesError`` naming the file and field."""
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
        if not isinstance(raw, Mapping):
            raise SourcesError(f"{name}: expected a JSON object with 'lecture' and/or 'faqs'")
        lec = raw.get("lecture") or {}
        if not isinstance(lec, Mapping):
            raise SourcesError(f"{name}: lecture: expected an object with 'pages' and/or 'transcriptions'")
        lecture: list[LectureSource] = []
        for i, item in enumerate(_items(lec, "pages", f"{name}: lecture")):
            r = _Record(item, f"{name}: lecture.pages[{i}]")
            dpn = r.get("display_page_number", (str, int), required=False)
            lecture.append(PageChunk(uuid=str(r.get("uuid", (str, int))), lecture_unit_id=r.get("lecture_unit_id",
                                     (int, str)), page_number=r.count("page_number"), text=r.get("text", (str,)),
                                     display_page_number=None if dpn is None else str(dpn)))
        for i, item in enumerate(_items(lec, "transcriptions", f"{name}: lecture")):
            r = _Record(item, f"{name}: lecture.transcriptions[{i}]")
            start, end = r.seconds("start"), r.seconds("end")
            if end < start:
                raise SourcesError(f"{r.where}.end: {end:g} is before start {start:g}")
            page = r.count("page_number", required=False)
            lecture.append(TranscriptSegment(uuid=str(r.get("uuid", (str, int))), lecture_unit_id=r.get(
                "lecture_unit_id", (int, str)), start=start, end=end, text=r.get("text", (str,)), page_number=page))
        faqs: list[FaqSource] = []
        for i, item in enumerate(_items(raw, "faqs", name)):
            r = _Record(item, f"{name}: faqs[{i}]")
            faqs.append(FaqSource(id=r.get("id", (int, str)), question=r.get("question", (str,)),
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

    def count(self, key: str, required: bool = True) -> Any:
        """A 1-based page number."""
        value = self.get(key, (int,), required)
        if value is not None and value < 1:
            raise SourcesError(f"{self.where}.{key}: pages start at 1, got {value}")
        return value

    def seconds(self, key: str) -> float:
        value = float(self.get(key, (int, float)))
        if not math.isfinite(value) or value < 0:
            raise SourcesError(f"{self.where}.{key}: expected a second >= 0, got {self.item.get(key)}")
        return value
