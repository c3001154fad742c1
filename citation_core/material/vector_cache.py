"""Statement vectors of a unit's material, kept on disk beside the parsed decks, by content.

An entry holds the encoder's vectors of one list of statements (a unit's slides and transcript windows,
or a course's FAQ), in order, as float16. Its key is the SHA-256 of the encoder's name and the statements
themselves, so a new version of the material (another PDF, another transcript, another encoder) has
another key and its vectors are made again; the old entry ages out. An entry that cannot be read, has
another shape, holds values that are not finite or vectors that are not unit length is no entry: the
vectors are made again and the entry rewritten. A cache that cannot be written is no error either.

Entries of another kind (the statements of the sources of one placement call, kept as they were made:
float32) have a sub-folder and a limit of their own, so that they never push a unit's entries out.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from . import deck_cache, json_cache

MAX_ENTRIES = 2000
FOLDER = "vectors"


def cache_dir(kind: str = "") -> Path:
    """The ``vectors`` folder inside the deck cache (``material.deck_cache.cache_dir``), or its sub-folder
    ``kind``."""
    return deck_cache.cache_dir() / FOLDER / kind if kind else deck_cache.cache_dir() / FOLDER


def key(encoder_name: str, statements: Sequence[str]) -> str:
    digest = hashlib.sha256(encoder_name.encode("utf-8", "replace"))
    for st in statements:
        digest.update(b"\x00")
        digest.update(st.encode("utf-8", "replace"))
    return digest.hexdigest()


def as_stored(vectors: np.ndarray) -> np.ndarray:
    """``vectors`` (float32) at the precision an entry keeps them (float16)."""
    out: np.ndarray = np.asarray(vectors, dtype=np.float16).astype(np.float32)
    return out


def load(entry_key: str, rows: int, dims: int, *, kind: str = "",
         dtype: type[np.floating] = np.float16) -> np.ndarray | None:
    """The stored vectors for ``entry_key`` (kept as ``dtype``) as float32, or None (none stored, foreign or
    damaged)."""
    path = cache_dir(kind) / f"{entry_key}.npy"
    try:
        vecs = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    if vecs.shape != (rows, dims) or vecs.dtype != dtype:
        return None
    out: np.ndarray = vecs.astype(np.float32)
    if not np.isfinite(out).all():
        return None
    norms = np.linalg.norm(out, axis=1)
    if not np.all((norms < 1e-6) | (np.abs(norms - 1.0) < 0.01)):
        return None
    return out


def store(entry_key: str, vectors: np.ndarray, *, kind: str = "", dtype: type[np.floating] = np.float16,
          max_entries: int = MAX_ENTRIES) -> None:
    """Write the entry as ``dtype``, atomically; keep at most ``max_entries`` of its kind
    (``json_cache.write_atomic``)."""
    json_cache.write_atomic(cache_dir(kind) / f"{entry_key}.npy",
                            lambda fh: np.save(fh, np.asarray(vectors, dtype=dtype), allow_pickle=False),
                            max_entries)


__all__ = ["as_stored", "cache_dir", "key", "load", "store"]
