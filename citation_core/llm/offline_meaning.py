"""Meaning in offline placement: the statements of one call's sources, compared with the answer's sentences.

Two models compare them (README "Meaning", "Meaning across languages"): the static model token by token
(``text.similarity.Matcher``, tokens weighted by their rarity among these statements), and the multilingual
encoder (``text.encoder``) whole statement against whole sentence.

The encoder's work is done once per call, not once per sentence: the sentences that need it are embedded in
one batch and met by the statements it is compared with in one matrix product. A sentence is first met only
by the sources written in another language than it (the only ones the encoder may cite it to): when none of
them comes ``floor`` close, no other source can change the outcome and the others are not embedded. When one
does, it is weighed against its rivals, the sources of its own language that share a term with it (a source
sharing none was read by its terms already and says something else): a German remark on one English slide
among two hundred German ones embeds that slide and the few German slides on its topic, not all of them.
Each statement is embedded at most once per call. When every statement of the call has its vector (an
answer in another language than all of its sources), the vectors are kept on disk per set of sources
(``material.vector_cache``, at the precision they were made), so citing another answer from the same
material reads them instead of embedding every statement again.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Mapping, Sequence

import numpy as np

from ..text.encoder import SentenceEncoder, sentence_encoder
from ..text.similarity import semantic_model
from ..text.statements import statements

CACHE_KIND = "placement"  # the sub-folder of the vector cache that keeps the statement vectors of source sets
CACHE_ENTRIES = 200


class SourceMeaning:
    """The statements of every source of one placement call and how close each sentence comes to them."""

    def __init__(self, sources: Sequence[Mapping[str, str]], tokens: bool = True) -> None:
        """``tokens``: match token by token too (costly on a whole course; the encoder compares whole
        statements, cheaply, and only for sentences in another language than their sources)."""
        self._sources = sources
        model = semantic_model() if tokens else None
        self._matcher = model.matcher(self._parts[1]) if model is not None else None
        self._vectors: np.ndarray | None = None  # every statement's encoder vector, once made or read
        self._looked = False  # whether an earlier call's vectors were looked for on disk (once per call)
        self._made: dict[int, np.ndarray] = {}  # the statements' vectors made so far (by statement index)

    @functools.cached_property
    def _parts(self) -> tuple[list[int], list[str]]:
        """Every source's statements, read on first need, and the source each belongs to."""
        parts = [statements(str(s.get("content", ""))) for s in self._sources]
        return [i for i, part in enumerate(parts) for _ in part], [st for part in parts for st in part]

    def _per_source(self, scores: Iterable[tuple[int, float]]) -> dict[int, float]:
        """Per source: the best score of its statements, from (statement index, score) pairs."""
        owners = self._parts[0]
        out: dict[int, float] = {}
        for k, score in scores:
            if score > out.get(owners[k], -1.0):
                out[owners[k]] = float(score)
        return out

    def closeness(self, sentence: str, pool: Sequence[int]) -> dict[int, float]:
        """Per source of ``pool``: how closely its closest statement says what ``sentence`` says."""
        if self._matcher is None or not pool:
            return {}
        wanted = set(pool)
        only = [k for k, owner in enumerate(self._parts[0]) if owner in wanted]
        scores = self._matcher.scores(sentence, only)
        return self._per_source((k, scores[k]) for k in only)

    def encoded(self, sentences: Sequence[str], first: Sequence[Collection[int]], floor: float,
                rivals: Sequence[Collection[int]] | None = None) -> list[dict[int, float]]:
        """Per sentence, per source: the encoder's cosine of its closest statement with the sentence ({} for
        every sentence without the encoder).

        ``first[k]``: the sources sentence ``k`` is met by first (those the encoder may cite it to). When none
        of them has a statement at least ``floor`` close, only their cosines are given (the closest source of
        all either is one of them, and then below ``floor``, or is another). Else also the cosines of its
        ``rivals[k]``, the other sources it is weighed against (every source when ``rivals`` is None)."""
        out: list[dict[int, float]] = [{} for _ in sentences]
        encoder = sentence_encoder() if sentences else None
        if encoder is None or not self._parts[1]:
            return out
        queries = encoder.embed(list(sentences))  # one batch for every sentence that needs the encoder
        out = self._closest(encoder, queries, [set(f) for f in first])
        near = [k for k, scores in enumerate(out) if any(c >= floor for c in scores.values())]
        everyone = set(range(len(self._sources)))
        wider = [set(first[k]) | (everyone if rivals is None else set(rivals[k])) for k in near]
        for k, scores in zip(near, self._closest(encoder, queries[near], wider), strict=True):
            out[k] = scores
        return out

    def _closest(self, encoder: SentenceEncoder, queries: np.ndarray,
                 pools: Sequence[set[int]]) -> list[dict[int, float]]:
        """Per query (row of ``queries``), per source of its pool: the best cosine of the source's statements.
        The statements of every pool are embedded together, once (``_rows``)."""
        owners = np.asarray(self._parts[0])
        wanted = sorted(set().union(*pools)) if pools else []
        rows = np.flatnonzero(np.isin(owners, wanted))
        if not len(rows):
            return [{} for _ in pools]
        best = self._best(self._rows(encoder, rows) @ queries.T, owners[rows])
        return [{i: c for i, c in scores.items() if i in pool} for scores, pool in zip(best, pools, strict=True)]

    def _rows(self, encoder: SentenceEncoder, rows: np.ndarray) -> np.ndarray:
        """The vectors of the statements at ``rows``: read from what an earlier call on the same sources kept,
        else made (each statement once per call); once every statement has one, kept for the next call."""
        if not self._looked:
            self._looked = True
            self._vectors = self._stored(encoder)
        if self._vectors is not None:
            known: np.ndarray = self._vectors[rows]
            return known
        missing = [int(r) for r in rows if int(r) not in self._made]
        if missing:
            for r, vec in zip(missing, encoder.embed([self._parts[1][r] for r in missing]), strict=True):
                self._made[r] = vec
        if len(self._made) == len(self._parts[1]):
            self._vectors = np.stack([self._made[r] for r in range(len(self._made))])
            self._keep(encoder, self._vectors)
        return np.stack([self._made[int(r)] for r in rows])

    @staticmethod
    def _best(sims: np.ndarray, owners: np.ndarray) -> list[dict[int, float]]:
        """Per column of ``sims`` (statements × sentences): per source, the best cosine of its statements.
        ``owners``: the source of each row, ascending."""
        if not len(owners):
            return [{} for _ in range(sims.shape[1])]
        starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
        best = np.maximum.reduceat(sims, starts, axis=0)  # sources × sentences
        sources = owners[starts].tolist()
        return [{i: float(c) for i, c in zip(sources, column.tolist(), strict=True) if c > -1.0}
                for column in best.T]

    def _key(self, encoder: SentenceEncoder) -> str:
        from ..material import vector_cache  # on first need: a cite the encoder has nothing to do in loads none of it

        return vector_cache.key(f"{encoder.name} ({CACHE_KIND})", self._parts[1])

    def _stored(self, encoder: SentenceEncoder) -> np.ndarray | None:
        """Every statement's vector, as kept from an earlier call on the same sources; None when none is kept."""
        from ..material import vector_cache

        return vector_cache.load(self._key(encoder), len(self._parts[1]), encoder.dimensions, kind=CACHE_KIND,
                                 dtype=np.float32)

    def _keep(self, encoder: SentenceEncoder, vectors: np.ndarray) -> None:
        """Every statement's vector, kept for the next call on the same sources."""
        from ..material import vector_cache

        vector_cache.store(self._key(encoder), vectors, kind=CACHE_KIND, dtype=np.float32, max_entries=CACHE_ENTRIES)


__all__ = ["CACHE_ENTRIES", "CACHE_KIND", "SourceMeaning"]
