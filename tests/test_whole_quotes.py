"""The offline writer quotes whole sentences from real decks: lines the PDF broke inside a sentence are joined
again, code (LaTeX, Python) is quoted as code, a quote cut short says so with "…", and a chip's summary starts
where a sentence starts.

The page texts are those of the real decks in tests/material_real (see its README for their licences):
en_elte_nlp_4-ngram_lm.pdf (ELTE NLP, lecture 4), en_tut_python_lec8.pdf (TUT Python 3 for scientific
computing, lecture 8), en_metropolis_demo.pdf (the metropolis Beamer theme's demo) and en_nlp_rag.pdf.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from citation_core.llm.offline import summarize
from citation_core.material.deck import load_deck
from citation_core.material.library import without_boilerplate
from citation_core.text import is_code_line, slide_units
from citation_core.text.statements import slide_statements

ROOT = Path(__file__).resolve().parents[1]
DECKS = ROOT / "tests" / "material_real" / "decks"
ELTE, PYTHON, METROPOLIS, RAG = ("en_elte_nlp_4-ngram_lm.pdf", "en_tut_python_lec8.pdf", "en_metropolis_demo.pdf",
                                 "en_nlp_rag.pdf")
# a quoted line that stops where no sentence stops: an article, a preposition, a conjunction, a copula
CUT = re.compile(r"\b(?:the|a|an|of|to|as|and|or|is|be|by|for|with|denote|if your math is)$")


@cache
def page(deck: str, number: int) -> str:
    """A page's text as the library keeps it (lines repeated on most pages of the deck left out)."""
    return without_boilerplate(load_deck(DECKS / deck, cache=False, read_images=False)).pages[number - 1].text


def units(deck: str, number: int) -> list[str]:
    return [u.full() for u in slide_units(page(deck, number)).units if u.kind != "code"]


# --- statements: lines joined where the PDF broke a sentence --------------------------------------------------

@pytest.mark.parametrize(("deck", "number", "sentence"), [
    # a formula with wide gaps on the line before does not stop the sentence
    (ELTE, 18, "Unigram models disregard the order of words and the most probable sequences are simply those "
               "entirely composed from the most frequent word(s)."),
    # the gap after a bullet mark ("■     requires …") is no table column
    (ELTE, 7, "requires a separate, unconditional clause for the starting probabilities, and"),
    (PYTHON, 11, "because the things that are used to denote general memory layouts are defined as C-level "
                 "constants."),
    (PYTHON, 2, "if your math is expressed in the tensor formalism."),
    # a displayed formula after "as" and the clause after it belong to the sentence
    (ELTE, 12, "which is exactly the geometric mean of the reciprocals of the conditional probabilities of all "
               "words in the corpus."),
])
def test_a_sentence_the_pdf_broke_into_lines_is_one_statement(deck: str, number: int, sentence: str) -> None:
    found = [u for u in units(deck, number) if sentence in u]
    assert found, units(deck, number)
    assert not any(CUT.search(u) for u in units(deck, number) if u not in found), units(deck, number)


def test_the_rewritten_formula_stays_in_the_sentence_that_announces_it() -> None:
    statements = [u for u in units(ELTE, 12) if u.startswith("With the chain rule perplexity can be rewritten as")]
    assert statements and "which is exactly the geometric mean" in statements[0], units(ELTE, 12)
    assert not any(s.startswith("which") for s in slide_statements(page(ELTE, 12))), slide_statements(page(ELTE, 12))


def test_bullets_headings_and_code_lines_stay_apart() -> None:
    lists = slide_units(page(METROPOLIS, 14)).units
    assert [u.full() for u in lists] == ["Items", "Milk", "Eggs", "Potatos", "Enumerations", "First,", "Second and",
                                         "Last.", "Descriptions", "PowerPoint Meeh.", "Beamer Yeeeha."]
    evaluation = units(ELTE, 11)
    assert [u for u in evaluation if u.startswith(("extrinsic", "intrinsic"))] == [
        "extrinsic: how well does the model do as a component in a spell checker, speech-to-text system etc., or",
        "intrinsic: how well the assigned probabilities correspond to the texts in a test corpus?"]
    code = [u.text for u in slide_units(page(PYTHON, 11)).units if u.kind == "code"]
    assert "def do_stuff():" in code and "cimport cython.parallel" in code


# --- code: LaTeX lines are code ----------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    r"\documentclass{beamer}", r"\usetheme{metropolis}", r"\section{Elements}",
    r"\emph{emphasize}   text,   \alert{accent}   parts", r"or   show   \textbf{bold}   results.",
    r"\usepackage[utf8]{inputenc}", r"\item First point", r"\begin{frame}{Title}",
])
def test_latex_lines_are_code(line: str) -> None:
    assert is_code_line(line)


@pytest.mark.parametrize("line", [
    "The theme provides sensible defaults to emphasize text, accent parts or show bold results.",
    "Enable the theme by loading", r"A backslash \ starts a command in LaTeX.",
])
def test_prose_about_latex_stays_prose(line: str) -> None:
    assert not is_code_line(line)


@pytest.mark.parametrize(("line", "code"), [
    ("MERGE(A, p, q, r)", True), ("INORDER-TREE-WALK(x)", True),  # pseudo code signatures
    ("P(hw1, . . . , wni)", False), ("C(w)", False), ("AP(q)", False),  # formulas of the real decks
])
def test_a_formula_is_no_pseudo_code_signature(line: str, code: bool) -> None:
    assert is_code_line(line) is code


def test_the_latex_source_of_a_sentence_is_one_code_block() -> None:
    slide = slide_units(page(METROPOLIS, 12))
    code = [u.text for u in slide.units if u.kind == "code"]
    assert code[0] == "The   theme   provides   sensible   defaults   to"
    assert len(code) == 3 and r"\textbf{bold}" in code[2]
    assert [u.full() for u in slide.units if u.kind != "code"] == [
        "becomes", "The theme provides sensible defaults to emphasize text, accent parts or show bold results."]


# --- summaries start where a sentence starts --------------------------------------------------------------

def test_a_summary_never_starts_inside_a_sentence() -> None:
    # the line after the formula ("which is exactly …") continues the sentence before it
    for evidence in ("", "With the chain rule perplexity can be rewritten as"):
        summary = summarize(page(ELTE, 12), evidence=evidence)
        assert not re.search(r"(?:^|[.!?]\s)(?:which|the|and)\b", summary), summary
        assert summary.startswith("With the chain rule perplexity can be rewritten as"), summary


def test_a_summary_is_never_a_line_of_the_outline_in_the_sidebar() -> None:
    # lines 2-9 of the page list the lecture's sections beside the slide
    sidebar = [ln.strip() for ln in page(ELTE, 11).split("\n")[1:9]]
    assert "Start and end symbols" in sidebar
    summary = summarize(page(ELTE, 11))
    assert not any(s in summary for s in sidebar), summary
    assert summary.startswith("The most widely used intrinsic evaluation metric is perplexity on a corpus."), summary
