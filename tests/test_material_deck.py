"""Deck loading: page text, titles and the printed slide number of every page (DESIGN 3)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pypdf
import pytest
from PIL import Image

from citation_core.errors import MaterialError
from citation_core.material.deck import load_deck, render_page_png
from citation_core.material.models import Deck
from tests.material_fixtures import (
    ELTE,
    METROPOLIS,
    TUT_PYTHON,
    add_page_labels,
    encrypted_pdf,
    make_pdf,
    make_pdf_reading_as,
    truncated_copy,
    without_page_labels,
    write_text,
)

# What a reader sees printed on each page of the real decks (index = page_number - 1).
METROPOLIS_PRINTED: list[str | None] = [
    None, "2", None, "4", "5", None, "7", "8", "9", "10", None, "12", "13", "14",
    "15", "15", "15", "15", "16", "17", "18", "19", "20", "21", "22", "23", None,
    "25", "26", "27", "28",
]  # fmt: skip


@pytest.fixture(scope="module")
def metropolis(real_dir: Path) -> Deck:
    return load_deck(METROPOLIS)


@pytest.fixture(scope="module")
def elte(real_dir: Path) -> Deck:
    return load_deck(ELTE)


@pytest.fixture(scope="module")
def tut_python(real_dir: Path) -> Deck:
    return load_deck(TUT_PYTHON)


def numbers(deck: Deck) -> list[tuple[int, str | None, str]]:
    return [(p.page_number, p.display_page_number, p.display_source) for p in deck.pages]


# --- the real decks, every page pinned ------------------------------------------------------


def test_metropolis_uses_page_labels_only_where_the_number_is_printed(metropolis: Deck) -> None:
    expected = [
        (i, printed, "page_labels" if printed is not None else "none")
        for i, printed in enumerate(METROPOLIS_PRINTED, start=1)
    ]
    assert numbers(metropolis) == expected
    assert metropolis.warnings == ()


def test_metropolis_overlay_pages_share_one_printed_number(metropolis: Deck) -> None:
    overlay = [metropolis.page(n) for n in (15, 16, 17, 18)]
    assert {p.display_page_number for p in overlay} == {"15"}
    assert [p.page_number for p in overlay] == [15, 16, 17, 18]
    assert "This is really important" in metropolis.page(18).text


@pytest.mark.real
def test_metropolis_without_page_labels_reads_the_same_numbers_from_the_text(tmp_path: Path) -> None:
    deck = load_deck(without_page_labels(METROPOLIS, tmp_path / "nolabels.pdf"))
    expected = [
        (i, printed, "text" if printed is not None else "none") for i, printed in enumerate(METROPOLIS_PRINTED, start=1)
    ]
    assert numbers(deck) == expected


@pytest.mark.real
def test_elte_has_no_page_labels_and_prints_n_of_27(elte: Deck) -> None:
    reader = pypdf.PdfReader(ELTE)
    assert "/PageLabels" not in reader.root_object  # ...yet pypdf answers 1..27:
    assert reader.page_labels == [str(i) for i in range(1, 28)]
    assert numbers(elte) == [(i, str(i), "text") for i in range(1, 28)]


def test_tut_python_prints_no_numbers_so_every_page_has_none(tut_python: Deck) -> None:
    assert numbers(tut_python) == [(i, None, "none") for i in range(1, 21)]


def test_titles_are_the_first_meaningful_line(metropolis: Deck, elte: Deck, tut_python: Deck) -> None:
    assert [p.title for p in metropolis.pages[:3]] == ["Metropolis", "Table of contents", "Introduction"]
    assert metropolis.page(15).title == "Animation"
    # "1 / 27" comes first in the text of page 1 but is no title
    assert elte.page(1).title == "Natural Language Processing"
    assert elte.page(10).title == "Text generation cont."
    # a lone logo letter is skipped; a bullet run into the title is cut off
    assert tut_python.page(1).title == "Python 3 for scientific computing"
    assert tut_python.page(4).title == "Cython"


def test_page_text_is_kept_per_page(elte: Deck) -> None:
    assert len(elte.pages) == 27
    assert "beam search" in elte.page(10).text
    assert elte.page(10).page_number == 10


# --- manifest overrides ---------------------------------------------------------------------


@pytest.mark.real
def test_manifest_override_wins_over_labels_and_text(tmp_path: Path) -> None:
    deck = load_deck(METROPOLIS, {1: "0", 4: None, 12: "XII", 99: "1"})
    assert numbers(deck)[:5] == [
        (1, "0", "manifest"),
        (2, "2", "page_labels"),
        (3, None, "none"),
        (4, None, "manifest"),
        (5, "5", "page_labels"),
    ]
    assert deck.page(12).display_page_number == "XII"
    assert any("page 99" in w and "31 pages" in w for w in deck.warnings)


# --- printed numbers in small generated decks -----------------------------------------------


@pytest.mark.parametrize("footer", ["Folie {n}", "Slide {n}", "{n} / 5", "{n}/5", "Page {n} of 5"])
def test_printed_number_conventions_are_read_from_the_text(tmp_path: Path, footer: str) -> None:
    pages = [["Course title", "Winter term"]] + [[f"Topic {n}", "Some text", footer.format(n=n)] for n in range(2, 6)]
    deck = load_deck(make_pdf(tmp_path / "deck.pdf", pages))
    assert numbers(deck) == [(1, None, "none")] + [(n, str(n), "text") for n in range(2, 6)]


def test_random_trailing_numbers_are_not_taken_for_slide_numbers(tmp_path: Path) -> None:
    pages = [["History", "Founded in", "1998"], ["Answer", "3"], ["Ratio", "42"], ["Count", "7"]]
    deck = load_deck(make_pdf(tmp_path / "deck.pdf", pages))
    assert numbers(deck) == [(i, None, "none") for i in range(1, 5)]


def test_fractions_with_inconsistent_totals_are_not_slide_numbers(tmp_path: Path) -> None:
    pages = [["Half", "p = 1 / 2"], ["Quarter", "q = 3 / 4"], ["Ninth", "r = 5 / 9"], ["Done", "thanks"]]
    deck = load_deck(make_pdf(tmp_path / "deck.pdf", pages))
    assert numbers(deck) == [(i, None, "none") for i in range(1, 5)]


def test_one_number_repeated_on_every_page_or_a_single_page_is_no_counter(tmp_path: Path) -> None:
    repeated = load_deck(make_pdf(tmp_path / "halves.pdf", [[f"Half {i}", "p = 1 / 2"] for i in range(4)]))
    assert numbers(repeated) == [(i, None, "none") for i in range(1, 5)]
    single = load_deck(make_pdf(tmp_path / "single.pdf", [["Handout", "Printed in", "2024"]]))
    assert numbers(single) == [(1, None, "none")]


def test_page_labels_that_are_not_printed_are_trusted(tmp_path: Path) -> None:
    plain = make_pdf(tmp_path / "plain.pdf", [["Preface"], ["Intro"], ["Details"]])
    labelled = add_page_labels(plain, tmp_path / "labelled.pdf", [(0, 0, "/r", "", 1), (1, 2, "/D", "A-", 1)])
    assert numbers(load_deck(labelled)) == [
        (1, "i", "page_labels"),
        (2, "A-1", "page_labels"),
        (3, "A-2", "page_labels"),
    ]


def test_page_labels_contradicting_the_printed_numbers_are_reported(tmp_path: Path) -> None:
    plain = make_pdf(tmp_path / "plain.pdf", [[f"Topic {n}", f"Folie {n}"] for n in range(1, 4)])
    labelled = add_page_labels(plain, tmp_path / "labelled.pdf", [(0, 2, "/D", "", 10)])
    deck = load_deck(labelled)
    assert [p.display_page_number for p in deck.pages] == ["10", "11", "12"]
    assert any("/PageLabels differ" in w for w in deck.warnings)


# --- bad files ------------------------------------------------------------------------------


def bad_not_pdf(tmp_path: Path) -> Path:
    return write_text(tmp_path / "notes.pdf", "These are my notes, not a PDF.\n")


def bad_empty(tmp_path: Path) -> Path:
    (tmp_path / "empty.pdf").write_bytes(b"")
    return tmp_path / "empty.pdf"


def bad_missing(tmp_path: Path) -> Path:
    return tmp_path / "missing.pdf"


def bad_truncated(tmp_path: Path) -> Path:
    return truncated_copy(METROPOLIS, tmp_path / "truncated.pdf", 0.5)


def bad_encrypted(tmp_path: Path) -> Path:
    return encrypted_pdf(make_pdf(tmp_path / "plain.pdf", [["Secret slide"]]), tmp_path / "locked.pdf")


def bad_scanned(tmp_path: Path) -> Path:
    return make_pdf(tmp_path / "scanned.pdf", [[], [], []])


@pytest.mark.parametrize(
    ("make", "file_name", "phrase"),
    [
        (bad_not_pdf, "notes.pdf", "not a PDF"),
        (bad_empty, "empty.pdf", "empty file"),
        (bad_missing, "missing.pdf", "not found"),
        pytest.param(bad_truncated, "truncated.pdf", "corrupt or truncated", marks=pytest.mark.real),
        (bad_encrypted, "locked.pdf", "password"),
        (bad_scanned, "scanned.pdf", "no extractable text on any of its 3 pages"),
    ],
)
def test_bad_files_raise_one_line_naming_the_file(
    tmp_path: Path, make: Callable[[Path], Path], file_name: str, phrase: str
) -> None:
    with pytest.raises(MaterialError) as info:
        load_deck(make(tmp_path))
    message = str(info.value)
    assert message.startswith(f"{file_name}: ")
    assert phrase in message
    assert "\n" not in message


def test_encryption_without_a_user_password_still_opens(tmp_path: Path) -> None:
    plain = make_pdf(tmp_path / "plain.pdf", [["Open slide", "1 / 1"]])
    deck = load_deck(encrypted_pdf(plain, tmp_path / "owner_only.pdf", user_password=""))
    assert deck.page(1).title == "Open slide"


def test_a_single_textless_page_is_a_warning_not_an_error(tmp_path: Path) -> None:
    deck = load_deck(make_pdf(tmp_path / "deck.pdf", [["Intro"], [], ["Outro"]]))
    assert [p.text for p in deck.pages] == ["Intro", "", "Outro"]
    assert deck.page(2).display_page_number is None
    assert deck.warnings == ("deck.pdf: page 2: no extractable text (image-only page?)",)


# --- thumbnails -----------------------------------------------------------------------------


@pytest.mark.real
def test_render_page_png_gives_a_png_of_the_requested_width() -> None:
    data = render_page_png(METROPOLIS, 2, width=200)
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    with Image.open(io.BytesIO(data)) as image:
        assert image.width == 200
        assert 100 < image.height < 200  # 4:3 slide


@pytest.mark.real
def test_render_page_png_rejects_a_page_outside_the_deck() -> None:
    with pytest.raises(MaterialError, match=r"^en_metropolis_demo\.pdf: page 32 is out of range 1\.\.31$"):
        render_page_png(METROPOLIS, 32)


@pytest.mark.parametrize("stray", ["\u0e00", "\u200b", "\ufeff", "\ue000", "\ufffd"])
def test_footer_numbers_are_read_whatever_stray_or_invisible_character_follows_them(
        tmp_path: Path, stray: str) -> None:
    """A reveal.js deck printed with DeckTape reads "5 / 43 \\u0e00" in its text layer: the number still counts."""
    pages = [["Course title", "Winter term"]] + [[f"Topic {n}", "Some text", f"{n} / 5 ¤"] for n in range(2, 6)]
    deck = load_deck(make_pdf_reading_as(tmp_path / "deck.pdf", pages, {"¤": stray}), read_images=False)
    assert "¤" not in deck.page(2).text
    assert numbers(deck) == [(1, None, "none")] + [(n, str(n), "text") for n in range(2, 6)]


def test_a_lone_number_with_a_stray_glyph_after_it_is_read(tmp_path: Path) -> None:
    pages = [[f"Topic {n}", "Some text", f"{n} ¤"] for n in range(1, 6)]
    deck = load_deck(make_pdf_reading_as(tmp_path / "deck.pdf", pages, {"¤": "\u0e00"}), read_images=False)
    assert numbers(deck) == [(n, str(n), "text") for n in range(1, 6)]
