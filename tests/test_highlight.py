"""Evidence lines lit on the slide: the boxes pdfium gives hold exactly the words that were searched for."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from citation_core.material.deck import load_deck
from citation_core.material.highlight import evidence_boxes

from .conftest import REAL_DIR, SAMPLE_COURSE

WORD = re.compile(r"[^\W_]+")


def text_in(pdf: Path, page_number: int, box: object) -> str:
    import pypdfium2

    doc = pypdfium2.PdfDocument(str(pdf))
    try:
        page = doc[page_number - 1]
        x0, y0, x1, y1 = page.get_bbox()  # pdfium's visible box (get_cropbox misses an inherited MediaBox)
        w, h, r = x1 - x0, y1 - y0, page.get_rotation() % 360
        b = box  # fractions of the displayed page, origin top left; back to page space:

        def back(fx: float, fy: float) -> tuple[float, float]:
            if r == 90:
                return x0 + fy * w, y0 + fx * h
            if r == 180:
                return x1 - fx * w, y0 + fy * h
            if r == 270:
                return x1 - fy * w, y1 - fx * h
            return x0 + fx * w, y1 - fy * h

        (ax, ay), (bx, by) = back(b.left, b.top), back(b.right, b.bottom)  # type: ignore[attr-defined]
        return str(page.get_textpage().get_text_bounded(left=min(ax, bx) - 0.5, bottom=min(ay, by) - 0.5,
                                                        right=max(ax, bx) + 0.5, top=max(ay, by) + 0.5))
    finally:
        doc.close()


def lines_to_try(pdf: Path, limit: int = 12) -> list[tuple[int, str]]:
    """(page, line) pairs of the deck's own text: lines of three or more words."""
    out = []
    for p in load_deck(pdf).pages:
        for line in p.text.splitlines():
            if len(WORD.findall(line)) >= 3:
                out.append((p.page_number, line))
                break
    return out[:limit]


def check_deck(pdf: Path) -> int:
    found = 0
    for page, line in lines_to_try(pdf):
        boxes = evidence_boxes(pdf, page, line)
        if not boxes:
            continue
        found += 1
        inside = " ".join(text_in(pdf, page, b) for b in boxes)
        # compared as letters: pdfium's bounded text may space out letters of a tracked title
        want = "".join(WORD.findall(line)).casefold()
        got = "".join(WORD.findall(inside)).casefold()
        assert want in got, (pdf.name, page, line, inside)
        for b in boxes:
            assert 0 <= b.left < b.right <= 1 and 0 <= b.top < b.bottom <= 1
    return found


@pytest.mark.parametrize("deck", sorted((SAMPLE_COURSE / "decks").glob("*.pdf")), ids=lambda p: p.name)
def test_sample_deck_lines_are_boxed_where_their_words_are(deck: Path) -> None:
    assert check_deck(deck) >= 5


@pytest.mark.real
@pytest.mark.parametrize("name", ["en_elte_nlp_4-ngram_lm.pdf", "en_metropolis_demo.pdf", "en_tut_python_lec8.pdf"])
def test_real_deck_lines_are_boxed_where_their_words_are(name: str) -> None:
    pdf = REAL_DIR / "decks" / name
    if not pdf.is_file():
        pytest.skip(f"needs the real decks in {REAL_DIR}")
    assert check_deck(pdf) >= 5


def test_a_two_line_bullet_gives_two_boxes_and_unknown_text_none() -> None:
    pdf = SAMPLE_COURSE / "decks" / "binaere_suchbaeume.pdf"
    deck = load_deck(pdf)
    page = next(p for p in deck.pages if "zwei Kinder" in p.text)
    lines = [ln for ln in page.text.splitlines() if ln.strip()]
    i = next(i for i, ln in enumerate(lines) if "zwei Kinder" in ln)
    boxes = evidence_boxes(pdf, page.page_number, "\n".join(lines[i : i + 2]))
    assert len(boxes) == 2 and boxes[0].top < boxes[1].top
    assert evidence_boxes(pdf, page.page_number, "Quantum chromodynamics of gluons") == []


@pytest.mark.real
@pytest.mark.parametrize(("name", "page", "part"), [
    ("en_tut_python_lec8.pdf", 6, "A naive O(n3) dgemm"),  # a superscript
    ("en_elte_nlp_4-ngram_lm.pdf", 6, "P(w) = P(w1)"),  # subscripts, on a page turned by /Rotate
])
def test_a_line_with_a_raised_or_lowered_character_is_lit(name: str, page: int, part: str) -> None:
    # the deck text keeps "O(n3)" on its line, where pdfium's own text breaks it out ("O(n", "3", ")"):
    # the line is found by its letters when its words differ
    pdf = REAL_DIR / "decks" / name
    if not pdf.is_file():
        pytest.skip(f"needs the real decks in {REAL_DIR}")
    line = next(ln for ln in load_deck(pdf, cache=False, read_images=False).page(page).text.splitlines()
                if part in ln)
    boxes = evidence_boxes(pdf, page, line)
    assert boxes, line
    inside = "".join(WORD.findall(" ".join(text_in(pdf, page, b) for b in boxes))).casefold()
    assert "".join(WORD.findall(line)).casefold() in inside
