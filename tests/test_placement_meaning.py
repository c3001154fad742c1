"""Offline placement with meaning on the sample course: the multilingual encoder embeds the sentences it
decides in one batch, the sources' statement vectors are kept per set of sources, a sentence meets the
sources of its own language by meaning only when one in another language comes close (and then only those
sharing a term with it), and none of this
changes a citation: every sentence is cited as it is when placed alone."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from citation_core.llm.offline import place_citations
from citation_core.llm.offline_meaning import CACHE_KIND
from citation_core.material import vector_cache
from citation_core.material.library import CourseMaterial, load_material
from citation_core.pipeline.serialize import serialize_lecture
from citation_core.text import encoder as encoder_module
from citation_core.text.encoder import SentenceEncoder, clean, sentence_encoder
from citation_core.text.similarity import Matcher
from citation_core.text.statements import statements

# A German learner's tutor writes about the English unit 101 (merge sort) ...
GERMAN = ["Merge Sort teilt das Feld in der Mitte, sortiert beide Hälften rekursiv und fügt sie danach zusammen.",
          "Beim Zusammenführen vergleicht man die vordersten Elemente der beiden Hälften und übernimmt jeweils das "
          "kleinere.",
          "Die Laufzeit erfüllt die Rekurrenz T(n) = 2·T(n/2) + Θ(n).",
          "Nach dem Master-Theorem ist das Fall 2, also Θ(n log n).",
          "Weil gleiche Schlüssel ihre Reihenfolge behalten, ist das Verfahren stabil.",
          "Übe das am besten mit ein paar Spielkarten."]
# ... and an English tutor about the same unit, in the slides' words and in other words
ENGLISH = ["Merge sort splits the subarray at the midpoint, sorts both halves recursively and merges them.",
           "To merge, it repeatedly compares the fronts of the two sorted runs and copies the smaller key back.",
           "Each level of the recursion tree costs cn, and there are log n + 1 levels.",
           "Equal keys keep their relative order, so the algorithm is stable.",
           "No comparison sort can beat n log n comparisons in the worst case.",
           "Try it yourself with a handful of playing cards."]


@pytest.fixture(scope="module")
def material(sample_course: Path) -> CourseMaterial:
    return load_material(sample_course)


@pytest.fixture(scope="module")
def sources(material: CourseMaterial) -> list[dict[str, str]]:
    """What the lecture pass gives placement: unit 101 (English slides and transcript) and the slides of unit
    301 (German), so that both answers have sources in another language than theirs."""
    lecture = [*material.units[101].chunks, *material.units[101].segments, *material.units[301].chunks]
    return [{"id": e.marker, "content": e.content} for e in serialize_lecture(lecture).entries]


class Recording:
    """The real encoder model, recording the texts it is given, call by call."""

    def __init__(self, model: object) -> None:
        self.model = model
        self.calls: list[list[str]] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.asarray(self.model.encode(texts))  # type: ignore[attr-defined]

    def texts(self) -> set[str]:
        return {t for call in self.calls for t in call}


@pytest.fixture
def fresh_encoder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Recording]:
    """The process's encoder as a fresh process has it (nothing embedded yet), recording what it embeds, with
    an empty vector cache of this test."""
    loaded = sentence_encoder()
    assert loaded is not None, "the multilingual encoder should be installed with the package"
    monkeypatch.setenv("CITATION_STUDIO_DECK_CACHE", str(tmp_path))
    recording = Recording(loaded.model)
    monkeypatch.setattr(encoder_module, "_loaded", lambda: SentenceEncoder(recording))
    yield recording


def statement_texts(texts: Iterable[str]) -> set[str]:
    return {clean(st) for text in texts for st in statements(text)}


def test_the_sentences_the_encoder_decides_are_embedded_in_one_batch(
        sources: list[dict[str, str]], fresh_encoder: Recording) -> None:
    cited = place_citations(" ".join(GERMAN), sources)
    asked = [call for call in fresh_encoder.calls if {clean(s) for s in GERMAN} & set(call)]
    assert len(asked) == 1, f"the answer's sentences were embedded in {len(asked)} calls"
    assert len(asked[0]) >= 2
    assert "zusammen.[cite:L:101:" in cited and "kleinere.[cite:L:101:" in cited  # cited by meaning


@pytest.fixture(scope="module")
def english_sources(material: CourseMaterial) -> list[dict[str, str]]:
    """Unit 101 alone (English slides and transcript): every source is in another language than GERMAN."""
    lecture = [*material.units[101].chunks, *material.units[101].segments]
    return [{"id": e.marker, "content": e.content} for e in serialize_lecture(lecture).entries]


def test_a_second_answer_from_the_same_sources_reads_their_statement_vectors(
        english_sources: list[dict[str, str]], fresh_encoder: Recording, monkeypatch: pytest.MonkeyPatch) -> None:
    place_citations(" ".join(GERMAN[:3]), english_sources)
    assert statement_texts(s["content"] for s in english_sources) <= fresh_encoder.texts()
    # another process (nothing in memory), another answer from the same sources
    again = Recording(fresh_encoder.model)
    monkeypatch.setattr(encoder_module, "_loaded", lambda: SentenceEncoder(again))
    second = place_citations(" ".join(GERMAN[3:]), english_sources)
    assert again.texts() <= {clean(s) for s in GERMAN[3:]}, "statement vectors were made again"
    # the same citations as with the vectors made afresh
    kept = list(vector_cache.cache_dir(CACHE_KIND).glob("*.npy"))
    assert len(kept) == 1
    kept[0].unlink()
    monkeypatch.setattr(encoder_module, "_loaded", lambda: SentenceEncoder(Recording(fresh_encoder.model)))
    assert place_citations(" ".join(GERMAN[3:]), english_sources) == second


def test_a_sentence_close_to_a_source_in_another_language_is_weighed_against_those_sharing_a_term(
        material: CourseMaterial, sources: list[dict[str, str]], fresh_encoder: Recording) -> None:
    """A German sentence the English slides explain is cited to them by meaning; the German slides it is
    weighed against are those sharing a term with it (they were read by their terms already), not the whole
    German unit: most of its statements are never embedded."""
    cited = place_citations(GERMAN[1], sources)
    assert "kleinere.[cite:L:101:" in cited
    german = statement_texts(c.text for c in material.units[301].chunks)
    english = statement_texts(c.text for c in material.units[101].chunks)
    assert english <= fresh_encoder.texts()
    weighed = german & fresh_encoder.texts()
    assert len(weighed) < len(german) / 2, f"{len(weighed)} of {len(german)} German statements embedded"
    assert not list(vector_cache.cache_dir(CACHE_KIND).glob("*.npy")), "a partial set of vectors was kept"


def test_a_sentence_meets_the_sources_of_its_own_language_only_when_one_in_another_comes_close(
        material: CourseMaterial, sources: list[dict[str, str]], fresh_encoder: Recording) -> None:
    """An English remark no source supports by its terms could only be cited by the encoder to a source in
    another language (the German slides); none of them comes close, so the English slides' statements are not
    embedded."""
    remark = ENGLISH[-1]
    assert place_citations(remark, sources) == remark
    english = statement_texts(c.text for c in material.units[101].chunks)
    german = statement_texts(c.text for c in material.units[301].chunks)
    assert german <= fresh_encoder.texts()
    assert not english & fresh_encoder.texts()


def test_only_a_sentence_its_terms_do_not_place_is_aligned_token_by_token(
        sources: list[dict[str, str]], fresh_encoder: Recording, monkeypatch: pytest.MonkeyPatch) -> None:
    """Token alignment only decides where shared terms found no source: the sentences cited by their terms
    alone (meaning off) are not aligned with the statements at all."""
    monkeypatch.setenv("CITATION_STUDIO_EMBEDDINGS", "off")
    by_terms = [s for s in ENGLISH if place_citations(s, sources) != s]
    monkeypatch.delenv("CITATION_STUDIO_EMBEDDINGS")
    aligned: list[str] = []
    scores = Matcher.scores

    def recorded(self: Matcher, query: str, only: Sequence[int] | None = None) -> np.ndarray:
        aligned.append(query)
        return scores(self, query, only)

    monkeypatch.setattr(Matcher, "scores", recorded)
    place_citations(" ".join(ENGLISH), sources)
    assert 3 <= len(by_terms) < len(ENGLISH)
    assert aligned and not set(aligned) & set(by_terms)


@pytest.mark.parametrize("answer", [GERMAN, ENGLISH], ids=["german", "english"])
def test_every_sentence_is_cited_as_when_it_is_placed_alone(
        sources: list[dict[str, str]], fresh_encoder: Recording, answer: list[str]) -> None:
    whole = place_citations(" ".join(answer), sources)
    alone = " ".join(place_citations(sentence, sources) for sentence in answer)
    assert whole == alone
    assert whole.count("[cite:") >= 5
