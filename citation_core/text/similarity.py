"""Meaning: a static embedding model, read offline from the files its wheel ships.

The model is WordLlama's ``l2_supercat_256`` (MIT): a 32,000 × 256 table of token vectors (fp16, 16 MB)
and the Llama 2 tokenizer it was trained with, both inside the ``wordllama`` wheel from PyPI, so nothing
is downloaded when it runs. A text's vector is the mean of its tokens' rows, normalised; the cosine of
two vectors says how close in meaning two texts are, also when they share no word ("Why should the table
size be prime?" and "choose m prime").

Only the two files are read (``safetensors`` and ``tokenizers``), never the ``wordllama`` package itself:
its loader imports far more than inference needs (pydantic, toml, its trainers) and looks for the
tokenizer under another folder name than the one it ships. Reading the table and the tokenizer costs a
fresh process about 0.35 s of CPU and 60 MiB, once: the model is loaded on first use and kept for the
process (every session shares it; it is read-only).

When the files are missing or unreadable, or ``CITATION_STUDIO_EMBEDDINGS=off``, ``semantic_model()``
gives None and warns once; every caller then decides by shared words alone, as before.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .blas import one_blas_thread

WEIGHTS = "weights/l2_supercat_256.safetensors"
TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
ENV_SWITCH = "CITATION_STUDIO_EMBEDDINGS"  # "off" turns semantic matching off
ENV_FOLDER = "CITATION_STUDIO_EMBEDDING_MODEL"  # a folder with the two files, instead of the wheel's
MAX_CHARS = 2000  # a longer text is embedded by its start (a statement is far shorter)
CACHE_SIZE = 8192  # vectors kept per process (1 KiB each)
_MARKUP = re.compile(r"\[cite:[^\[\]\n]{0,600}\]|[*_`#>|]+|^\s*(?:[-•▪‣◦●■]|\d{1,2}[.)])\s+", re.M)


class ModelUnavailable(Exception):
    """The embedding model's files are missing or unreadable."""


class RecentVectors:
    """The vectors of recently embedded texts, kept per process and shared by its sessions (thread-safe; the
    least recently used go first once ``size`` are kept)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, keys: Sequence[str], dims: int, make: Callable[[list[str]], np.ndarray]) -> np.ndarray:
        """A (len(keys), dims) float32 array: a key seen recently from memory, the others made by ``make`` in
        one call (each distinct key once); an empty key is a zero vector."""
        out = np.zeros((len(keys), dims), dtype=np.float32)
        missing: dict[str, list[int]] = {}
        with self._lock:
            for i, key in enumerate(keys):
                if not key:
                    continue
                vec = self._vectors.get(key)
                if vec is None:
                    missing.setdefault(key, []).append(i)
                else:
                    self._vectors.move_to_end(key)
                    out[i] = vec
        if not missing:
            return out
        fresh = list(missing)
        made = make(fresh)
        with self._lock:
            for key, vec in zip(fresh, made, strict=True):
                out[missing[key]] = vec
                self._vectors[key] = vec
                self._vectors.move_to_end(key)
            while len(self._vectors) > self._size:
                self._vectors.popitem(last=False)
        return out


@dataclass
class StaticEmbedding:
    """Token vectors and their tokenizer; ``embed`` gives one unit vector per text (zero for an empty text)."""

    table: np.ndarray  # (vocabulary, dimensions), float16
    tokenizer: Any  # tokenizers.Tokenizer
    name: str = "wordllama l2_supercat_256"
    _recent: RecentVectors = field(default_factory=lambda: RecentVectors(CACHE_SIZE), repr=False)

    @property
    def dimensions(self) -> int:
        return int(self.table.shape[1])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """A (len(texts), dimensions) float32 array of unit vectors; vectors of recent texts are reused."""
        return self._recent.embed(texts, self.dimensions, self._make)

    def _make(self, keys: list[str]) -> np.ndarray:
        """The unit vectors of ``keys``: the mean of their tokens' rows, normalised (zero without tokens)."""
        vocab = self.table.shape[0]
        out = np.zeros((len(keys), self.dimensions), dtype=np.float32)
        for k, key in enumerate(keys):
            ids = np.asarray(self._encode(key).ids, dtype=np.int64)
            ids = ids[(ids >= 0) & (ids < vocab)]
            vec = self.table[ids].astype(np.float32).mean(axis=0) if ids.size else np.zeros(self.dimensions,
                                                                                           np.float32)
            norm = float(np.linalg.norm(vec))
            out[k] = vec / norm if norm > 0 and np.isfinite(norm) else 0.0
        return out

    def similarity(self, a: str, b: str) -> float:
        """The cosine of the two texts' vectors (0 when one has no words)."""
        va, vb = self.embed([a, b])
        return float(va @ vb)

    def similarities(self, query: str, texts: Sequence[str]) -> np.ndarray:
        """The cosine of ``query`` with each of ``texts``."""
        if not texts:
            return np.zeros(0, dtype=np.float32)
        vecs = self.embed([query, *texts])
        return np.asarray(vecs[1:] @ vecs[0], dtype=np.float32)

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        vocab = self.table.shape[0]
        return [[i for i in self._encode(t).ids if 0 <= i < vocab] for t in texts]

    def _encode(self, text: str) -> Any:
        """One text's tokens. ``encode`` runs in the calling thread; ``encode_batch`` would hand the work to
        the tokenizer's own thread pool, which the app's session threads and the two citation passes would
        share (and a static model's texts are short: the pool buys nothing)."""
        return self.tokenizer.encode(_clean(text), add_special_tokens=False)

    def token_vectors(self, ids: np.ndarray) -> np.ndarray:
        """Unit vectors of the given token ids (float32)."""
        rows = self.table[ids].astype(np.float32)
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return np.asarray(rows / np.where(norms > 0, norms, 1.0), dtype=np.float32)

    def matcher(self, statements: Sequence[str]) -> Matcher:
        """A ``Matcher`` over ``statements`` (their tokens, weighted by how rare they are among them)."""
        return Matcher(self, list(statements))


class Matcher:
    """How closely a query says what each statement of a pool says, token by token.

    Every token of the query is aligned with its closest token of a statement and every token of the
    statement with its closest token of the query (cosines of the model's token vectors); the two
    averages, each weighted by how rare the token is in the pool (idf), give recall and precision, and
    their harmonic mean (F, as BERTScore computes it) is the score. On sentences written in other words it
    picks the right statement far more often than the cosine of mean vectors (README "Meaning"): "upper
    case" meets "capitals" even when the rest of the sentence
    differs. Token similarities are taken from one product of the query with the pool's distinct
    tokens, so a pool of thousands of statements costs one small matrix per query; the texts compared with a
    query (``compare``) have their token vectors and weights looked up at once, and each text is tokenized
    once per matcher.
    """

    def __init__(self, model: StaticEmbedding, statements: list[str]) -> None:
        self.model = model
        self.statements = statements
        ids = model.token_ids(statements) if statements else []
        self.sizes = np.array([len(t) for t in ids], dtype=np.int64)
        flat = np.array([i for t in ids for i in t], dtype=np.int64)
        self.unique, self.inverse = (np.unique(flat, return_inverse=True) if flat.size
                                     else (np.zeros(0, np.int64), np.zeros(0, np.int64)))
        counts = np.zeros(len(self.unique))
        for t in ids:
            if t:
                counts[np.searchsorted(self.unique, np.unique(np.array(t, dtype=np.int64)))] += 1
        n = len(statements)
        self.idf = np.log((n + 1) / (counts + 0.5)) if n else np.zeros(0)
        self.unseen_idf = float(np.log((n + 1) / 0.5))
        self.vectors = model.token_vectors(self.unique) if self.unique.size else np.zeros((0, model.dimensions),
                                                                                           np.float32)
        self.weights = self.idf[self.inverse] if flat.size else np.zeros(0)
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes)[:-1]]) if n else np.zeros(0, np.int64)
        self._tokenized: dict[str, np.ndarray] = {}  # the token ids of the texts and queries met so far

    def _ids(self, text: str) -> np.ndarray:
        """The token ids of ``text``, tokenized on its first meeting (a source's lines are compared with every
        sentence citing it, a sentence with every line of its sources)."""
        ids = self._tokenized.get(text)
        if ids is None:
            ids = self._tokenized[text] = np.array(self.model.token_ids([text])[0], dtype=np.int64)
        return ids

    def _weights(self, ids: np.ndarray) -> np.ndarray:
        """The pool's idf of each token; a token the pool lacks is as rare as can be."""
        if not self.unique.size:
            return np.full(len(ids), self.unseen_idf)
        at = np.minimum(np.searchsorted(self.unique, ids), len(self.unique) - 1)
        return np.maximum(np.where(self.unique[at] == ids, self.idf[at], self.unseen_idf), 1e-6)

    def _query(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        ids = self._ids(query)
        if not ids.size:
            return np.zeros((0, self.model.dimensions), np.float32), np.zeros(0)
        return self.model.token_vectors(ids), self._weights(ids)

    def scores(self, query: str, only: Sequence[int] | None = None) -> np.ndarray:
        """F per statement of the pool (0 for a statement without tokens, an empty query, or one not in
        ``only``, the indexes of the statements to score when not all)."""
        out = np.zeros(len(self.statements))
        q, wq = self._query(query)
        if not q.shape[0] or not self.unique.size:
            return out
        chosen = np.arange(len(self.statements)) if only is None else np.unique(np.asarray(only, dtype=np.int64))
        chosen = chosen[self.sizes[chosen] > 0]
        if not chosen.size:
            return out
        sizes = self.sizes[chosen]
        if only is None:
            positions = np.arange(int(self.sizes.sum()))
        else:
            positions = np.concatenate([np.arange(self.offsets[i], self.offsets[i] + self.sizes[i]) for i in chosen])
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        # pool tokens × query tokens: a row gather and reductions along rows, all contiguous
        sim = np.ascontiguousarray((self.vectors @ q.T)[self.inverse[positions]])
        weights = self.weights[positions]
        recall = (np.maximum.reduceat(sim, starts, axis=0) @ wq) / wq.sum()
        precision = np.add.reduceat(sim.max(axis=1) * weights, starts) / np.maximum(
            np.add.reduceat(weights, starts), 1e-9)
        f = 2 * recall * precision / np.maximum(recall + precision, 1e-9)
        out[chosen] = np.clip(f, -1.0, 1.0)
        return out

    def compare(self, query: str, texts: Sequence[str]) -> np.ndarray:
        """F of ``query`` with each of ``texts`` (not of the pool), tokens weighted by the pool's idf."""
        if not texts:
            return np.zeros(0)
        q, wq = self._query(query)
        out = np.zeros(len(texts))
        if not q.shape[0]:
            return out
        ids = [self._ids(t) for t in texts]
        kept = [k for k, t in enumerate(ids) if t.size]
        if not kept:
            return out
        flat = np.concatenate([ids[k] for k in kept])
        vectors, weights = self.model.token_vectors(flat), self._weights(flat)  # every text's tokens at once
        total = float(wq.sum())
        start = 0
        for k in kept:
            end = start + ids[k].size
            wt = weights[start:end]
            sim = q @ vectors[start:end].T  # a product per text: the same shape, so the same sums, as alone
            recall = float(wq @ sim.max(axis=1)) / total
            precision = float(wt @ sim.max(axis=0)) / float(wt.sum())
            out[k] = 2 * recall * precision / max(recall + precision, 1e-9)
            start = end
        return out


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _clean(text: str) -> str:
    """The words of ``text``: citation markers and Markdown marks removed, whitespace collapsed, a lone
    surrogate (text read with ``surrogateescape``) an unknown character."""
    flat = " ".join(_MARKUP.sub(" ", text[: MAX_CHARS * 2]).split())[:MAX_CHARS]
    return _SURROGATE.sub("\ufffd", flat)


def model_folder() -> Path:
    """Where the two files are: ``$CITATION_STUDIO_EMBEDDING_MODEL``, else the installed ``wordllama`` package's
    folder (found without importing the package)."""
    override = os.environ.get(ENV_FOLDER, "").strip()
    if override:
        return Path(override)
    spec = importlib.util.find_spec("wordllama")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    if not folders:
        raise ModelUnavailable("the package wordllama is not installed")
    return Path(folders[0])


def load_model(folder: Path) -> StaticEmbedding:
    """Read the table and the tokenizer from ``folder``; ModelUnavailable names the file and what is wrong."""
    weights, tokenizer_file = folder / WEIGHTS, folder / TOKENIZER
    for path in (weights, tokenizer_file):
        if not path.is_file():
            raise ModelUnavailable(f"{path}: no such file")
    try:
        from safetensors.numpy import load_file

        tensors = load_file(str(weights))
    except Exception as exc:  # noqa: BLE001 - any failure to read the weights means: no model
        raise ModelUnavailable(f"{weights}: not a readable safetensors file ({exc})") from exc
    table = next(iter(tensors.values()), None) if len(tensors) == 1 else tensors.get("embedding.weight")
    if table is None or table.ndim != 2 or table.shape[0] < 1000 or table.shape[1] < 16:
        raise ModelUnavailable(f"{weights}: no token table of the expected shape")
    if not np.isfinite(table[:: max(1, table.shape[0] // 256)]).all():
        raise ModelUnavailable(f"{weights}: the token table holds values that are not finite")
    try:
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(tokenizer_file))
    except Exception as exc:  # noqa: BLE001
        raise ModelUnavailable(f"{tokenizer_file}: not a readable tokenizer ({exc})") from exc
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return StaticEmbedding(table, tokenizer)


def semantic_enabled() -> bool:
    return os.environ.get(ENV_SWITCH, "").strip().lower() not in ("off", "0", "false", "no")


_load_lock = threading.Lock()


def semantic_model() -> StaticEmbedding | None:
    """The process's embedding model, loaded on first use; None (with one warning) when it cannot be read or
    is switched off. The switch is read on every call, the files once."""
    if not semantic_enabled():
        return None
    with _load_lock:
        return _loaded()


@functools.cache
def _loaded() -> StaticEmbedding | None:
    try:
        loaded = load_model(model_folder())
    except ModelUnavailable as exc:
        warnings.warn(f"semantic matching is off, citations use shared words only: {exc}", RuntimeWarning,
                      stacklevel=3)
        return None
    one_blas_thread()  # meaning's products are small: one BLAS thread (text.blas)
    return loaded


def embed(texts: Sequence[str]) -> np.ndarray | None:
    """Unit vectors of ``texts`` (see ``StaticEmbedding.embed``), or None without a model."""
    model = semantic_model()
    return model.embed(texts) if model is not None else None


def similarity(a: str, b: str) -> float | None:
    """How close in meaning ``a`` and ``b`` are (cosine, about 0.2 for unrelated text), or None without a model."""
    model = semantic_model()
    return model.similarity(a, b) if model is not None else None
