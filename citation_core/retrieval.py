"""Hybrid retrieval over lecture sources and over FAQs (DESIGN 5): BM25 (bm25s) fused with meaning.

Texts and queries are stemmed per language (``text.stem_list``: Snowball stems, stop words
removed, formula words kept), so "löscht" finds "Löschen" and "merging" finds "merge". A query may
bring ``context`` (the recent turns of the conversation): its scores, scaled to the best score of the
query itself, count half.

Meaning comes from the static embedding model (``text.similarity``): each source is read into statements
(``text.statements``: a bullet with its slide title, a table row, a transcript or FAQ sentence), and a
source's semantic score is its best statement's cosine with the query. The two rankings are fused by
reciprocal rank (``FUSION = "rrf"``; a calibrated sum, ``"sum"``, is the measured alternative, see
``bench/retrieval.py``); a source only semantics found must come close in meaning (``SEMANTIC_FLOOR``).
Statement vectors are made on first use, per unit searched, and kept with the index. Without the model,
retrieval is BM25 alone.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np

from .sources import FaqSource, LectureSource, PageChunk
from .text import conflate, detect_language, math_terms, question_noise, stem_list
from .text.similarity import semantic_model
from .text.statements import prose_statements, slide_statements

if TYPE_CHECKING:
    import bm25s

CONTEXT_WEIGHT = 0.5
Fusion = Literal["bm25", "semantic", "rrf", "sum"]
FUSION: Fusion = "rrf"
RRF_K = 20  # reciprocal rank fusion: 1 / (RRF_K + rank) from each ranking
SEMANTIC_FLOOR = 0.4  # a source ranked by meaning alone has a statement at least this close to the query
SEMANTIC_MIN_TERMS = 3  # a query with fewer content terms is searched by its words only
SUM_WEIGHT = 1.0  # calibrated sum: BM25 / its best + SUM_WEIGHT * (cosine - floor) / (1 - floor)


def _terms(text: str, default: str = "en") -> tuple[list[str], str]:
    lang = detect_language(text, default)
    return stem_list(text, lang) + sorted(math_terms(text)), lang


class _Semantic:
    """Statement vectors of indexed texts (made on first use, for the texts a search may return) and each
    text's best cosine with a query."""

    def __init__(self, size: int, statements: Callable[[int], Sequence[str]]) -> None:
        self._size = size
        self._statements = statements  # read on first use: building an index reads no slide twice
        self._vectors: dict[int, np.ndarray] = {}
        self._lock = threading.Lock()

    def prepare(self, keep: Collection[int] | None = None) -> dict[int, np.ndarray] | None:
        """The statement vectors of the kept texts (made once), or None without a model."""
        model = semantic_model()
        if model is None:
            return None
        wanted = range(self._size) if keep is None else sorted(keep)
        with self._lock:
            todo = [i for i in wanted if i not in self._vectors]
            if todo:
                parts = [tuple(self._statements(i)) for i in todo]
                flat = [st for part in parts for st in part]
                vecs = model.embed(flat) if flat else np.zeros((0, model.dimensions), np.float32)
                at = 0
                for i, part in zip(todo, parts, strict=True):
                    self._vectors[i] = vecs[at : at + len(part)]
                    at += len(part)
            return {i: self._vectors[i] for i in wanted}

    def scores(self, query: str, keep: Collection[int] | None = None) -> np.ndarray | None:
        """Per text: its best statement's cosine with ``query`` (-1 for texts not kept); None without a model."""
        model = semantic_model()
        vectors = self.prepare(keep) if query.strip() else None
        if model is None or vectors is None:
            return None
        q = model.embed([query])[0]
        out = np.full(self._size, -1.0)
        for i, v in vectors.items():
            if len(v):
                out[i] = float(np.max(v @ q))
        return out


def fuse(lexical: np.ndarray | None, semantic: np.ndarray | None, fusion: Fusion = FUSION) -> np.ndarray | None:
    """One score per text from the BM25 scores and the best-statement cosines; > 0 means found."""
    if semantic is None or fusion == "bm25":
        return lexical
    sem = np.where(semantic >= SEMANTIC_FLOOR, semantic, 0.0)
    if fusion == "semantic":
        return sem
    lex = lexical if lexical is not None else np.zeros_like(sem)
    if fusion == "sum":
        top = float(lex.max()) if lex.size and lex.max() > 0 else 1.0
        return lex / top + SUM_WEIGHT * np.where(sem > 0, (sem - SEMANTIC_FLOOR) / (1 - SEMANTIC_FLOOR) + 1e-6, 0.0)
    out = np.zeros(len(sem))
    for scores in (lex, sem):
        order = np.argsort(-scores, kind="stable")
        ranks = np.empty(len(scores), dtype=float)
        ranks[order] = np.arange(1, len(scores) + 1)
        out += np.where(scores > 0, 1.0 / (RRF_K + ranks), 0.0)
    return out


class _Bm25:
    """A BM25 index over texts; ranks positions of texts for a query."""

    def __init__(self, texts: Sequence[str], statements: Callable[[int], Sequence[str]] | None = None,
                 fusion: Fusion = FUSION) -> None:
        self._size = len(texts)
        self.semantic = _Semantic(len(texts), statements) if statements is not None and fusion != "bm25" else None
        self.fusion = fusion
        self._model: bm25s.BM25 | None = None
        self._vocab: set[str] = set()
        self._lang = detect_language(" ".join(t[:300] for t in texts[:50])) if texts else "en"
        if texts:
            corpus = [_terms(t, self._lang)[0] or ["\u2205"] for t in texts]
            self._vocab = {t for doc in corpus for t in doc}
            import bm25s  # loaded with the first index (it brings tqdm): a first call to a model need not wait

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

    def _says_enough(self, query: str) -> bool:
        """Whether ``query`` has enough content of its own to be compared by meaning: a follow-up ("And the
        second case?") is found by its terms and the turns before it; a vector of two words is noise."""
        found, lang = _terms(query, self._lang)
        noise = question_noise(lang)
        return len({t for t in found if t not in noise}) >= SEMANTIC_MIN_TERMS

    def ranked(self, query: str, k: int, keep: Collection[int] | None = None,
               context: str = "") -> list[tuple[int, float]]:
        if self._model is None or k <= 0:
            return []
        scores = self._scores(query)
        extra = self._scores(context) if context.strip() else None
        semantic = self.semantic is not None and self._says_enough(query)
        meaning = self.semantic.scores(query, keep) if semantic and self.semantic is not None else None
        if scores is None and extra is None and meaning is None:
            return []
        total = np.zeros(self._size) if scores is None else scores
        if extra is not None:
            if scores is not None and scores.max() > 0 and extra.max() > 0:
                # the turns before are many words, the question a few: scaled to the question's best score,
                # they reorder what the question finds instead of outweighing it
                extra = extra * (scores.max() / extra.max())
            total = total + CONTEXT_WEIGHT * extra
        if keep is not None and meaning is not None:
            total = np.where(np.isin(np.arange(self._size), list(keep)), total, 0.0)
        fused = fuse(total, meaning, self.fusion)
        total = fused if fused is not None else total
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


def statements_of(source: LectureSource | FaqSource) -> tuple[str, ...]:
    """What a source says, statement by statement (``text.statements``)."""
    if isinstance(source, PageChunk):
        return slide_statements(source.text)
    if isinstance(source, FaqSource):
        return prose_statements(source.answer, source.question)
    return prose_statements(source.text)


class LectureIndex:
    """Page chunks and transcript segments of a course."""

    def __init__(self, sources: Sequence[LectureSource], fusion: Fusion = FUSION) -> None:
        self._items = list(sources)
        self._bm25 = _Bm25([_weighted_text(s) for s in self._items], lambda i: statements_of(self._items[i]),
                           fusion)

    def _keep(self, unit_id: int | None) -> set[int] | None:
        return None if unit_id is None else {i for i, s in enumerate(self._items) if s.lecture_unit_id == unit_id}

    def prepare(self, unit_id: int | None = None) -> None:
        """Read the statements of a unit (or of all) for meaning now, so that its first search does not."""
        if self._bm25.semantic is not None:
            self._bm25.semantic.prepare(self._keep(unit_id))

    def search(self, query: str, k: int = 5, unit_id: int | None = None, context: str = "") -> list[LectureSource]:
        keep = self._keep(unit_id)
        return [dataclasses.replace(self._items[i], score=sc)
                for i, sc in self._bm25.ranked(query, k, keep, context)]


class FaqIndex:
    def __init__(self, faqs: Sequence[FaqSource], fusion: Fusion = FUSION) -> None:
        self._items = list(faqs)
        self._bm25 = _Bm25([f.content for f in self._items], lambda i: statements_of(self._items[i]), fusion)

    def search(self, query: str, k: int = 3, context: str = "") -> list[FaqSource]:
        return [dataclasses.replace(self._items[i], score=sc) for i, sc in self._bm25.ranked(query, k, None, context)]
