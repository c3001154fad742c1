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
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np

from .material import vector_cache
from .sources import FaqSource, LectureSource, PageChunk, TranscriptSegment
from .text import conflate, detect_language, math_terms, question_noise, stem_list
from .text.encoder import SentenceEncoder, sentence_encoder
from .text.statements import prose_statements, slide_statements

if TYPE_CHECKING:
    import bm25s

CONTEXT_WEIGHT = 0.5
Fusion = Literal["bm25", "semantic", "rrf", "sum"]
FUSION: Fusion = "rrf"
RRF_K = 20  # reciprocal rank fusion: 1 / (RRF_K + rank) from each ranking
SEMANTIC_FLOOR = 0.3  # a source ranked by meaning alone has a statement at least this close (encoder cosine; dev)
SEMANTIC_MIN_TERMS = 1  # a query without a content term of its own ("And then?") is searched by its words only
WITHIN: tuple[float, float] = (1.0, 0.5)  # (BM25, meaning) votes, question in the texts' language (dev: 59 -> 67 of 99)
ACROSS: tuple[float, float] = (1.0, 1.0)  # for a question in another language
SUM_WEIGHT = 1.0  # calibrated sum: BM25 / its best + SUM_WEIGHT * (cosine - floor) / (1 - floor)


def _terms(text: str, default: str = "en") -> tuple[list[str], str]:
    lang = detect_language(text, default)
    return stem_list(text, lang) + sorted(math_terms(text)), lang


class _Semantic:
    """Statement vectors of indexed texts and each text's best cosine with a query.

    Texts come in groups (a unit's slides and transcript windows; a course's FAQ): a group's vectors are made
    at once, the first time a search may return one of its texts, and kept on disk by content
    (``material.vector_cache``), so a unit's material is embedded once per version, not at every start."""

    def __init__(self, size: int, statements: Callable[[int], Sequence[str]], groups: Sequence[int],
                 members: Mapping[int, Sequence[int]]) -> None:
        self._size = size
        self._statements = statements  # read on first use: building an index reads no slide twice
        self._group_of = groups  # per text, its group
        self._groups = members  # per group, its texts
        self._vectors: dict[int, np.ndarray] = {}
        self._lock = threading.Lock()

    def prepare(self, keep: Collection[int] | None = None) -> dict[int, np.ndarray] | None:
        """The statement vectors of the kept texts (made once per group), or None without an encoder."""
        encoder = sentence_encoder()
        if encoder is None:
            return None
        wanted = range(self._size) if keep is None else sorted(keep)
        with self._lock:
            for g in sorted({self._group_of[i] for i in wanted if i not in self._vectors}):
                self._embed_group(encoder, self._groups[g])
            return {i: self._vectors[i] for i in wanted}

    def _embed_group(self, encoder: SentenceEncoder, members: Sequence[int]) -> None:
        parts = [tuple(self._statements(i)) for i in members]
        flat = [st for part in parts for st in part]
        entry = vector_cache.key(encoder.name, flat)
        vecs = vector_cache.load(entry, len(flat), encoder.dimensions) if flat else None
        if vecs is None:
            # as the cache keeps them (float16): a search gives the same ranking whether the vectors were just
            # made or read back
            vecs = vector_cache.as_stored(encoder.embed(flat) if flat else np.zeros((0, encoder.dimensions)))
            if flat:
                vector_cache.store(entry, vecs)
        at = 0
        for i, part in zip(members, parts, strict=True):
            self._vectors[i] = vecs[at : at + len(part)]
            at += len(part)

    def scores(self, query: str, keep: Collection[int] | None = None) -> np.ndarray | None:
        """Per text: its best statement's cosine with ``query`` (-1 for texts not kept); None without an
        encoder."""
        encoder = sentence_encoder()
        vectors = self.prepare(keep) if query.strip() else None
        if encoder is None or vectors is None:
            return None
        q = encoder.embed([query])[0]
        out = np.full(self._size, -1.0)
        for i, v in vectors.items():
            if len(v):
                out[i] = float(np.max(v @ q))
        return out


def fuse(lexical: np.ndarray | None, semantic: np.ndarray | None, fusion: Fusion = FUSION,
         weights: tuple[float, float] = (1.0, 1.0)) -> np.ndarray | None:
    """One score per text from the BM25 scores and the best-statement cosines; > 0 means found. ``weights``
    are the votes of the two rankings in reciprocal rank fusion (BM25's, the encoder's)."""
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
    for scores, weight in zip((lex, sem), weights, strict=True):
        order = np.argsort(-scores, kind="stable")
        ranks = np.empty(len(scores), dtype=float)
        ranks[order] = np.arange(1, len(scores) + 1)
        out += np.where(scores > 0, weight / (RRF_K + ranks), 0.0)
    return out


class _Bm25:
    """A BM25 index over texts; ranks positions of texts for a query."""

    def __init__(self, texts: Sequence[str], statements: Callable[[int], Sequence[str]] | None = None,
                 fusion: Fusion = FUSION, groups: Sequence[int] | None = None) -> None:
        self._size = len(texts)
        self._group_of = list(groups) if groups is not None else [0] * len(texts)
        members: dict[int, list[int]] = {}
        for i, g in enumerate(self._group_of):
            members.setdefault(g, []).append(i)
        self.semantic = (_Semantic(len(texts), statements, self._group_of, members)
                         if statements is not None and fusion != "bm25" else None)
        self.fusion = fusion
        self._model: bm25s.BM25 | None = None
        self._vocab: set[str] = set()
        self._lang = detect_language(" ".join(t[:300] for t in texts[:50])) if texts else "en"
        # each group's (unit's) own language: a question in another language is found by meaning first
        self._group_lang = {g: detect_language(" ".join(texts[i][:300] for i in ids[:30]), self._lang)
                            for g, ids in members.items()}
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

    def _weights(self, query: str, keep: Collection[int] | None) -> tuple[float, float]:
        """The votes of BM25 and of meaning: a question in the language of the texts searched is read by its
        words first (``WITHIN``), one in another language by its meaning (``ACROSS``)."""
        langs = {self._group_lang[self._group_of[i]] for i in keep} if keep else {self._lang}
        asked = detect_language(query, self._lang)
        return WITHIN if asked in langs else ACROSS

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
        fused = fuse(total, meaning, self.fusion, self._weights(query, keep))
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


WINDOW_WORDS = 40  # a transcript window: consecutive cues of a unit up to about as many words as a slide says


def transcript_windows(sources: Sequence[LectureSource]) -> list[list[int]]:
    """The documents ranked for ``sources``: each page chunk alone, and consecutive transcript cues of one unit
    joined into windows of up to ``WINDOW_WORDS`` words. A cue of a few words is no document of its own: BM25
    would favour it for its shortness and the encoder for its one clear sentence, over the slide that says
    the whole thing."""
    docs: list[list[int]] = []
    current: list[int] = []
    words = 0
    for i, src in enumerate(sources):
        if isinstance(src, TranscriptSegment):
            n = len(src.text.split())
            if current and (sources[current[-1]].lecture_unit_id != src.lecture_unit_id or words + n > WINDOW_WORDS):
                docs.append(current)
                current, words = [], 0
            current.append(i)
            words += n
            continue
        if current:
            docs.append(current)
            current, words = [], 0
        docs.append([i])
    if current:
        docs.append(current)
    return docs


class LectureIndex:
    """Page chunks and transcript segments of a course, ranked as pages and transcript windows
    (``transcript_windows``); a window found stands for its cue that says most of the query."""

    def __init__(self, sources: Sequence[LectureSource], fusion: Fusion = FUSION) -> None:
        self._items = list(sources)
        self._docs = transcript_windows(self._items)
        texts = [_weighted_text(self._items[d[0]]) if len(d) == 1 else " ".join(self._items[i].text for i in d)
                 for d in self._docs]
        self._bm25 = _Bm25(texts, self._statements, fusion, [int(self._items[d[0]].lecture_unit_id)
                                                              for d in self._docs])

    def _statements(self, doc: int) -> tuple[str, ...]:
        members = self._docs[doc]
        if len(members) == 1:
            return statements_of(self._items[members[0]])
        return prose_statements(" ".join(self._items[i].text for i in members))

    def _keep(self, unit_id: int | None) -> set[int] | None:
        if unit_id is None:
            return None
        return {k for k, d in enumerate(self._docs) if self._items[d[0]].lecture_unit_id == unit_id}

    def prepare(self, unit_id: int | None = None) -> None:
        """Read the statements of a unit (or of all) for meaning now, so that its first search does not."""
        if self._bm25.semantic is not None:
            self._bm25.semantic.prepare(self._keep(unit_id))

    def search(self, query: str, k: int = 5, unit_id: int | None = None, context: str = "") -> list[LectureSource]:
        keep = self._keep(unit_id)
        return [dataclasses.replace(self._items[self._member(doc, query)], score=sc)
                for doc, sc in self._bm25.ranked(query, k, keep, context)]

    def _member(self, doc: int, query: str) -> int:
        """The item a ranked document stands for: a page chunk itself; of a window, the cue sharing most terms
        with the query, else the one closest to it in meaning, else the first."""
        members = self._docs[doc]
        if len(members) == 1:
            return members[0]
        wanted, lang = _terms(query)
        shared = [len(set(wanted) & set(_terms(self._items[i].text, lang)[0])) for i in members]
        encoder = sentence_encoder()
        close = (encoder.similarities(query, [self._items[i].text for i in members]) if encoder is not None
                 else np.zeros(len(members)))
        best = max(range(len(members)), key=lambda j: (shared[j], float(close[j]), -j))
        return members[best]


class FaqIndex:
    def __init__(self, faqs: Sequence[FaqSource], fusion: Fusion = FUSION) -> None:
        self._items = list(faqs)
        self._bm25 = _Bm25([f.content for f in self._items], lambda i: statements_of(self._items[i]), fusion)

    def search(self, query: str, k: int = 3, context: str = "") -> list[FaqSource]:
        return [dataclasses.replace(self._items[i], score=sc) for i, sc in self._bm25.ranked(query, k, None, context)]
