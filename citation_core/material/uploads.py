"""The user's own library: uploaded decks (with optional transcript and FAQs) as a course folder.

Every upload is checked completely, from a scratch copy inside the library folder, before the library
changes; uploaded file names are shown but never used as paths. A re-upload of a deck with the same
file name replaces it; only when its content changed (compared by SHA-256 with the stored file, as an
LMS compares attachment checksums) does the unit's attachment version go up, so that answers stored
earlier become stale. The same holds for a transcript and the video version. A unit's name, lecture
and language are given with the upload (:func:`suggest_unit` reads what to offer from the deck: its title
and the language of its text) and can be changed afterwards (:func:`update_unit`) without touching its
versions. A unit's transcript can be added, replaced (:func:`set_transcript`) or removed
(:func:`remove_transcript`) on its own; its deck stays as it is.

This module is the one place that changes the stored library; ``upload_messages`` words what each change did.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import io
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml

from ..errors import MaterialError
from ..text.languages import LANGUAGES, detect_text_language, language_name
from ..text.names import clean_name
from ..yaml_file import read_yaml
from .course import LANGUAGE_CODE, MANIFEST_NAME, load_course, load_faqs
from .deck import Progress, load_deck
from .models import Course, Deck, LectureUnit, Transcript
from .pdf_errors import PDF_ERRORS
from .transcript import load_transcript

LIBRARY_COURSE_ID = 900
UPLOAD_LECTURE_ID = 9000
UPLOAD_LECTURE_NAME = "Uploaded decks"
FIRST_UNIT_ID = 9001
MAX_NAME_CHARS = 200  # unit and lecture names set in the Library
_SHOWN_NAME = 80  # characters of an uploaded file name shown in messages and unit names
TRANSCRIPT_SUFFIXES = (".vtt", ".srt")

_T = TypeVar("_T")


@dataclass(frozen=True)
class Upload:
    name: str
    data: bytes


TranscriptAction = Literal["added", "replaced", "unchanged", "removed"]


@dataclass(frozen=True)
class TranscriptChange:
    """What an upload or a removal did to a unit's transcript."""

    action: TranscriptAction
    name: str  # the transcript's file name as shown: the uploaded one, or for a removal the stored one
    cues: int  # cues of the transcript the unit has now (0 after a removal)
    language: str | None  # the language of its spoken text; None: too little text to tell (or removed)


@dataclass(frozen=True)
class TranscriptResult:
    """A unit after its transcript alone was added, replaced or removed (its deck untouched)."""

    unit_id: int
    unit_name: str
    unit_language: str  # the language the unit gives its deck
    video_version: int
    change: TranscriptChange
    warnings: tuple[str, ...]
    course_id: int = LIBRARY_COURSE_ID
    course_name: str = ""
    lecture_name: str = ""

    @property
    def stales_answers(self) -> bool:
        """Whether answers stored earlier that cite the transcript now show as stale (the video version went up)."""
        return self.change.action in ("replaced", "removed")


@dataclass(frozen=True)
class UploadResult:
    unit_id: int
    unit_name: str
    attachment_version: int
    video_version: int
    replaced: bool  # a unit with this deck file name existed
    pages: int
    warnings: tuple[str, ...]
    deck_changed: bool = True  # False: the same bytes as the stored deck (the version stays)
    transcript_changed: bool = False  # the stored transcript's content changed (the video version went up)
    course_name: str = ""  # the library course the unit is in, and its lecture
    lecture_name: str = ""
    language: str = "en"
    course_id: int = LIBRARY_COURSE_ID
    transcript: TranscriptChange | None = None  # what happened to the transcript uploaded with the deck

    @property
    def stales_answers(self) -> bool:
        """Whether answers stored earlier for this unit now show as stale (a version went up)."""
        return self.replaced and (self.deck_changed or self.transcript_changed)


@contextmanager
def _locked(root: Path) -> Iterator[None]:
    root.mkdir(parents=True, exist_ok=True)
    try:  # O_NOFOLLOW: a link planted as the lock file must not make the lock open a file elsewhere
        fd = os.open(root / ".lock", os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as err:
        raise MaterialError(f"{root / '.lock'}: cannot lock the library folder ({err.strerror})") from None
    with os.fdopen(fd, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".upload-")
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def _check(upload: Upload, suffixes: tuple[str, ...], max_bytes: int, what: str) -> str:
    """The upload's suffix, once its name, size and content pass the checks that need no parsing."""
    shown = display_name(upload.name)
    suffix = _suffix(upload.name)
    if suffix not in suffixes:
        raise MaterialError(f"{shown}: a {what} must be {' or '.join(suffixes)}, got {suffix or 'no extension'}")
    if len(upload.data) > max_bytes:
        raise MaterialError(
            f"{shown}: {len(upload.data) / 1e6:.1f} MB is larger than the {max_bytes / 1e6:.0f} MB upload limit"
        )
    if not upload.data:
        raise MaterialError(f"{shown}: the file is empty")
    return suffix


def display_name(name: str) -> str:
    """An uploaded file's name as messages and the library show it: its last part, printable, short.

    A browser sends any text as the name (``../../x.pdf``, ``C:\\x.pdf``, NUL bytes, ``<a>/</a>.pdf``);
    it is never used as a path. Only what follows the last ``/`` or ``\\`` is kept, control and
    format characters become spaces, and long names are cut short.
    """
    base = re.split(r"[/\\]", name)[-1]
    base = " ".join("".join(ch if ch.isprintable() else " " for ch in base).split())
    if len(base) > _SHOWN_NAME:
        stem, suffix = _split_suffix(base)
        base = stem[: _SHOWN_NAME - len(suffix) - 1] + "…" + suffix
    return base or "unnamed"


def _split_suffix(base: str) -> tuple[str, str]:
    """``("notes", ".pdf")`` for ``notes.pdf``; a suffix is a dot and up to 8 letters or digits."""
    match = re.search(r"\.[A-Za-z0-9]{1,8}$", base)
    if match is None or match.start() == 0:
        return base, ""
    return base[: match.start()], match.group(0)


def _suffix(name: str) -> str:
    return _split_suffix(display_name(name))[1].lower()


def _slug(name: str) -> str:
    """A file name part made only of ASCII letters, digits, ``.``, ``_`` and ``-`` (never starting with a dot)."""
    stem = _split_suffix(display_name(name))[0]
    return re.sub(r"[^A-Za-z0-9._-]+", "_", stem).strip("._")[:60] or "deck"


def _scratch_copy(scratch: Path, upload: Upload, safe_name: str, load: Callable[[Path], _T]) -> _T:
    """Write the upload under a safe name in ``scratch`` and load it; messages name the upload."""
    path = scratch / safe_name
    path.write_bytes(upload.data)
    try:
        return load(path)
    except MaterialError as err:
        raise MaterialError(_renamed(str(err), safe_name, display_name(upload.name))) from None


def _renamed(message: str, safe_name: str, shown: str) -> str:
    return shown + message[len(safe_name):] if message.startswith(safe_name + ":") else message


def _inside(root: Path, rel: str) -> Path:
    """``root / rel``, refused unless it stays inside the library folder (the manifest could be edited)."""
    path = root / rel
    if not path.resolve().is_relative_to(root.resolve()):
        raise MaterialError(f"{MANIFEST_NAME}: '{rel}' is outside the library folder; the upload was not stored")
    return path


def _manifest(root: Path) -> dict[str, Any]:
    path = root / MANIFEST_NAME
    if path.is_file():
        data = read_yaml(path, MaterialError)
        if isinstance(data, dict):
            return data
    return {"id": LIBRARY_COURSE_ID, "name": "My uploads", "language": "en",
            "lectures": [{"id": UPLOAD_LECTURE_ID, "name": UPLOAD_LECTURE_NAME, "units": []}]}


def _lectures(data: dict[str, Any]) -> list[dict[str, Any]]:
    lectures = data.get("lectures")
    if not isinstance(lectures, list) or not all(isinstance(lec, dict) for lec in lectures):
        raise MaterialError(f"{MANIFEST_NAME}: lectures: expected a list of lectures; the library was not changed")
    for lecture in lectures:
        if not isinstance(lecture.get("units"), list):
            lecture["units"] = []
    return lectures


def _find_unit(data: dict[str, Any], match: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
    return next((u for lec in _lectures(data) for u in lec["units"] if isinstance(u, dict) and match(u)), None)


def _lecture_named(data: dict[str, Any], name: str) -> dict[str, Any]:
    """The lecture called ``name``, made (with the next free id) when there is none."""
    lectures = _lectures(data)
    for lecture in lectures:
        if str(lecture.get("name", "")).strip() == name:
            return lecture
    ids = [int(lec["id"]) for lec in lectures if isinstance(lec.get("id"), int)]
    lecture = {"id": max([UPLOAD_LECTURE_ID - 1, *ids]) + 1, "name": name, "units": []}
    lectures.append(lecture)
    return lecture


def _write_manifest(root: Path, data: dict[str, Any]) -> None:
    """Write the manifest, unless it would not change (an unchanged manifest keeps its time stamp, so
    nothing that watches it reloads the course)."""
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False).encode("utf-8")
    path = _inside(root, MANIFEST_NAME)
    if path.is_file() and path.read_bytes() == text:
        return
    _write_atomic(path, text)


def _same_content(path: Path, data: bytes) -> bool:
    try:
        stored = path.read_bytes()
    except OSError:
        return False
    return hashlib.sha256(stored).digest() == hashlib.sha256(data).digest()


@dataclass(frozen=True)
class UnitSuggestion:
    """What the upload form offers for a chosen deck before it is added."""

    name: str
    lecture_name: str
    language: str
    detected: str | None  # the language read from the deck's text; None: too little text, or unreadable
    title: str | None  # the PDF's own title (its metadata), cleaned
    existing: int | None = None  # the unit a deck of this file name is already in (a re-upload)
    problem: str | None = None  # why adding it would be refused (one line naming the file); None: it reads


_TITLE_JUNK = re.compile(r"^(?:microsoft (?:powerpoint|word)|powerpoint|keynote)\s*-\s*", re.IGNORECASE)
_TITLE_SUFFIX = re.compile(r"\.(?:pptx?|key|odp|docx?|tex|pdf)$", re.IGNORECASE)
_GENERIC_TITLES = {"untitled", "presentation", "powerpoint presentation", "powerpoint-präsentation", "slide 1",
                   "folie 1", "title", "titel"}


def deck_title(data: bytes) -> str | None:
    """The title a PDF's metadata gives, made printable and short; None when it has none worth showing
    (missing, empty, a file name such as "Microsoft PowerPoint - x.pptx" without its prefix and suffix
    left, or a placeholder such as "Untitled"). Never raises: a PDF that cannot be read has no title."""
    import pypdf

    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            return None
        metadata = reader.metadata
        raw = metadata.title if metadata is not None else None
    except PDF_ERRORS + (MemoryError,):
        return None
    if not isinstance(raw, str):
        return None
    text = " ".join("".join(ch if ch.isprintable() else " " for ch in raw).split())
    text = _TITLE_SUFFIX.sub("", _TITLE_JUNK.sub("", text)).strip()
    if not any(ch.isalpha() for ch in text) or text.lower() in _GENERIC_TITLES:
        return None
    return text[:MAX_NAME_CHARS].rstrip()


def deck_language(deck: Deck) -> str | None:
    """The language of the deck's text (``detect_text_language`` over its pages); None when it cannot be told."""
    return detect_text_language("\n".join(page.text for page in deck.pages))


def transcript_language(transcript: Transcript) -> str | None:
    """The language of the transcript's spoken text, read as a deck's is; None when it cannot be told."""
    return detect_text_language(" ".join(cue.text for cue in transcript.cues[:2000]))


def languages_differ(deck_lang: str | None, spoken: str | None) -> tuple[str, str] | None:
    """(the deck's language, the transcript's) where both are known and differ; a regional code such as
    "de-CH" counts as its language, and a code that is not one of the LANGUAGES is never said to differ."""
    base = (deck_lang or "").strip().lower().replace("_", "-").split("-")[0]
    return (base, spoken) if base in LANGUAGES and spoken and base != spoken else None


def _mismatch_warning(transcript_name: str, spoken: str | None, deck_lang: str | None, deck: str) -> list[str]:
    """The warning that ``deck`` (its words: "the deck x.pdf") is in another language than the transcript."""
    differ = languages_differ(deck_lang, spoken)
    if differ is None:
        return []
    return [f"{display_name(transcript_name)}: the transcript is in {language_name(differ[1])}, {deck} in "
            f"{language_name(differ[0])}: answers quote each in its own language"]


def _default_name(deck_name: str) -> str:
    """A new unit's name from its deck's file name: the stem with underscores as spaces."""
    source_name = display_name(deck_name)
    return _split_suffix(source_name)[0].replace("_", " ").strip() or _slug(deck_name)


def suggest_unit(root: Path, deck: Upload, max_bytes: int = 50_000_000) -> UnitSuggestion:
    """The unit name, lecture and language to offer for ``deck`` before it is added to the library at ``root``.

    A deck the library already holds under this file name (a re-upload) offers its unit's name, lecture and
    language. Else the name is the PDF's title (its metadata), or the file name; the lecture is
    "Uploaded decks"; the language is the one read from the deck's text (``deck_language``), or the
    library's. The deck's text is read without its page images (the printed numbers are read when it is
    added; the text is kept, so it is not read twice). Never raises: a file that :func:`add_upload` would
    refuse (not a PDF, empty, too large, unreadable) gets the file name, the library's language and the
    refusal as ``problem``, so that it is said when the file is chosen.
    """
    course_language = "en"
    detected, problem = _read_language(deck, max_bytes)
    try:
        data = _manifest(root) if (root / MANIFEST_NAME).is_file() else None
        if data is not None:
            course_language = str(data.get("language") or "en")
            source_name = display_name(deck.name)
            for lecture in _lectures(data):
                unit = next((u for u in lecture["units"] if isinstance(u, dict)
                             and u.get("source_name") == source_name), None)
                if unit is not None:
                    return UnitSuggestion(str(unit.get("name") or _default_name(deck.name)),
                                          str(lecture.get("name") or UPLOAD_LECTURE_NAME),
                                          str(unit.get("language") or course_language),
                                          detected, deck_title(deck.data), _int_or_none(unit), problem)
    except MaterialError:
        pass  # an unreadable manifest: adding the deck says so
    title = deck_title(deck.data) if problem is None else None
    return UnitSuggestion(title or _default_name(deck.name), UPLOAD_LECTURE_NAME, detected or course_language,
                          detected, title, problem=problem)


def _int_or_none(unit: dict[str, Any]) -> int | None:
    value = unit.get("id")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _read_language(deck: Upload, max_bytes: int) -> tuple[str | None, str | None]:
    """The language of an uploaded deck's text, read from a scratch copy (None: it cannot be told), and why
    adding the deck would be refused (None: it reads)."""
    try:
        _check(deck, (".pdf",), max_bytes, "deck")
        with tempfile.TemporaryDirectory(prefix="citation-studio-upload-") as tmp:
            loaded = _scratch_copy(Path(tmp), deck, f"{_slug(deck.name)}.pdf",
                                   lambda path: load_deck(path, read_images=False))
            return deck_language(loaded), None
    except MaterialError as err:
        return None, str(err)
    except OSError:  # no scratch space: adding it says what is wrong
        return None, None


def _unit_fields(where: str, name: str | None, lecture_name: str | None, language: str | None) -> dict[str, str]:
    """The name, lecture and language given for a unit, checked: one MaterialError naming the field."""
    changes: dict[str, str] = {}
    for key, label, value in (("name", "name", name), ("lecture", "lecture name", lecture_name)):
        if value is None:
            continue
        text = clean_name(value)  # no terminal control, bidi override or zero-width character is stored
        if not text:
            raise MaterialError(f"{where}: {label}: must not be empty")
        if len(text) > MAX_NAME_CHARS:
            raise MaterialError(f"{where}: {label}: {len(text)} characters, at most {MAX_NAME_CHARS}")
        changes[key] = text
    if language is not None:
        code = language.strip()
        if not LANGUAGE_CODE.fullmatch(code):
            raise MaterialError(f"{where}: language: expected a language code like 'en' or 'pt-BR', got {language!r}")
        changes["language"] = code
    return changes


def _apply_fields(data: dict[str, Any], unit: dict[str, Any], changes: dict[str, str]) -> None:
    """Set a unit's name and language, and move it into the lecture named (made when there is none; a
    lecture left without units is removed)."""
    if "name" in changes:
        unit["name"] = changes["name"]
    if "language" in changes:
        unit["language"] = changes["language"]
    if "lecture" in changes:
        lectures = _lectures(data)
        current = next(lec for lec in lectures if unit in lec["units"])
        if str(current.get("name", "")).strip() != changes["lecture"]:
            current["units"].remove(unit)
            _lecture_named(data, changes["lecture"])["units"].append(unit)
            if not current["units"]:
                lectures.remove(current)


def add_upload(root: Path, deck: Upload, transcript: Upload | None = None, faqs: Upload | None = None,
               max_bytes: int = 50_000_000, language: str | None = None, progress: Progress | None = None, *,
               name: str | None = None, lecture_name: str | None = None) -> UploadResult:
    """Validate and store an upload in the library course at ``root``; raise MaterialError on bad files.

    The uploaded names are only shown, never used as paths: every file is stored under a name made
    from the unit id and an ASCII slug, and nothing is written outside ``root``. ``progress(done,
    total)`` follows the reading of page images when the deck's printed numbers are only drawn.

    ``name``, ``lecture_name`` and ``language`` set the unit's; left out, a new unit is named after the
    file, goes into the lecture "Uploaded decks" and gets the language read from the deck's text (else
    the library's), while a re-uploaded one keeps its own. Setting them never changes a version.
    """
    fields = _unit_fields("upload", name, lecture_name, language)
    _check(deck, (".pdf",), max_bytes, "deck")
    tsuffix = _check(transcript, TRANSCRIPT_SUFFIXES, max_bytes, "transcript") if transcript else None
    if faqs:
        _check(faqs, (".yml", ".yaml"), max_bytes, "FAQ file")
    slug = _slug(deck.name)
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root, prefix=".upload-") as tmp:
        # everything is read and checked from a scratch copy before the library changes
        scratch = Path(tmp)
        loaded = _scratch_copy(scratch, deck, f"{slug}.pdf", lambda path: load_deck(path, progress=progress))
        warnings = [_renamed(w, f"{slug}.pdf", display_name(deck.name)) for w in loaded.warnings]
        # read on first need, once: beside a transcript's language, and as a new unit's
        deck_lang = functools.cache(functools.partial(deck_language, loaded))
        tr: Transcript | None = None
        spoken: str | None = None
        if transcript and tsuffix:
            tr = _read_transcript(scratch, transcript, tsuffix, warnings)
            spoken = transcript_language(tr)
            warnings.extend(_mismatch_warning(transcript.name, spoken, deck_lang(),
                                              f"the deck {display_name(deck.name)}"))
        if faqs:
            _scratch_copy(scratch, faqs, f"faqs{_suffix(faqs.name)}", load_faqs)

    with _locked(root):
        data = _manifest(root)
        source_name = display_name(deck.name)
        existing = _find_unit(data, lambda u: u.get("source_name") == source_name)
        replaced = existing is not None
        deck_changed = True
        if existing is None:
            units = [u for lec in _lectures(data) for u in lec["units"] if isinstance(u, dict)]
            unit_id = max([FIRST_UNIT_ID - 1, *[int(u["id"]) for u in units]]) + 1
            detected = deck_lang() if "language" not in fields else None
            existing = {"id": unit_id, "name": _default_name(deck.name),
                        "language": detected or str(data.get("language") or "en"),
                        "deck": f"decks/{unit_id}_{slug}.pdf", "source_name": source_name,
                        "versions": {"attachment": 1, "video": 1}}
            _lecture_named(data, fields.get("lecture", UPLOAD_LECTURE_NAME))["units"].append(existing)
        else:
            versions = existing.setdefault("versions", {"attachment": 1, "video": 1})
            deck_changed = not _same_content(_inside(root, str(existing["deck"])), deck.data)
            if deck_changed:
                versions["attachment"] = int(versions.get("attachment", 1)) + 1
        unit_id = int(existing["id"])
        if deck_changed:
            _write_atomic(_inside(root, str(existing["deck"])), deck.data)
        change: TranscriptChange | None = None
        left: Path | None = None
        if transcript and tsuffix and tr is not None:
            action, left = _store_transcript(root, existing, transcript, tsuffix)
            change = TranscriptChange(action, display_name(transcript.name), len(tr.cues), spoken)
        if faqs:
            _write_atomic(_inside(root, "faqs.yml"), faqs.data)
            data["faqs"] = "faqs.yml"
        _apply_fields(data, existing, fields)
        _write_manifest(root, data)
        course = load_course(root)  # the library must stay loadable
        _remove_left(left)
    unit = course.unit(unit_id)
    return UploadResult(unit_id, unit.name, unit.versions.attachment, unit.versions.video, replaced,
                        len(loaded.pages), tuple(warnings), deck_changed,
                        change is not None and change.action == "replaced",
                        course_name=course.name, lecture_name=unit.lecture_name, language=unit.language,
                        course_id=course.id, transcript=change)


def _read_transcript(scratch: Path, transcript: Upload, suffix: str, warnings: list[str]) -> Transcript:
    """The uploaded transcript, read from a scratch copy; its own warnings (naming the upload) go to ``warnings``."""
    loaded = _scratch_copy(scratch, transcript, f"transcript{suffix}", load_transcript)
    warnings.extend(_renamed(w, f"transcript{suffix}", display_name(transcript.name)) for w in loaded.warnings)
    return loaded


def _transcript_rel(unit: dict[str, Any], suffix: str) -> str:
    """Where a unit's transcript is stored: beside its deck's name (``transcripts/9001_hash_tables.vtt``)."""
    deck = unit.get("deck")
    stem = _slug(Path(str(deck)).name) if deck else str(unit.get("id"))
    return f"transcripts/{stem}{suffix}"


def _bump_video(unit: dict[str, Any]) -> None:
    """The unit's video version goes up: answers citing its transcript (or video) as it was are stale."""
    versions = unit.setdefault("versions", {"attachment": 1, "video": 1})
    versions["video"] = int(versions.get("video", 1)) + 1


def _store_transcript(root: Path, unit: dict[str, Any], transcript: Upload,
                      suffix: str) -> tuple[TranscriptAction, Path | None]:
    """Store ``transcript`` as the unit's (its manifest entry is changed, not written). A transcript with other
    content than the stored one bumps the video version; the same bytes change nothing. Returns what happened
    and the stored file the unit no longer uses (a .srt replaced by a .vtt), to remove once the manifest is
    written."""
    old = unit.get("transcript")
    old_path = _inside(root, str(old)) if old else None
    if old_path is not None and _same_content(old_path, transcript.data):
        return "unchanged", None
    if old_path is not None:
        _bump_video(unit)
    rel = _transcript_rel(unit, suffix)
    path = _inside(root, rel)
    _write_atomic(path, transcript.data)
    unit["transcript"] = rel
    left = old_path if old_path is not None and old_path.resolve() != path.resolve() else None
    return ("replaced" if old_path is not None else "added"), left


def _remove_left(path: Path | None) -> None:
    """Remove a stored file the library no longer uses; one that is already gone is fine."""
    if path is not None:
        path.unlink(missing_ok=True)


def _library_unit(root: Path, unit_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The stored manifest and its entry of unit ``unit_id``; MaterialError (one line naming the unit) when
    the library has no such unit."""
    where = f"unit {unit_id}"
    if not (root / MANIFEST_NAME).is_file():
        raise MaterialError(f"{where}: the library has no uploads yet")
    data = _manifest(root)
    unit = _find_unit(data, lambda u: u.get("id") == unit_id)
    if unit is None:
        raise MaterialError(f"{where}: no such unit in the library")
    return data, unit


def set_transcript(root: Path, unit_id: int, transcript: Upload, max_bytes: int = 50_000_000) -> TranscriptResult:
    """Add ``transcript`` to the library's unit ``unit_id``, or replace the one it has; its deck stays as it is.

    The file is checked completely (from a scratch copy) before the library changes, and the language of
    its spoken text is read; a language other than the unit's (its deck's) is warned about. A transcript
    with other content than the stored one bumps the unit's video version, so answers citing the old one
    show as stale; the same file changes nothing. Raises MaterialError (one line naming the file or the
    unit) for a bad file or a unit the library does not have.
    """
    suffix = _check(transcript, TRANSCRIPT_SUFFIXES, max_bytes, "transcript")
    _library_unit(root, unit_id)  # said before the file is read
    warnings: list[str] = []
    with tempfile.TemporaryDirectory(dir=root, prefix=".upload-") as tmp:
        loaded = _read_transcript(Path(tmp), transcript, suffix, warnings)
    spoken = transcript_language(loaded)
    with _locked(root):
        data, unit = _library_unit(root, unit_id)
        action, left = _store_transcript(root, unit, transcript, suffix)
        _write_manifest(root, data)
        course = load_course(root)  # the library must stay loadable
        _remove_left(left)
    stored = course.unit(unit_id)
    warnings.extend(_mismatch_warning(transcript.name, spoken, stored.language,
                                      f"the deck of unit {unit_id} “{stored.name}”"))
    change = TranscriptChange(action, display_name(transcript.name), len(loaded.cues), spoken)
    return _transcript_result(course, unit_id, change, warnings)


def remove_transcript(root: Path, unit_id: int) -> TranscriptResult:
    """Remove the transcript of the library's unit ``unit_id``; its deck stays as it is.

    The unit's video version goes up, so answers stored earlier that cite the transcript show as stale
    should a transcript be added again. Raises MaterialError (one line naming the unit) for a unit the
    library does not have, or one without a transcript.
    """
    with _locked(root):
        data, unit = _library_unit(root, unit_id)
        rel = unit.get("transcript")
        if not rel:
            raise MaterialError(f"unit {unit_id}: it has no transcript to remove")
        path = _inside(root, str(rel))
        del unit["transcript"]
        _bump_video(unit)
        _write_manifest(root, data)
        course = load_course(root)  # the library must stay loadable
        _remove_left(path)
    change = TranscriptChange("removed", display_name(path.name), 0, None)
    return _transcript_result(course, unit_id, change, [])


def _transcript_result(course: Course, unit_id: int, change: TranscriptChange,
                       warnings: list[str]) -> TranscriptResult:
    unit = course.unit(unit_id)
    return TranscriptResult(unit.id, unit.name, unit.language, unit.versions.video, change, tuple(warnings),
                            course_id=course.id, course_name=course.name, lecture_name=unit.lecture_name)


def update_unit(root: Path, unit_id: int, *, name: str | None = None, lecture_name: str | None = None,
                language: str | None = None) -> LectureUnit:
    """Change an uploaded unit's name, lecture or language; its material versions stay as they are.

    A new lecture name moves the unit into the lecture of that name (made when there is none; a
    lecture left without units is removed). Raises MaterialError (one line naming the field) for an
    empty or overlong name, a malformed language code or a unit the library does not have.
    """
    changes = _unit_fields(f"unit {unit_id}", name, lecture_name, language)
    with _locked(root):
        data, unit = _library_unit(root, unit_id)
        _apply_fields(data, unit, changes)
        _write_manifest(root, data)
        course = load_course(root)  # the library must stay loadable
    return course.unit(unit_id)
