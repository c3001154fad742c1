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
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

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
    write_atomic(path, lambda fh: fh.write(json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
                                           .encode("utf-8")), max_entries)


def write_atomic(path: Path, write: Callable[[BinaryIO], object], max_entries: int) -> None:
    """Write a cache entry to ``path`` with ``write`` (given the open file), atomically: a temporary file in the
    same folder, then a rename; then keep at most ``max_entries`` entries of ``path``'s suffix in the folder.
    A cache that cannot be written is no error."""
    folder = path.parent
    tmp: str | None = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".entry-", suffix=f"{path.suffix}.tmp")
        with os.fdopen(fd, "wb") as fh:
            write(fh)
        os.replace(tmp, path)
        tmp = None
        prune(folder, max_entries, f"*{path.suffix}")
    except OSError:
        return
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def prune(folder: Path, max_entries: int, pattern: str = "*.json") -> None:
    entries = [p for p in folder.glob(pattern) if not p.name.startswith(".")]
    if len(entries) <= max_entries:
        return
    entries.sort(key=lambda p: p.stat().st_mtime)
    for old in entries[: len(entries) - max_entries]:
        old.unlink(missing_ok=True)
