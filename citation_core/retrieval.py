"""Lexical retrieval (BM25 via bm25s) over lecture sources and over FAQs (DESIGN 5).

Texts and queries are stemmed per language (``text.stem_list``: Snowball stems, stop words
removed, formula words kept), so "löscht" finds "Löschen" and "merging" finds "merge". A query may
bring ``context`` (the recent turns of the conversation): its scores, scaled to the best score of the
query itself, count half.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence

import bm25s
import numpy as np

from .sources import FaqSource, LectureSource, PageChunk
from .text import conflate, detect_language, math_terms, question_noise, stem_list

CONTEXT_WEIGHT = 0.5


def _terms(text: str, default: str = "en") -> tuple[list[str], str]:
    lang = detect_language(text, default)
    return stem_list(text, lang) + sorted(math_terms(text)), lang


class _Bm25:
    """A BM25 index over texts; ranks positions of texts for a query."""

    def __init__(self, texts: Sequence[str]) -> None:
        self._size = len(texts)
        self._model: bm25s.BM25 | None = None
        self._vocab: set[str] = set()
        self._lang = detect_language(" ".join(t[:300] for t in texts[:50])) if texts else "en"
        if texts:
            corpus = [_terms(t, self._lang)[0] or ["\u2205"] for t in texts]
            self._vocab = {t for doc in corpus for t in doc}
            self._model = bm25s.BM25()
            self._model.index(corpus, show_progress=False)

    def _scores(self, text: str) -> np.ndarray | None:
        assert self._model is not None
        found, lang = _terms(text, self._lang)
        noise = question_noise(lang)
        query = sorted({conflate(t, self._vocab, lang) for t in found if t not in noise} & self._vocab)
        if not query:
            return None
        return np.asarray(self._model.get_scores(query), dtype=float)

    def ranked(self, query: str, k: int, keep: Collection[int] | None = None,
               context: str = "") -> list[tuple[int, float]]:
        if self._model is None or k <= 0:
            return []
        scores = self._scores(query)
        extra = self._scores(context) if context.strip() else None
        if scores is None and extra is None:
            return []
        total = np.zeros(self._size) if scores is None else scores
        if extra is not None:
            if scores is not None and scores.max() > 0 and extra.max() > 0:
                # the turns before are many words, the question a few: scaled to the question's best score,
                # they reorder what the question finds instead of outweighing it
                extra = extra * (scores.max() / extra.max())
            total = total + CONTEXT_WEIGHT * extra
        out: list[tuple[int, float]] = []
        for idx in np.argsort(-total, kind="stable"):
            score = float(total[idx])
            if score <= 0:
                break
            if keep is not None and int(idx) not in keep:
                continue
            out.append((int(idx), score))
            if len(out) == k:
                break
        return out


def _weighted_text(source: LectureSource) -> str:
    """A page's text with its title line counted twice: the title says what the page is about."""
    if isinstance(source, PageChunk):
        title = next((ln for ln in source.text.splitlines() if ln.strip()), "")
        return f"{title}\n{source.text}"
    return source.text


class LectureIndex:
    """Page chunks and transcript segments of a course."""

    def __init__(self, sources: Sequence[LectureSource]) -> None:
        self._items = list(sources)
        self._bm25 = _Bm25([_weighted_text(s) for s in self._items])

    def search(self, query: str, k: int = 5, unit_id: int | None = None, context: str = "") -> list[LectureSource]:
        keep = None
        if unit_id is not None:
            keep = {i for i, s in enumerate(self._items) if s.lecture_unit_id == unit_id}
        return [dataclasses.replace(self._items[i], score=sc)
                for i, sc in self._bm25.ranked(query, k, keep, context)]


class FaqIndex:
    def __init__(self, faqs: Sequence[FaqSource]) -> None:
        self._items = list(faqs)
        self._bm25 = _Bm25([f.content for f in self._items])

    def search(self, query: str, k: int = 3, context: str = "") -> list[FaqSource]:
        return [dataclasses.replace(self._items[i], score=sc) for i, sc in self._bm25.ranked(query, k, None, context)]
