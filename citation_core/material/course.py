"""Read a course manifest (``course.yml``) and its FAQ file into typed, validated records.

Every problem is one MaterialError line naming the file and the field, e.g.
``course.yml: lectures[0].units[1].id: expected an integer, got 'abc'``. Checks that need the
deck or transcript loaded (timeline pages within the deck, ...) are in :func:`validate_unit`.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from pathlib import Path

from ..errors import MaterialError
from ..text.names import clean_name
from ..yaml_file import read_yaml
from .deck import load_deck
from .models import (
    Course,
    Deck,
    Faq,
    Lecture,
    LectureUnit,
    MaterialVersions,
    TimelineEntry,
    Transcript,
)
from .timeline import check_timeline_pages, parse_timeline
from .timeline import describe_value as _shown
from .transcript import SUPPORTED_TRANSCRIPT_TYPES, load_transcript

__all__ = ["LANGUAGE_CODE", "MANIFEST_NAME", "load_course", "load_faqs", "validate_course", "validate_unit"]

MANIFEST_NAME = "course.yml"

_COURSE_KEYS = {"id", "name", "language", "faqs", "lectures"}
_LECTURE_KEYS = {"id", "name", "units"}
_UNIT_KEYS = {
    "id",
    "name",
    "language",
    "deck",
    "display_numbers",
    "video",
    "transcript",
    "timeline",
    "versions",
    "source_name",  # the original file name of an uploaded deck (library course)
    "released",  # false: withheld from students whatever the date
    "release_date",  # withheld from students before this day (YYYY-MM-DD) or moment (YYYY-MM-DD HH:MM)
    "hidden_pages",  # deck indexes students never see
}
_FAQ_KEYS = {"id", "question", "answer", "language"}
LANGUAGE_CODE = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*")


def load_course(root: Path) -> Course:
    """Load ``root/course.yml`` (``root`` may also be the manifest file itself)."""
    manifest = root if root.is_file() else root / MANIFEST_NAME
    root = manifest.parent.resolve()
    file = manifest.name
    if not manifest.is_file():
        raise MaterialError(f"{file}: {_not_a_manifest(manifest)}")
    if not manifest.resolve().is_relative_to(root):
        # a link to some other file: its content must not end up in an error message
        raise MaterialError(f"{file}: is a symbolic link to a file outside the course folder; not read")
    data = _mapping(_read_yaml(manifest), file, "")
    _no_unknown(data, _COURSE_KEYS, file, "")
    course_id = _int(data, "id", file, "")
    name = _name(data, file, "")
    language = _language(data, "language", file, "", default="en")

    faqs: tuple[Faq, ...] = ()
    faq_path = _path(data, "faqs", file, "", root)
    if faq_path is not None:
        faqs = load_faqs(faq_path, default_language=language)

    lectures: list[Lecture] = []
    seen_lectures: dict[int, str] = {}
    seen_units: dict[int, str] = {}
    for li, raw_lecture in enumerate(_list(data, "lectures", file, "")):
        where = f"lectures[{li}]"
        lecture_data = _mapping(raw_lecture, file, where)
        _no_unknown(lecture_data, _LECTURE_KEYS, file, where)
        lecture_id = _int(lecture_data, "id", file, where)
        _unique(lecture_id, seen_lectures, "lecture", file, where)
        lecture_name = _name(lecture_data, file, where)
        units: list[LectureUnit] = []
        for ui, raw_unit in enumerate(_list(lecture_data, "units", file, where)):
            unit_where = f"{where}.units[{ui}]"
            unit = _unit(raw_unit, file, unit_where, root, lecture_id, lecture_name, language)
            _unique(unit.id, seen_units, "unit", file, unit_where)
            units.append(unit)
        lectures.append(Lecture(id=lecture_id, name=lecture_name, units=tuple(units)))
    return Course(id=course_id, name=name, language=language, root=root, lectures=tuple(lectures), faqs=faqs)


def load_faqs(path: Path, default_language: str = "en") -> tuple[Faq, ...]:
    """Load a YAML list of ``{id, question, answer, language?}`` entries."""
    file = path.name
    if not path.is_file():
        raise MaterialError(f"{file}: FAQ file not found ({path})")
    raw = _read_yaml(path)
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise MaterialError(f"{file}: expected a list of {{id, question, answer}} entries, got {_shown(raw)}")
    faqs: list[Faq] = []
    seen: dict[int, str] = {}
    for index, item in enumerate(raw):
        where = f"[{index}]"
        entry = _mapping(item, file, where)
        _no_unknown(entry, _FAQ_KEYS, file, where)
        faq_id = _int(entry, "id", file, where)
        _unique(faq_id, seen, "FAQ", file, where)
        faqs.append(
            Faq(
                id=faq_id,
                question=_text(entry, "question", file, where),
                answer=_text(entry, "answer", file, where),
                language=_language(entry, "language", file, where, default=default_language),
            )
        )
    return tuple(faqs)


def validate_unit(
    unit: LectureUnit,
    deck: Deck | None = None,
    transcript: Transcript | None = None,
    source: str | None = None,
) -> list[str]:
    """Problems only visible with the material loaded, one line each (empty: all fine).

    Loads the unit's deck and transcript unless given. Reports load errors, the deck's and
    transcript's own warnings, timeline pages past the deck and timeline entries after the
    end of the transcript. ``source`` names the unit in messages (default ``unit <id>``).
    """
    where = source or f"unit {unit.id} ({unit.name})"
    problems: list[str] = []
    if deck is None and unit.deck is not None:
        try:
            deck = load_deck(unit.deck, unit.display_overrides)
        except MaterialError as err:
            problems.append(str(err))
    if transcript is None and unit.transcript is not None:
        try:
            transcript = load_transcript(unit.transcript)
        except MaterialError as err:
            problems.append(str(err))
    if deck is not None:
        problems.extend(deck.warnings)
        try:
            check_timeline_pages(unit.timeline, len(deck.pages), where)
        except MaterialError as err:
            problems.append(str(err))
        past = sorted(p for p in unit.hidden_pages if p > len(deck.pages))
        if past:
            problems.append(f"{where}: hidden_pages: page {past[0]} is past the deck's {len(deck.pages)} pages")
    if transcript is not None:
        problems.extend(transcript.warnings)
        end = max((cue.end for cue in transcript.cues), default=0.0)
        for index, entry in enumerate(unit.timeline):
            if entry.at > end:
                problems.append(
                    f"{where}: timeline[{index}].at: {entry.at:g} s is after the transcript ends ({end:g} s)"
                )
                break
    return problems


def validate_course(course: Course) -> list[str]:
    """:func:`validate_unit` for every unit, each named by its place in the manifest."""
    problems: list[str] = []
    for li, lecture in enumerate(course.lectures):
        for ui, unit in enumerate(lecture.units):
            problems.extend(validate_unit(unit, source=f"{MANIFEST_NAME}: lectures[{li}].units[{ui}]"))
    return problems


# --- one unit ------------------------------------------------------------------------------


def _unit(
    raw: object,
    file: str,
    where: str,
    root: Path,
    lecture_id: int,
    lecture_name: str,
    course_language: str,
) -> LectureUnit:
    data = _mapping(raw, file, where)
    _no_unknown(data, _UNIT_KEYS, file, where)
    unit_id = _int(data, "id", file, where)
    name = _name(data, file, where)
    deck = _path(data, "deck", file, where, root)
    transcript = _path(data, "transcript", file, where, root)
    if transcript is not None and transcript.suffix.lower() not in SUPPORTED_TRANSCRIPT_TYPES:
        raise MaterialError(
            f"{file}: {where}.transcript: unsupported type '{transcript.suffix or '(none)'}' (expected .vtt or .srt)"
        )
    timeline: tuple[TimelineEntry, ...] = ()
    if data.get("timeline") is not None:
        if deck is None:
            raise MaterialError(f"{file}: {where}.timeline: a timeline needs a deck")
        timeline = _timeline(data["timeline"], file, f"{where}.timeline")
    overrides = _display_numbers(data, file, where)
    if overrides and deck is None:
        raise MaterialError(f"{file}: {where}.display_numbers: display numbers need a deck")
    hidden = _hidden_pages(data, file, where)
    if hidden and deck is None:
        raise MaterialError(f"{file}: {where}.hidden_pages: hidden pages need a deck")
    return LectureUnit(
        id=unit_id,
        name=name,
        lecture_id=lecture_id,
        lecture_name=lecture_name,
        deck=deck,
        video=_path(data, "video", file, where, root),
        transcript=transcript,
        timeline=timeline,
        versions=_versions(data, file, where),
        display_overrides=overrides,
        language=_language(data, "language", file, where, default=course_language),
        released=_bool(data, "released", file, where, default=True),
        release_date=_release_date(data, file, where),
        hidden_pages=hidden,
    )


def _timeline(raw: object, file: str, field: str) -> tuple[TimelineEntry, ...]:
    try:
        return parse_timeline(raw, file, field)
    except OverflowError:  # an integer too large to be a number of seconds
        index = next(
            i for i, item in enumerate(raw if isinstance(raw, list) else [])
            if isinstance(item, Mapping) and isinstance(item.get("at"), int) and not _fits_float(item["at"])
        )
        raise MaterialError(f"{file}: {field}[{index}].at: the number of seconds is too large") from None


def _fits_float(value: int) -> bool:
    try:
        float(value)
    except OverflowError:
        return False
    return True


def _display_numbers(data: Mapping[str, object], file: str, where: str) -> dict[int, str | None]:
    raw = data.get("display_numbers")
    if raw is None:
        return {}
    field = _join(where, "display_numbers")
    if not isinstance(raw, Mapping):
        raise MaterialError(f"{file}: {field}: expected a mapping page -> printed number, got {_shown(raw)}")
    overrides: dict[int, str | None] = {}
    for key, value in raw.items():
        digits = key.strip() if isinstance(key, str) else ""
        page = int(digits) if digits.isascii() and digits.isdigit() and len(digits) < 10 else key
        if isinstance(page, bool) or not isinstance(page, int) or page < 1:
            raise MaterialError(f"{file}: {field}: page {_shown(key)} is not a page number >= 1")
        if value is None or (isinstance(value, str) and not value.strip()):
            overrides[page] = None
        elif isinstance(value, str):
            overrides[page] = value.strip()
        elif isinstance(value, int) and not isinstance(value, bool):
            overrides[page] = str(value)
        else:
            raise MaterialError(
                f"{file}: {field}[{page}]: expected a printed number (text) or null, got {_shown(value)}"
            )
    return overrides


def _hidden_pages(data: Mapping[str, object], file: str, where: str) -> frozenset[int]:
    raw = data.get("hidden_pages")
    if raw is None:
        return frozenset()
    field = _join(where, "hidden_pages")
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = [raw]
    if not isinstance(raw, list):
        raise MaterialError(f"{file}: {field}: expected a list of page numbers like [3, 4], got {_shown(raw)}")
    pages: set[int] = set()
    for index, value in enumerate(raw):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise MaterialError(
                f"{file}: {field}[{index}]: expected a page number >= 1 (deck index), got {_shown(value)}"
            )
        pages.add(value)
    return frozenset(pages)


def _bool(data: Mapping[str, object], key: str, file: str, where: str, default: bool) -> bool:
    value = data.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise MaterialError(f"{file}: {_join(where, key)}: expected true or false, got {_shown(value)}")
    return value


def _release_date(data: Mapping[str, object], file: str, where: str) -> dt.date | dt.datetime | None:
    value = data.get("release_date")
    if value is None:
        return None
    field = _join(where, "release_date")
    if isinstance(value, dt.date):  # YAML reads 2027-01-15 as a date, 2027-01-15 10:00 as a datetime
        return value
    if isinstance(value, str):
        text = value.strip()
        try:
            return dt.date.fromisoformat(text) if len(text) == 10 else dt.datetime.fromisoformat(text)
        except ValueError:
            pass
    raise MaterialError(f"{file}: {field}: expected a date like 2027-01-15 (or 2027-01-15 10:00), got {_shown(value)}")


def _versions(data: Mapping[str, object], file: str, where: str) -> MaterialVersions:
    raw = data.get("versions")
    if raw is None:
        return MaterialVersions()
    field = _join(where, "versions")
    versions = _mapping(raw, file, field)
    _no_unknown(versions, {"attachment", "video"}, file, field)
    numbers: dict[str, int] = {}
    for key in ("attachment", "video"):
        if versions.get(key) is None:
            numbers[key] = 1
            continue
        value = _int(versions, key, file, field)
        if value < 1:
            raise MaterialError(f"{file}: {field}.{key}: versions start at 1, got {value}")
        numbers[key] = value
    return MaterialVersions(attachment=numbers["attachment"], video=numbers["video"])


# --- field readers -------------------------------------------------------------------------


def _read_yaml(path: Path) -> object:
    try:
        return read_yaml(path, MaterialError)
    except ValueError as err:  # a value YAML resolves but Python cannot build: a date 2024-13-45, a huge integer
        reason = "a number with thousands of digits" if "integer string conversion" in str(err) else str(err)
        raise MaterialError(f"{path.name}: invalid YAML: a value cannot be read ({reason})") from None


def _not_a_manifest(path: Path) -> str:
    if path.is_dir():
        return f"is a directory, not a course manifest ({path})"
    if path.exists():
        return f"is not a regular file (a device, pipe or socket?) ({path})"
    return f"course manifest not found in {path.parent}"


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _mapping(value: object, file: str, where: str) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        place = f"{file}: {where}" if where else file
        raise MaterialError(f"{place}: expected a mapping, got {_shown(value)}")
    return {str(key): item for key, item in value.items()}


def _no_unknown(data: Mapping[str, object], allowed: set[str], file: str, where: str) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        place = f"{file}: {where}" if where else file
        raise MaterialError(f"{place}: unknown field '{unknown[0]}' (allowed: {', '.join(sorted(allowed))})")


def _required(data: Mapping[str, object], key: str, file: str, where: str) -> object:
    if data.get(key) is None:
        raise MaterialError(f"{file}: {_join(where, key)}: missing")
    return data[key]


def _int(data: Mapping[str, object], key: str, file: str, where: str) -> int:
    value = _required(data, key, file, where)
    if isinstance(value, bool) or not isinstance(value, int):
        raise MaterialError(f"{file}: {_join(where, key)}: expected an integer, got {_shown(value)}")
    return value


def _text(data: Mapping[str, object], key: str, file: str, where: str) -> str:
    value = _required(data, key, file, where)
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)  # a name like 2024 is still a name
    if not isinstance(value, str) or not value.strip():
        raise MaterialError(f"{file}: {_join(where, key)}: expected text, got {_shown(value)}")
    return value.strip()


def _name(data: Mapping[str, object], file: str, where: str) -> str:
    """The ``name`` field, cleaned of what would steer a terminal or reorder a line (``clean_name``)."""
    name = clean_name(_text(data, "name", file, where))
    if not name:
        raise MaterialError(f"{file}: {_join(where, 'name')}: expected text, got only control characters")
    return name


def _language(data: Mapping[str, object], key: str, file: str, where: str, default: str) -> str:
    value = data.get(key)
    if value is None:
        return default
    if not isinstance(value, str) or not LANGUAGE_CODE.fullmatch(value.strip()):
        raise MaterialError(
            f"{file}: {_join(where, key)}: expected a language code like 'en' or 'pt-BR', got {_shown(value)}"
        )
    return value.strip()


def _list(data: Mapping[str, object], key: str, file: str, where: str) -> list[object]:
    value = _required(data, key, file, where)
    if not isinstance(value, list):
        raise MaterialError(f"{file}: {_join(where, key)}: expected a list, got {_shown(value)}")
    return value


def _path(data: Mapping[str, object], key: str, file: str, where: str, root: Path) -> Path | None:
    value = data.get(key)
    if value is None:
        return None
    field = _join(where, key)
    if not isinstance(value, str) or not value.strip():
        raise MaterialError(f"{file}: {field}: expected a file path, got {_shown(value)}")
    path = root / value.strip()
    if not path.is_file():
        what = "is a directory" if path.is_dir() else "is not a regular file" if path.exists() else "file not found"
        raise MaterialError(f"{file}: {field}: {what}: {value.strip()}")
    return path


def _unique(value: int, seen: dict[int, str], what: str, file: str, where: str) -> None:
    if value in seen:
        raise MaterialError(f"{file}: {where}.id: duplicate {what} id {value} (also at {seen[value]})")
    seen[value] = where
