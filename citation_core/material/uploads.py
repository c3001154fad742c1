"""The user's own library: uploaded decks (with optional transcript and FAQs) as a course folder.

Every upload is checked completely, from a scratch copy inside the library folder, before the library
changes; uploaded file names are shown but never used as paths. A re-upload of a deck with the same
file name replaces it and bumps the unit's attachment version, so answers stored earlier become stale.
"""

from __future__ import annotations

import fcntl
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml

from ..errors import MaterialError
from ..yaml_file import read_yaml
from .course import MANIFEST_NAME, load_course, load_faqs
from .deck import load_deck
from .transcript import load_transcript

LIBRARY_COURSE_ID = 900
UPLOAD_LECTURE_ID = 9000
FIRST_UNIT_ID = 9001
_SHOWN_NAME = 80  # characters of an uploaded file name shown in messages and unit names

_T = TypeVar("_T")


@dataclass(frozen=True)
class Upload:
    name: str
    data: bytes


@dataclass(frozen=True)
class UploadResult:
    unit_id: int
    unit_name: str
    attachment_version: int
    video_version: int
    replaced: bool
    pages: int
    warnings: tuple[str, ...]


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
            "lectures": [{"id": UPLOAD_LECTURE_ID, "name": "Uploaded decks", "units": []}]}


def add_upload(root: Path, deck: Upload, transcript: Upload | None = None, faqs: Upload | None = None,
               max_bytes: int = 50_000_000, language: str = "en") -> UploadResult:
    """Validate and store an upload in the library course at ``root``; raise MaterialError on bad files.

    The uploaded names are only shown, never used as paths: every file is stored under a name made
    from the unit id and an ASCII slug, and nothing is written outside ``root``.
    """
    _check(deck, (".pdf",), max_bytes, "deck")
    tsuffix = _check(transcript, (".vtt", ".srt"), max_bytes, "transcript") if transcript else None
    if faqs:
        _check(faqs, (".yml", ".yaml"), max_bytes, "FAQ file")
    slug = _slug(deck.name)
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root, prefix=".upload-") as tmp:
        # everything is read and checked from a scratch copy before the library changes
        scratch = Path(tmp)
        loaded = _scratch_copy(scratch, deck, f"{slug}.pdf", load_deck)
        warnings = [_renamed(w, f"{slug}.pdf", display_name(deck.name)) for w in loaded.warnings]
        if transcript and tsuffix:
            tr = _scratch_copy(scratch, transcript, f"transcript{tsuffix}", load_transcript)
            warnings.extend(_renamed(w, f"transcript{tsuffix}", display_name(transcript.name)) for w in tr.warnings)
        if faqs:
            _scratch_copy(scratch, faqs, f"faqs{_suffix(faqs.name)}", load_faqs)

    with _locked(root):
        data = _manifest(root)
        lecture = data["lectures"][0]
        units: list[dict[str, Any]] = lecture["units"]
        source_name = display_name(deck.name)
        existing = next((u for u in units if u.get("source_name") == source_name), None)
        replaced = existing is not None
        if existing is None:
            unit_id = max([FIRST_UNIT_ID - 1, *[int(u["id"]) for u in units]]) + 1
            existing = {"id": unit_id, "name": _split_suffix(source_name)[0].replace("_", " ").strip() or slug,
                        "language": language, "deck": f"decks/{unit_id}_{slug}.pdf", "source_name": source_name,
                        "versions": {"attachment": 1, "video": 1}}
            units.append(existing)
        else:
            versions = existing.setdefault("versions", {"attachment": 1, "video": 1})
            versions["attachment"] = int(versions.get("attachment", 1)) + 1
        unit_id = int(existing["id"])
        _write_atomic(_inside(root, str(existing["deck"])), deck.data)
        if transcript and tsuffix:
            rel = f"transcripts/{unit_id}_{slug}{tsuffix}"
            if existing.get("transcript"):
                existing["versions"]["video"] = int(existing["versions"].get("video", 1)) + (1 if replaced else 0)
            existing["transcript"] = rel
            _write_atomic(_inside(root, rel), transcript.data)
        if faqs:
            _write_atomic(_inside(root, "faqs.yml"), faqs.data)
            data["faqs"] = "faqs.yml"
        manifest = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
        _write_atomic(_inside(root, MANIFEST_NAME), manifest.encode("utf-8"))
        load_course(root)  # the library must stay loadable
    return UploadResult(unit_id, str(existing["name"]), int(existing["versions"]["attachment"]),
                        int(existing["versions"]["video"]), replaced, len(loaded.pages), tuple(warnings))
