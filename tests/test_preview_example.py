"""The Chip preview's default text says of each of its markers what it becomes, and that is what it becomes.

The default is read from the page itself (Streamlit's AppTest), cut into sentences (the prose before a
run of markers, and those markers), and each sentence's words are checked against the chip report of
that text, the same rows the page shows under "Which markers became chips".
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from citation_core.material.library import load_material
from studio.chip_report import BRACKET, NOT_A_CANDIDATE, UNREADABLE, CandidateRow, chip_report, marker_texts
from studio.services import versions_lookup
from tests.conftest import ROOT, SAMPLE_COURSE

Sentence = tuple[str, list[CandidateRow]]


@pytest.fixture(scope="module")
def default_text(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CITATION_STUDIO_DB", str(tmp_path_factory.mktemp("preview") / "lms.sqlite3"))
        mp.chdir(ROOT)
        st.cache_resource.clear()
        at = AppTest.from_file(str(ROOT / "pages" / "chip_preview.py"), default_timeout=60)
        at.run()
        assert not at.exception, at.exception
        assert at.selectbox[0].value == "Algorithms and Data Structures (id 1)", "resolved against the sample course"
        yield str(at.text_area(key="preview_text").value)
        st.cache_resource.clear()


def sentences(text: str) -> list[Sentence]:
    """Each run of markers (only spaces or backticks between them) with the prose written before it."""
    rows = chip_report(text, versions_lookup(load_material(SAMPLE_COURSE)))
    spans = marker_texts(text)
    assert len(rows) == len(spans)
    out: list[Sentence] = []
    pos = i = 0
    while i < len(spans):
        prose, run, end = text[pos:spans[i][0]], [rows[i]], spans[i][1]
        i += 1
        while i < len(spans) and not text[end:spans[i][0]].strip(" `"):
            run.append(rows[i])
            end = spans[i][1]
            i += 1
        out.append((" ".join(prose.strip(" `").split()), run))
        pos = end
    return out


def one_chip(run: list[CandidateRow]) -> bool:
    return all(r.chip for r in run) and len({r.group for r in run}) == 1


# What a sentence may say about its markers, and what must then be true of them (every sentence says one).
CLAIMS: dict[str, Callable[[list[CandidateRow]], bool]] = {
    "becomes a chip": lambda run: len(run) == 1 and one_chip(run),
    "become one chip": lambda run: len(run) > 1 and one_chip(run),
    "stays text": lambda run: all(not r.chip for r in run),
    "stays code": lambda run: all(not r.chip and r.why == NOT_A_CANDIDATE for r in run),
}
# What a sentence may add, and what must then be true of its markers.
DETAILS: dict[str, Callable[[list[CandidateRow]], bool]] = {
    "slide": lambda run: run[0].ours.startswith("slide · "),
    "video": lambda run: any(r.ours.startswith("video · ") for r in run),
    "faq": lambda run: all(r.ours.startswith("faq · ") for r in run),
    "newer": lambda run: all("is newer than this unit's" in r.why and "another copy" in r.why for r in run),
    "intermediate": lambda run: all(r.why == UNREADABLE and r.marker.endswith(("!1]", "!2]")) for r in run),
    "missing": lambda run: all(r.why == UNREADABLE for r in run),
    "bracket": lambda run: all(r.why == BRACKET for r in run),
}


def test_the_default_text_says_of_each_marker_what_it_becomes(default_text: str) -> None:
    found = sentences(default_text)
    for prose, run in found:
        said = [claim for claim in CLAIMS if claim in prose]
        assert said, f"this sentence does not say what its markers become: {prose!r}"
        for claim in said:
            assert CLAIMS[claim](run), (prose, claim, run)
        for word, holds in DETAILS.items():
            if word in prose.lower():
                assert holds(run), (prose, word, run)
    assert len(found) >= 6


def test_the_default_text_shows_chips_and_markers_that_stay_text(default_text: str) -> None:
    found = sentences(default_text)
    assert any(one_chip(run) for _, run in found) and any(not run[0].chip for _, run in found)
    assert {r.why for _, run in found for r in run} >= {UNREADABLE, BRACKET, NOT_A_CANDIDATE}


def test_sentences_are_the_prose_before_each_run_of_markers() -> None:
    text = "One stays text: [cite:x] Two become one chip.[cite:a][cite:b] and `[cite:c]`"
    assert [(prose, [r.marker for r in run]) for prose, run in sentences(text)] == [
        ("One stays text:", ["[cite:x]"]), ("Two become one chip.", ["[cite:a]", "[cite:b]"]),
        ("and", ["[cite:c]"])]


def test_a_sentence_that_says_a_chip_stays_text_is_caught() -> None:
    [(prose, run)] = sentences("An unreadable marker stays text: [cite:L:101:4:::A:B]")
    assert not CLAIMS["stays text"](run)
