"""The page text comes from pdfium where that changes nothing a reader sees: printed numbers, their source,
titles and warnings are those of the former pypdf-only path on every deck the tests know.

The decks: the sample course, the real decks (copied into tests/material_real), the generated decks
whose numbers are drawn (tests/material_decks) and the small decks the deck tests build. Page images are
not read (``read_images=False``): the image numbers are only consulted when the text numbers nothing,
and the text numbers are compared here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pypdfium2
import pytest
from fpdf import FPDF

from citation_core.material.deck import _normalize, _parse, _title, load_deck
from citation_core.material.models import Deck
from citation_core.text import slide_units
from tests.conftest import SAMPLE_COURSE
from tests.material_decks import build_decks
from tests.material_fixtures import (
    ELTE,
    METROPOLIS,
    TUT_PYTHON,
    add_page_labels,
    encrypted_pdf,
    make_pdf,
    without_page_labels,
)

SAMPLE_DECKS = sorted((SAMPLE_COURSE / "decks").glob("*.pdf"))
REAL_DECKS = [METROPOLIS, ELTE, TUT_PYTHON]


def seen(deck: Deck) -> tuple[list[tuple[int, str | None, str, str]], tuple[str, ...]]:
    """Everything a reader sees of a deck but its text: number, source and title per page; warnings."""
    pages = [(p.page_number, p.display_page_number, p.display_source, p.title) for p in deck.pages]
    return pages, deck.warnings


def assert_same_as_pypdf(path: Path) -> None:
    before = load_deck(path, text_engine="pypdf", cache=False, read_images=False)
    now = load_deck(path, cache=False, read_images=False)
    assert seen(now) == seen(before)
    assert [p.page_number for p in now.pages] == [p.page_number for p in before.pages]


def pdfium_only_titles(path: Path) -> list[str]:
    """The titles pdfium's text would give, without the fallback to pypdf."""
    document = pypdfium2.PdfDocument(path)
    try:
        return [_title(_normalize(document[i].get_textpage().get_text_range())) for i in range(len(document))]
    finally:
        document.close()


def side_title_deck(path: Path, beside: bool) -> Path:
    """Three pages: a large title, then two bullets and "N / 3". With ``beside`` the title stands to the right
    of the first bullet, on its line (written first, drawn right); otherwise above the bullets."""
    pdf = FPDF(orientation="landscape")
    pdf.set_auto_page_break(False)
    for n in range(1, 4):
        pdf.add_page()
        pdf.set_font("helvetica", size=32)
        pdf.set_xy(150 if beside else 20, 15)
        pdf.cell(text=f"Sorting {n}")
        pdf.set_font("helvetica", size=12)
        pdf.set_xy(20, 22 if beside else 45)
        pdf.cell(text="- Why: order helps search")
        pdf.set_xy(20, 55)
        pdf.cell(text="- How: compare and swap")
        pdf.set_xy(260, 195)
        pdf.cell(text=f"{n} / 3")
    path.write_bytes(bytes(pdf.output()))
    return path


def _text(x: int, y: int, size: int, words: str) -> str:
    return f"BT /F1 {size} Tf {x} {y} Td ({words}) Tj ET\n"


def form_deck(path: Path, beside: bool) -> Path:
    """Three pages whose text is partly inside a form XObject (``/Fm Do``). With ``beside`` the form, drawn
    first, sets the title right of the first bullet, on its line; otherwise the form holds the bullets,
    drawn after the title."""
    pages = []
    for n in (1, 2, 3):
        bullets = _text(60, 500, 12, "- Why: order helps search") + _text(60, 470, 12, "- How: compare")
        footer = _text(780, 40, 12, f"{n} / 3")
        if beside:
            pages.append(("/Fm Do\n" + bullets + footer, _text(400, 495, 30, f"Sorting {n}")))
        else:
            pages.append((_text(60, 540, 30, f"Sorting {n}") + "/Fm Do\n" + footer, bullets))
    return pdf_with_forms(path, pages)


def pdf_with_forms(path: Path, pages: list[tuple[str, str]]) -> Path:
    """A PDF of A4 landscape pages in Helvetica; each page is (its content stream, the content of the form
    XObject it may draw as ``/Fm``)."""
    objects: list[bytes] = [b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"]
    pages_id = 2 + 3 * len(pages)
    page_ids = []
    for content, form in pages:
        form_bytes, content_bytes = form.encode("latin-1"), content.encode("latin-1")
        objects.append(b"<< /Type /XObject /Subtype /Form /BBox [0 0 842 595] /Resources << /Font << /F1 1 0 R >> >>"
                       b" /Length %d >>\nstream\n%s\nendstream" % (len(form_bytes), form_bytes))
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content_bytes), content_bytes))
        objects.append(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 842 595] /Contents %d 0 R /Resources"
                       b" << /Font << /F1 1 0 R >> /XObject << /Fm %d 0 R >> >> >>"
                       % (pages_id, len(objects), len(objects) - 1))
        page_ids.append(len(objects))
    kids = b" ".join(b"%d 0 R" % i for i in page_ids)
    objects.append(b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(page_ids)))
    objects.append(b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id)
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, len(objects), xref)
    path.write_bytes(bytes(out))
    return path


# --- every deck: the same numbers, sources, titles and warnings as with pypdf ----------------


@pytest.mark.parametrize("deck", SAMPLE_DECKS, ids=lambda p: p.name)
def test_sample_decks_read_as_with_pypdf(deck: Path) -> None:
    assert_same_as_pypdf(deck)


@pytest.mark.real
@pytest.mark.parametrize("deck", REAL_DECKS, ids=lambda p: p.name)
def test_real_decks_read_as_with_pypdf(deck: Path) -> None:
    assert_same_as_pypdf(deck)


@pytest.mark.real
def test_real_deck_without_its_page_labels_reads_as_with_pypdf(tmp_path: Path) -> None:
    assert_same_as_pypdf(without_page_labels(METROPOLIS, tmp_path / "nolabels.pdf"))


def test_generated_decks_with_drawn_numbers_read_as_with_pypdf(tmp_path: Path) -> None:
    generated = build_decks(tmp_path)
    assert len(generated) >= 8
    for deck in generated:
        assert_same_as_pypdf(deck.path)


def _footer_decks(tmp_path: Path) -> list[Path]:
    def pages(footer: str) -> list[list[str]]:
        topics = [[f"Topic {n}", "Some text", footer.format(n=n)] for n in range(2, 6)]
        return [["Course title", "Winter term"], *topics]

    footers = ["Folie {n}", "Slide {n}", "{n} / 5", "{n}/5", "Page {n} of 5"]
    return [make_pdf(tmp_path / f"footer{i}.pdf", pages(footer)) for i, footer in enumerate(footers)]


def _odd_decks(tmp_path: Path) -> list[Path]:
    plain = make_pdf(tmp_path / "plain.pdf", [[f"Topic {n}", f"Folie {n}"] for n in range(1, 4)])
    return [
        make_pdf(tmp_path / "years.pdf", [["History", "Founded in", "1998"], ["Answer", "3"], ["Ratio", "42"]]),
        make_pdf(tmp_path / "ratios.pdf", [["Half", "p = 1 / 2"], ["Quarter", "q = 3 / 4"], ["Ninth", "r = 5 / 9"]]),
        make_pdf(tmp_path / "halves.pdf", [[f"Half {i}", "p = 1 / 2"] for i in range(4)]),
        make_pdf(tmp_path / "textless.pdf", [["Intro"], [], ["Outro"]]),
        add_page_labels(plain, tmp_path / "labelled.pdf", [(0, 2, "/D", "", 10)]),
        add_page_labels(make_pdf(tmp_path / "roman.pdf", [["Preface"], ["Intro"], ["Details"]]),
                        tmp_path / "roman_labelled.pdf", [(0, 0, "/r", "", 1), (1, 2, "/D", "A-", 1)]),
        encrypted_pdf(make_pdf(tmp_path / "open.pdf", [["Open slide", "1 / 1"]]), tmp_path / "owner_only.pdf",
                      user_password=""),
        side_title_deck(tmp_path / "beside.pdf", beside=True),
        side_title_deck(tmp_path / "above.pdf", beside=False),
        form_deck(tmp_path / "form_beside.pdf", beside=True),
        form_deck(tmp_path / "form_above.pdf", beside=False),
    ]


@pytest.mark.parametrize("make", [_footer_decks, _odd_decks], ids=["footers", "odd"])
def test_small_built_decks_read_as_with_pypdf(tmp_path: Path, make: Callable[[Path], list[Path]]) -> None:
    for deck in make(tmp_path):
        assert_same_as_pypdf(deck)


# --- where pdfium reads, and where pypdf still does --------------------------------------------


@pytest.mark.parametrize("deck", SAMPLE_DECKS, ids=lambda p: p.name)
def test_the_sample_decks_are_read_by_pdfium_alone(deck: Path) -> None:
    assert set(_parse(deck.name, deck.read_bytes()).engines) == {"pdfium"}


def test_a_title_beside_the_first_bullet_leaves_the_page_to_pypdf(tmp_path: Path) -> None:
    beside = side_title_deck(tmp_path / "beside.pdf", beside=True)
    # pdfium puts the title after the bullet it stands beside: its text would give another title
    assert pdfium_only_titles(beside) != [p.title for p in load_deck(beside, text_engine="pypdf", cache=False).pages]
    assert _parse(beside.name, beside.read_bytes()).engines == ("pypdf",) * 3
    assert_same_as_pypdf(beside)
    above = side_title_deck(tmp_path / "above.pdf", beside=False)
    assert _parse(above.name, above.read_bytes()).engines == ("pdfium",) * 3
    assert [p.title for p in load_deck(above, cache=False, read_images=False).pages] == [
        "Sorting 1", "Sorting 2", "Sorting 3"]


def test_text_inside_a_form_xobject_counts_where_the_form_is_drawn(tmp_path: Path) -> None:
    above = form_deck(tmp_path / "form_above.pdf", beside=False)
    assert _parse(above.name, above.read_bytes()).engines == ("pdfium",) * 3
    deck = load_deck(above, cache=False, read_images=False)
    assert deck.page(2).text == "Sorting 2\n- Why: order helps search\n- How: compare\n2 / 3"
    assert [(p.title, p.display_page_number) for p in deck.pages] == [(f"Sorting {n}", str(n)) for n in (1, 2, 3)]
    beside = form_deck(tmp_path / "form_beside.pdf", beside=True)
    assert pdfium_only_titles(beside)[0] != "Sorting 1"
    assert _parse(beside.name, beside.read_bytes()).engines == ("pypdf",) * 3
    assert [p.title for p in load_deck(beside, cache=False, read_images=False).pages] == [
        f"Sorting {n}" for n in (1, 2, 3)]


@pytest.mark.real
@pytest.mark.parametrize("deck", REAL_DECKS, ids=lambda p: p.name)
def test_real_decks_leave_to_pypdf_every_page_whose_pdfium_title_differs(deck: Path) -> None:
    parsed = _parse(deck.name, deck.read_bytes())
    pypdf_titles = [p.title for p in load_deck(deck, text_engine="pypdf", cache=False, read_images=False).pages]
    differing = {i for i, (a, b) in enumerate(zip(pdfium_only_titles(deck), pypdf_titles, strict=True), 1) if a != b}
    by_pypdf = {i for i, engine in enumerate(parsed.engines, 1) if engine == "pypdf"}
    assert differing <= by_pypdf
    assert len(by_pypdf) * 3 < len(parsed.engines)  # most pages are still read by pdfium


@pytest.mark.real
def test_tut_python_titles_set_beside_the_first_bullet_are_read_by_pypdf() -> None:
    # LibreOffice sets "Cython" large beside the first bullet on several pages: pdfium alone would give
    # "Advantages: Cython" on page 4 where a reader sees the title "Cython"
    assert pdfium_only_titles(TUT_PYTHON)[3] != "Cython"
    parsed = _parse(TUT_PYTHON.name, TUT_PYTHON.read_bytes())
    assert parsed.engines[3] == "pypdf"
    assert load_deck(TUT_PYTHON, cache=False, read_images=False).page(4).title == "Cython"


@pytest.mark.real
def test_pdfium_text_joins_words_hyphenated_at_a_line_end() -> None:
    deck = load_deck(METROPOLIS, cache=False, read_images=False)
    assert "\ufffe" not in "".join(p.text for p in deck.pages)
    assert "consider using it" in deck.page(9).text


# --- what pdfium's text keeps of the page's layout ----------------------------------------------


def statements(path: Path, page_number: int) -> list[tuple[str, str]]:
    """The statements a slide reads into (kind and text), as the writer and the citation stage see them."""
    return [(u.kind, u.full()) for u in slide_units(load_deck(path, cache=False, read_images=False)
                                                     .page(page_number).text).units]


def test_pseudo_code_keeps_its_indent_and_comment_columns() -> None:
    # pdfium keeps one space of a run: "1 if p < r // at least two elements" read as a sentence that the
    # writer quoted; the runs stand as wide as on the page, so numbered lines read as code, as with pypdf
    deck = SAMPLE_COURSE / "decks" / "merge_sort.pdf"
    text = load_deck(deck, cache=False, read_images=False).page(5).text
    assert "1  if p < r" in text and "r                      // at least two elements" in text
    for page in (5, 6):
        read = statements(deck, page)
        pypdf = [(u.kind, u.full()) for u in slide_units(
            load_deck(deck, text_engine="pypdf", cache=False, read_images=False).page(page).text).units]
        assert read == pypdf
    # the signature and five numbered lines, then the two bullets (the course footer, a line the deck
    # repeats on every page, is left out where material becomes sources)
    assert [kind for kind, _ in statements(deck, 5)] == ["code"] * 6 + ["bullet", "bullet"]


def test_table_rows_stay_apart() -> None:
    # the cells of a row are text objects far apart: the space pdfium puts between them is as wide as
    # the gap, so each row is a statement of its own instead of all rows run together
    read = statements(SAMPLE_COURSE / "decks" / "merge_sort.pdf", 16)
    assert ("line", "Merge sort Θ(n log n) Θ(n log n) Θ(n log n) yes no") in read
    assert ("line", "Quicksort Θ(n log n) Θ(n log n) Θ(n²) no yes") in read
    read = statements(SAMPLE_COURSE / "decks" / "hash_tables.pdf", 12)
    assert ("bullet", "Successful search: at most (1/α) · ln(1 / (1 − α)) expected probes") in read


@pytest.mark.real
def test_raised_characters_stay_on_their_line() -> None:
    # pdfium breaks the line around a superscript: "O(n", "3", ") dgemm"
    text = load_deck(TUT_PYTHON, cache=False, read_images=False).page(6).text
    assert "A naive O(n3) dgemm (note: better algorithms exist!):" in text


@pytest.mark.real
def test_a_turned_page_keeps_its_lines() -> None:
    # the ELTE slides are landscape pages turned by /Rotate 90: left and right are the page's up and down
    text = load_deck(ELTE, cache=False, read_images=False).page(3).text
    assert "Recall that in formal language theory a language L is\n" in text
    assert "simply defined as a subset of Σ∗ for some alphabet Σ.\n" in text
