"""Material built to be costly: one enormous word, a million cues, a cache entry that lies about its PDF.

Each case is answered within bounded time and memory with one line naming what is wrong; how the time grows with
the input is measured by bench/hostile_material.py, never here (the timeout only stops a run that hangs).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citation_core.chat.chat_pipeline import ChatPipeline
from citation_core.chat.view import ViewPosition
from citation_core.errors import MaterialError
from citation_core.llm.config import default_config
from citation_core.material.library import load_material
from citation_core.material.transcript import MAX_CUES, load_transcript
from citation_core.text.tokens import math_terms, terms
from tests.material_fixtures import make_course, write_text

WORD = "a" * 200_000


@pytest.mark.timeout(60)
def test_a_cue_of_one_200000_character_word_loads_and_is_asked_about(tmp_path: Path) -> None:
    root = tmp_path / "course"
    make_course(root)
    write_text(root / "transcripts" / "merge_sort.vtt",
               "WEBVTT\n\n00:00:00.000 --> 00:00:04.000\nMerge sort splits the list\n\n"
               f"00:00:04.000 --> 00:00:09.500\n{WORD}\n")
    material = load_material(root)
    assert material.broken == {}
    result = ChatPipeline(default_config(), material)("How does merge sort split the list?",
                                                      ViewPosition(101, second=2.0))
    assert "[cite:" in result.answer


@pytest.mark.timeout(60)
@pytest.mark.parametrize("word", [WORD, "(" + WORD, WORD + "=", "x" * 100_000 + "/" + "y" * 100_000])
def test_formula_words_of_any_length_are_found_in_one_pass(word: str) -> None:
    found = math_terms(f"T(n) = 2·T(n/2) and {word}")
    assert {"§t(n)", "§2·t(n/2)"} <= found
    assert not any(len(t) > 200 for t in found)  # a 200,000-character "formula" is no formula word
    assert terms(word) is not None


@pytest.mark.timeout(60)
def test_a_transcript_with_more_cues_than_the_limit_is_refused_in_one_line(tmp_path: Path) -> None:
    cues = "".join(f"{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}.000 --> {i // 3600:02d}:{i // 60 % 60:02d}:"
                   f"{i % 60:02d}.500\nw\n\n" for i in range(MAX_CUES + 1))
    path = write_text(tmp_path / "huge.vtt", "WEBVTT\n\n" + cues)
    with pytest.raises(MaterialError) as err:
        load_transcript(path)
    assert str(err.value) == (f"huge.vtt: more than {MAX_CUES:,} cues: too many to load (a transcript of ten hours "
                              "holds about 12,000)")


def test_a_cache_entry_that_disagrees_with_its_pdf_is_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An entry keyed by the PDF's content but holding 2 of its 17 pages (written by a broken or hostile process)
    is not trusted: the deck is parsed again and the entry rewritten."""
    import json

    from citation_core.material import deck_cache, ocr
    from citation_core.material.deck import load_deck
    from tests.conftest import SAMPLE_COURSE

    monkeypatch.setenv(deck_cache.CACHE_ENV, str(tmp_path / "cache"))
    pdf = tmp_path / "merge_sort.pdf"
    pdf.write_bytes((SAMPLE_COURSE / "decks" / "merge_sort.pdf").read_bytes())
    whole = load_deck(pdf)
    assert len(whole.pages) == 17
    entry = tmp_path / "cache" / f"{ocr.content_digest(pdf.read_bytes())}.json"
    data = json.loads(entry.read_text(encoding="utf-8"))
    data["pages"] = data["pages"][:2]
    data["labels"] = data["labels"][:2] if data["labels"] is not None else None
    entry.write_text(json.dumps(data), encoding="utf-8")
    assert load_deck(pdf) == whole
    assert len(json.loads(entry.read_text(encoding="utf-8"))["pages"]) == 17
