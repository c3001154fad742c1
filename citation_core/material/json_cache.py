"""Small JSON caches on disk (parsed decks, page-image readings): atomic writes and a bounded size.

A cache that cannot be written is no error: the work is simply done again next time. Neither is one that
cannot be read: an entry that is missing, unreadable, too large, not JSON or nested too deeply for Python's
parser is no entry (:func:`read_entry`).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

MAX_ENTRY_BYTES = 64 << 20  # an entry larger than this was not written here: it is not read


def read_entry(path: Path) -> Any:
    """The JSON value stored at ``path``; None when there is none that can be read."""
    try:
        if path.stat().st_size > MAX_ENTRY_BYTES:
            return None
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError, MemoryError):
        return None


def write_entry(path: Path, entry: dict[str, Any], max_entries: int) -> None:
    """Write ``entry`` to ``path`` atomically (temporary file, then rename), then keep at most ``max_entries``
    entries in its folder (the oldest go first)."""
    folder = path.parent
    tmp: str | None = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".entry-", suffix=".json.tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(entry, fh, ensure_ascii=False, separators=(",", ":"))
        os.replace(tmp, path)
        tmp = None
        prune(folder, max_entries)
    except OSError:
        return
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def prune(folder: Path, max_entries: int) -> None:
    entries = [p for p in folder.glob("*.json") if not p.name.startswith(".")]
    if len(entries) <= max_entries:
        return
    entries.sort(key=lambda p: p.stat().st_mtime)
    for old in entries[: len(entries) - max_entries]:
        old.unlink(missing_ok=True)
