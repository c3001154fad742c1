"""Lexical retrieval (BM25 via bm25s) over lecture sources and over FAQs (DESIGN 5)."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence

import bm25s

from .sources import FaqSource, LectureSource
from .textutil import content_tokens


class _Bm25:
    """A BM25 index over texts; ranks positions of texts for a query."""

    def __init__(self, texts: Sequence[str]) -> None:
        self._size = len(texts)
        self._model: bm25s.BM25 | None = None
        if texts:
            self._model = bm25s.BM25()
            self._model.index([content_tokens(t) or ["\u2205"] for t in texts], show_progress=False)

    def ranked(self, query: str, k: int, keep: Collection[int] | None = None) -> list[tuple[int, float]]:
        tokens = content_tokens(query)
        if self._model is None or not tokens or k <= 0:
            return []
        docs, scores = self._model.retrieve([tokens], k=self._size, show_progress=False)
        out: list[tuple[int, float]] = []
        for idx, score in zip(docs[0], scores[0], strict=True):
            if score <= 0:
                break
            if keep is not None and int(idx) not in keep:
                continue
            out.append((int(idx), float(score)))
            if len(out) == k:
                break
        return out


class LectureIndex:
    """Page chunks and transcript segments of a course."""

    def __init__(self, sources: Sequence[LectureSource]) -> None:
        self._items = list(sources)
        self._bm25 = _Bm25([s.text for s in self._items])

    def search(self, query: str, k: int = 5, unit_id: int | None = None) -> list[LectureSource]:
        keep = None
        if unit_id is not None:
            keep = {i for i, s in enumerate(self._items) if s.lecture_unit_id == unit_id}
        return [dataclasses.replace(self._items[i], score=sc) for i, sc in self._bm25.ranked(query, k, keep)]


class FaqIndex:
    def __init__(self, faqs: Sequence[FaqSource]) -> None:
        self._items = list(faqs)
        self._bm25 = _Bm25([f.content for f in self._items])

    def search(self, query: str, k: int = 3) -> list[FaqSource]:
        return [dataclasses.replace(self._items[i], score=sc) for i, sc in self._bm25.ranked(query, k)]
