"""The user's own library: uploaded decks (with optional transcript and FAQs) as a course folder.

Every upload is checked completely before anything is written; a re-upload of a deck with the same
file name replaces it and bumps the unit's attachment version, so answers stored earlier become stale.
"""

from __future__ import annotations

import fcntl
import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..errors import MaterialError
from ..yaml_file import read_yaml
from .course import MANIFEST_NAME, load_course, load_faqs
from .deck import load_deck
from .transcript import load_transcript

LIBRARY_COURSE_ID = 900
UPLOAD_LECTURE_ID = 9000
FIRST_UNIT_ID = 9001


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
    with open(root / ".lock", "w") as fh:
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
    suffix = Path(upload.name).suffix.lower()
    if suffix not in suffixes:
        raise MaterialError(f"{upload.name}: a {what} must be {' or '.join(suffixes)}, got {suffix or 'no extension'}")
    if len(upload.data) > max_bytes:
        raise MaterialError(
            f"{upload.name}: {len(upload.data) / 1e6:.1f} MB is larger than the {max_bytes / 1e6:.0f} MB upload limit"
        )
    if not upload.data:
        raise MaterialError(f"{upload.name}: the file is empty")
    return suffix


def _manifest(root: Path) -> dict[str, Any]:
    path = root / MANIFEST_NAME
    if path.is_file():
        data = read_yaml(path, MaterialError)
        if isinstance(data, dict):
            return data
    return {"id": LIBRARY_COURSE_ID, "name": "My uploads", "language": "en",
            "lectures": [{"id": UPLOAD_LECTURE_ID, "name": "Uploaded decks", "units": []}]}


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", Path(name).stem)[:60] or "deck"


def add_upload(root: Path, deck: Upload, transcript: Upload | None = None, faqs: Upload | None = None,
               max_bytes: int = 50_000_000, language: str = "en") -> UploadResult:
    """Validate and store an upload in the library course at ``root``; raise MaterialError on bad files."""
    _check(deck, (".pdf",), max_bytes, "deck")
    tsuffix = _check(transcript, (".vtt", ".srt"), max_bytes, "transcript") if transcript else None
    if faqs:
        _check(faqs, (".yml", ".yaml"), max_bytes, "FAQ file")
    with tempfile.TemporaryDirectory() as tmp:
        # everything is read and checked from a scratch copy before the library changes
        tdeck = Path(tmp) / deck.name
        tdeck.write_bytes(deck.data)
        loaded = load_deck(tdeck)
        warnings = list(loaded.warnings)
        if transcript and tsuffix:
            ttr = Path(tmp) / transcript.name
            ttr.write_bytes(transcript.data)
            warnings.extend(load_transcript(ttr).warnings)
        if faqs:
            tf = Path(tmp) / faqs.name
            tf.write_bytes(faqs.data)
            load_faqs(tf)

    with _locked(root):
        data = _manifest(root)
        lecture = data["lectures"][0]
        units: list[dict[str, Any]] = lecture["units"]
        slug = _slug(deck.name)
        existing = next((u for u in units if u.get("source_name") == deck.name), None)
        replaced = existing is not None
        if existing is None:
            unit_id = max([FIRST_UNIT_ID - 1, *[int(u["id"]) for u in units]]) + 1
            existing = {"id": unit_id, "name": Path(deck.name).stem.replace("_", " "), "language": language,
                        "deck": f"decks/{unit_id}_{slug}.pdf", "source_name": deck.name,
                        "versions": {"attachment": 1, "video": 1}}
            units.append(existing)
        else:
            versions = existing.setdefault("versions", {"attachment": 1, "video": 1})
            versions["attachment"] = int(versions.get("attachment", 1)) + 1
        unit_id = int(existing["id"])
        _write_atomic(root / existing["deck"], deck.data)
        if transcript and tsuffix:
            rel = f"transcripts/{unit_id}_{slug}{tsuffix}"
            if existing.get("transcript"):
                existing["versions"]["video"] = int(existing["versions"].get("video", 1)) + (1 if replaced else 0)
            existing["transcript"] = rel
            _write_atomic(root / rel, transcript.data)
        if faqs:
            _write_atomic(root / "faqs.yml", faqs.data)
            data["faqs"] = "faqs.yml"
        manifest = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
        _write_atomic(root / MANIFEST_NAME, manifest.encode("utf-8"))
        load_course(root)  # the library must stay loadable
    return UploadResult(unit_id, str(existing["name"]), int(existing["versions"]["attachment"]),
                        int(existing["versions"]["video"]), replaced, len(loaded.pages), tuple(warnings))
