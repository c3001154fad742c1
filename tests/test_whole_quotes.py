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

from citation_core.chat.chat_pipeline import ChatPipeline
from citation_core.chat.quotes import MAX_QUOTE, excerpt
from citation_core.chat.tools import passage
from citation_core.chat.view import ViewPosition
from citation_core.llm.config import load_config
from citation_core.llm.offline import summarize
from citation_core.material.deck import load_deck
from citation_core.material.library import CourseMaterial, load_material, without_boilerplate
from citation_core.material.uploads import Upload, add_upload
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


# --- quotes: cut at a sentence or clause end, the cut marked ------------------------------------------------

def test_a_long_statement_is_quoted_by_the_sentence_that_answers_with_an_ellipsis_for_the_rest() -> None:
    statement = next(u for u in units(ELTE, 18) if "disregard" in u)
    assert len(statement) > MAX_QUOTE

    def weight(sentence: str) -> float:
        return float("order" in sentence)

    assert excerpt(statement, "en", weight) == (
        "… Unigram models disregard the order of words and the most probable sequences are simply those entirely "
        "composed from the most frequent word(s).")
    first = excerpt(statement, "en")  # nothing tells the sentences apart: the first, and the cut marked
    assert first.startswith("The simplest N-gram language models are unigram models") and first.endswith(" …")
    assert len(first) <= MAX_QUOTE + 2


def test_a_long_sentence_is_cut_after_a_clause() -> None:
    # the slide's sub-bullets lost their marks in the PDF: one run-on statement of 353 characters
    statement = next(u for u in units(RAG, 6) if u.startswith("Answer from pre-trained parameters"))
    assert len(statement) > MAX_QUOTE
    quoted = excerpt(statement, "en")
    assert quoted.endswith("healthcare application …") and statement.startswith(quoted[:-2])


def test_a_short_statement_is_quoted_whole_and_marked_only_where_it_stops_inside_its_sentence() -> None:
    assert excerpt("Language model evaluation can be", "en") == "Language model evaluation can be …"
    assert excerpt("Language model evaluation can be", "en", goes_on=True) == "Language model evaluation can be"
    ends_on = "None of this data (hopefully) was in the large web-based corpora that large language models are " \
              "pre-trained on"  # a sentence may end in a preposition
    assert excerpt(ends_on, "en") == ends_on


# --- what the writer answers on the real decks ------------------------------------------------------------

@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> tuple[CourseMaterial, dict[str, int]]:
    root = tmp_path_factory.mktemp("library")
    ids = {name: add_upload(root, Upload(name, (DECKS / name).read_bytes())).unit_id
           for name in (ELTE, PYTHON, METROPOLIS, RAG)}
    return load_material(root), ids


def ask(library: tuple[CourseMaterial, dict[str, int]], deck: str, question: str, open_page: int) -> str:
    material, ids = library
    return ChatPipeline(load_config(ROOT, override=""), material)(
        question, ViewPosition(ids[deck], page=open_page), language="English").writer_answer


def quoted(answer: str) -> list[str]:
    """The answer's quoted prose: its list items outside code blocks, without the list marks."""
    prose = re.sub(r"```.*?```", "", answer, flags=re.S)
    return [line[2:] for line in prose.split("\n") if line.startswith("- ")]


@pytest.mark.parametrize(("deck", "question", "whole"), [
    (ELTE, "How do unigram models treat the order of words?",
     "Unigram models disregard the order of words and the most probable sequences are simply those entirely "
     "composed from the most frequent word(s)."),
    (ELTE, "How can perplexity be rewritten with the chain rule?",
     "which is exactly the geometric mean of the reciprocals of the conditional probabilities of all words in the "
     "corpus."),
    (PYTHON, "Why must cython.view be cimported and not imported?",
     "cython.view must be cimported (not imported!), because the things that are used to denote general memory "
     "layouts are defined as C-level constants."),
    (PYTHON, "Is NumPy already fast?",
     "NumPy is already an acceleration tool (much faster than Python loops), if your math is expressed in the "
     "tensor formalism."),
])
def test_the_writer_quotes_whole_sentences(library: tuple[CourseMaterial, dict[str, int]], deck: str,
                                           question: str, whole: str) -> None:
    answer = ask(library, deck, question, 2 if deck == ELTE else 1)
    assert any(whole in q for q in quoted(answer)), answer
    assert not any(CUT.search(q) for q in quoted(answer)), answer


def test_latex_code_the_slide_announces_is_quoted_as_code(library: tuple[CourseMaterial, dict[str, int]]) -> None:
    answer = ask(library, METROPOLIS, "How do I enable the theme?", 1)
    assert "```\n  \\documentclass{beamer}\n  \\usetheme{metropolis}\n  ```" in answer, answer
    assert "- Enable the theme by loading\n" in answer


def test_latex_markup_is_never_a_prose_bullet(library: tuple[CourseMaterial, dict[str, int]]) -> None:
    answer = ask(library, METROPOLIS, "How do I make text bold?", 1)
    assert r"\textbf{bold}" in answer, answer
    assert not any("\\textbf" in q or "\\\\textbf" in q for q in quoted(answer) if not q.startswith("`")), answer
    blocks = re.findall(r"```\n(.*?)\n```", answer, re.S)
    assert any(r"\textbf{bold}" in b for b in blocks), answer


def test_numbered_steps_the_slide_announces_are_quoted_as_one_block(
        library: tuple[CourseMaterial, dict[str, int]]) -> None:
    answer = ask(library, RAG, "What is the most basic RAG algorithm?", 2)
    assert "- Given a document collection D and a user query q, the most basic RAG algorithm is\n  ```\n" \
        in answer, answer
    block = re.search(r"```\n(.*?)\n\s*```", answer, re.S)
    assert block is not None, answer
    lines = [" ".join(ln.split()) for ln in block.group(1).split("\n")]
    assert lines == ["1 Call a retriever to return R(q) = d1, . . . , dk, the top-k", "relevant passages from D",
                     "2 Create a prompt that includes q and the retrieved", "passages", "3 Call an LLM with the prompt"]


def test_a_footer_with_its_page_number_and_the_sidebar_stay_out_of_answers(
        library: tuple[CourseMaterial, dict[str, int]]) -> None:
    material, ids = library
    rag = {c.page_number: passage(material, c)["text"] for c in material.unit(ids[RAG]).chunks}
    assert "Lecture 11" in page(RAG, 6) and "Lecture 11" not in rag[6]  # "5      Lecture 11 — …      TrustHLT …"
    elte = {c.page_number: passage(material, c)["text"] for c in material.unit(ids[ELTE]).chunks}
    assert "What is an LM?" not in elte[2]  # the divider's text is the sidebar alone
    # "probabilities" is an entry of the sidebar on other pages, and here the end of a sentence
    assert "The chain rule based formulation of sequence\nprobabilities" in elte[7]
    answer = ask(library, RAG, "Why is proprietary data not in the pre-training corpora?", 2)
    assert "Lecture 11" not in answer and "TrustHLT" not in answer, answer
    answer = ask(library, ELTE, "Why do we need start and end symbols?", 2)
    assert "- The chain rule based formulation of sequence probabilities\n" in answer, answer


def test_a_list_quoted_in_part_ends_with_an_ellipsis(library: tuple[CourseMaterial, dict[str, int]]) -> None:
    answer = ask(library, ELTE, "Why are language models useful?", 2)
    assert "- spell and grammar checking,\n- predictive input,\n" in answer, answer  # the list goes on here
    assert re.search(r"\n- [\w -]+, …$", answer), answer  # and stops in the answer before it does on the slide


def test_a_quote_that_stops_inside_its_sentence_ends_with_an_ellipsis(
        library: tuple[CourseMaterial, dict[str, int]]) -> None:
    # the bullet goes on in the next one, which the answer leaves out; the line before leads into the bullet
    answer = ask(library, ELTE, "What is extrinsic evaluation of a language model?", 2)
    assert "- Language model evaluation can be\n- extrinsic: how well does the model do as a component in a spell " \
           "checker, speech-to-text system etc., or …" in answer, answer


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
