"""Reading the SOURCES.json of ``citation-studio cite`` with field-level errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..sources import FaqSource, LectureSource, PageChunk, TranscriptSegment


def _field(item: dict[str, Any], key: str, where: str, kinds: tuple[type, ...], required: bool = True) -> Any:
    if key not in item or item[key] is None:
        if required:
            raise InputError(f"{where}: missing field {key!r}")
        return None
    value = item[key]
    if not isinstance(value, kinds) or isinstance(value, bool):
        names = " or ".join(k.__name__ for k in kinds)
        raise InputError(f"{where}.{key}: expected {names}, got {json.dumps(value)[:40]}")
    return value


def read_sources(path: Path) -> tuple[list[LectureSource], list[FaqSource]]:
    name = path.name
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    if not isinstance(raw, dict):
        raise InputError(f"{name}: expected a JSON object with 'lecture' and/or 'faqs'")
    lecture: list[LectureSource] = []
    lec = raw.get("lecture") or {}
    if not isinstance(lec, dict):
        raise InputError(f"{name}: lecture: expected an object with 'pages' and/or 'transcriptions'")
    for i, item in enumerate(lec.get("pages") or []):
        where = f"{name}: lecture.pages[{i}]"
        if not isinstance(item, dict):
            raise InputError(f"{where}: expected an object")
        dpn = _field(item, "display_page_number", where, (str, int), required=False)
        lecture.append(PageChunk(
            uuid=str(_field(item, "uuid", where, (str, int))),
            lecture_unit_id=_field(item, "lecture_unit_id", where, (int, str)),
            page_number=_field(item, "page_number", where, (int,)),
            text=_field(item, "text", where, (str,)),
            display_page_number=None if dpn is None else str(dpn),
        ))
    for i, item in enumerate(lec.get("transcriptions") or []):
        where = f"{name}: lecture.transcriptions[{i}]"
        if not isinstance(item, dict):
            raise InputError(f"{where}: expected an object")
        lecture.append(TranscriptSegment(
            uuid=str(_field(item, "uuid", where, (str, int))),
            lecture_unit_id=_field(item, "lecture_unit_id", where, (int, str)),
            start=float(_field(item, "start", where, (int, float))),
            end=float(_field(item, "end", where, (int, float))),
            text=_field(item, "text", where, (str,)),
            page_number=_field(item, "page_number", where, (int,), required=False),
        ))
    faqs: list[FaqSource] = []
    for i, item in enumerate(raw.get("faqs") or []):
        where = f"{name}: faqs[{i}]"
        if not isinstance(item, dict):
            raise InputError(f"{where}: expected an object")
        faqs.append(FaqSource(
            id=_field(item, "id", where, (int, str)),
            question=_field(item, "question", where, (str,)),
            answer=_field(item, "answer", where, (str,)),
        ))
    return lecture, faqs
