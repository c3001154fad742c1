"""Multilingual meaning: the sentence encoder is read from its wheel, brings a German question and an English
slide together, and a unit's statement vectors are kept on disk by content, a damaged entry made again."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from citation_core.material import vector_cache
from citation_core.retrieval import LectureIndex
from citation_core.sources import PageChunk
from citation_core.text.encoder import sentence_encoder

MERGE = PageChunk("m6", 101, 6, "Merging two sorted halves\n• Compare the fronts of L and R, copy the smaller one\n"
                  "• When one half is empty, copy the rest of the other")
HASH = PageChunk("h7", 201, 7, "Chaining\n• Each slot holds a linked list of the keys hashed to it\n"
                 "• Load factor α = n / m")
TREE = PageChunk("t3", 301, 3, "Rotationen\n• Eine Linksrotation hebt das rechte Kind an die Stelle der Wurzel")


def test_a_german_question_is_close_to_the_english_slide_that_answers_it() -> None:
    encoder = sentence_encoder()
    assert encoder is not None
    cos = encoder.similarities("Wie werden die beiden sortierten Hälften zusammengeführt?",
                               ["Merge: compare the fronts of the two sorted halves and copy the smaller one",
                                "Each slot of the hash table holds a linked list"])
    assert cos[0] > cos[1] + 0.15
    assert not encoder.embed(["", "   "]).any()  # no words, no direction


def test_a_question_in_another_language_finds_its_slide_across_units(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITATION_STUDIO_DECK_CACHE", str(tmp_path))
    index = LectureIndex([MERGE, HASH, TREE])
    found = index.search("Was passiert, wenn eine Hälfte beim Zusammenführen leer ist?", k=1)
    assert [s.uuid for s in found] == ["m6"]
    found = index.search("What does a left rotation do?", k=1)
    assert [s.uuid for s in found] == ["t3"]


def test_statement_vectors_are_kept_by_content_and_a_damaged_entry_is_made_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITATION_STUDIO_DECK_CACHE", str(tmp_path))
    LectureIndex([MERGE, HASH]).prepare()
    entries = sorted(vector_cache.cache_dir().glob("*.npy"))
    assert len(entries) == 2  # one per unit
    before = {p.name: p.read_bytes() for p in entries}
    entries[0].write_bytes(b"not a numpy file")
    np.save(entries[1], np.full((2, 512), 7.0, dtype=np.float16))  # a foreign entry: not unit vectors
    index = LectureIndex([MERGE, HASH])
    index.prepare()
    assert {p.name: p.read_bytes() for p in sorted(vector_cache.cache_dir().glob("*.npy"))} == before
    assert [s.uuid for s in index.search("linked list in every slot", k=1)] == ["h7"]
    # another version of the material is another entry
    LectureIndex([PageChunk("m6", 101, 6, MERGE.text + "\n• Merging takes linear time")]).prepare()
    assert len(list(vector_cache.cache_dir().glob("*.npy"))) == 3
