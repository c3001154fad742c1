"""Printed numbers read from the rendered pages (OCR), for decks that draw their numbers instead of writing them.

The decks are generated (tests/material_decks): their numbers are images or vector paths, so the page
text has none, and the number a reader sees on every page is known because the test drew it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from citation_core.material import ocr
from citation_core.material.deck import load_deck, needs_reading
from citation_core.material.models import Deck
from citation_core.material.ocr import OcrSegment
from tests.conftest import SAMPLE_COURSE
from tests.material_decks import CONTENT, DIVIDER, TITLE, DeckSpec, GeneratedDeck, build_deck, build_decks
from tests.material_fixtures import ELTE, METROPOLIS, make_pdf

pytestmark = pytest.mark.skipif(ocr.ocr_unavailable() is not None, reason=f"OCR: {ocr.ocr_unavailable()}")


@pytest.fixture(scope="module")
def ocr_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A cache folder of this module's own, so that the first load of every deck really reads its pages."""
    folder = tmp_path_factory.mktemp("ocr_cache")
    before = os.environ.get(ocr.CACHE_ENV)
    os.environ[ocr.CACHE_ENV] = str(folder)
    yield folder
    if before is None:
        os.environ.pop(ocr.CACHE_ENV, None)
    else:
        os.environ[ocr.CACHE_ENV] = before


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> list[GeneratedDeck]:
    return build_decks(tmp_path_factory.mktemp("decks"))


@pytest.fixture(scope="module")
def loaded(generated: list[GeneratedDeck], ocr_cache: Path) -> dict[str, Deck]:
    return {d.name: load_deck(d.path) for d in generated}


def by_name(generated: list[GeneratedDeck], name: str) -> GeneratedDeck:
    return next(d for d in generated if d.name == name)


def printed(deck: Deck) -> list[str | None]:
    return [p.display_page_number for p in deck.pages]


def no_reading(*_: object, **__: object) -> None:
    raise AssertionError("the page images were read")


# --- the generated decks ----------------------------------------------------------------------


NUMBERED = [
    "fraction_bottom_right_images",
    "lone_bottom_centre_vectors",
    "folie_top_right_images",
    "lone_top_right_vectors",
    "lone_bottom_right_with_charts",
    "fraction_bottom_centre_images",
    "scanned_fraction_bottom_right",
]


@pytest.mark.parametrize("name", NUMBERED)
def test_drawn_numbers_are_read_and_never_wrong(generated: list[GeneratedDeck], loaded: dict[str, Deck],
                                                name: str) -> None:
    spec, deck = by_name(generated, name), loaded[name]
    got = printed(deck)
    assert len(got) == len(spec.expected)
    # never a wrong number: a page shows what was drawn on it, or none
    wrong = [(i, g, e) for i, (g, e) in enumerate(zip(got, spec.expected, strict=True), start=1)
             if g is not None and g != e]
    assert wrong == [], f"{name}: (page, read, drawn) {wrong}"
    right = sum(1 for g, e in zip(got, spec.expected, strict=True) if e is not None and g == e)
    assert right >= 0.9 * spec.numbered, f"{name}: {right} of {spec.numbered} numbered pages read: {got}"
    for page, expected in zip(deck.pages, spec.expected, strict=True):
        assert page.display_source == ("ocr" if page.display_page_number is not None else "none")
        if expected is None:
            assert page.display_page_number is None  # title, divider: no number
    assert deck.warnings == ()


def test_the_text_of_generated_decks_has_no_numbers(generated: list[GeneratedDeck]) -> None:
    """The numbers really are only in the rendering: without reading the images every page has none."""
    for spec in generated:
        deck = load_deck(spec.path, read_images=False)
        assert printed(deck) == [None] * len(spec.expected), spec.name


def test_overlay_pages_repeat_their_number(generated: list[GeneratedDeck], loaded: dict[str, Deck]) -> None:
    spec = by_name(generated, "fraction_bottom_right_images")
    assert printed(loaded[spec.name])[8:11] == ["7", "7", "7"] == list(spec.expected[8:11])


def test_chart_ticks_years_dates_and_footers_are_never_numbers(generated: list[GeneratedDeck],
                                                               loaded: dict[str, Deck]) -> None:
    deck = loaded["unnumbered_with_furniture_and_charts"]
    assert printed(deck) == [None] * len(deck.pages)
    assert {p.display_source for p in deck.pages} == {"none"}


# --- when the images are read, and the cache ---------------------------------------------------


def test_a_second_load_reads_from_the_cache_also_under_another_name(
    generated: list[GeneratedDeck], loaded: dict[str, Deck], ocr_cache: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = by_name(generated, "lone_bottom_centre_vectors")
    digest = ocr.content_digest(spec.path.read_bytes())
    assert (ocr_cache / f"{digest}.json").is_file()
    monkeypatch.setattr(ocr, "_read_document", no_reading)
    again = load_deck(spec.path)
    copy = shutil.copy(spec.path, tmp_path / "renamed.pdf")
    assert printed(again) == printed(load_deck(Path(copy))) == printed(loaded[spec.name])
    assert not needs_reading(spec.path)


def test_decks_numbered_otherwise_never_read_their_images(ocr_cache: Path, monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    monkeypatch.setattr(ocr, "read_pages", no_reading)
    for deck_file in sorted((SAMPLE_COURSE / "decks").glob("*.pdf")):  # /PageLabels, "N / TOTAL", "Folie N"
        deck = load_deck(deck_file)
        assert {p.display_source for p in deck.pages} <= {"page_labels", "text", "none"}
        assert not needs_reading(deck_file)  # what was decided is remembered
    text = make_pdf(tmp_path / "text.pdf", [["Intro"], ["Topic", "2 / 3"], ["More", "3 / 3"]])
    assert printed(load_deck(text)) == [None, "2", "3"]
    every_page = make_pdf(tmp_path / "overridden.pdf", [["One"], ["Two"]])
    assert printed(load_deck(every_page, {1: "A", 2: "B"})) == ["A", "B"]


@pytest.mark.real
def test_the_real_numbered_decks_never_read_their_images(ocr_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ocr, "read_pages", no_reading)
    assert {p.display_source for p in load_deck(METROPOLIS).pages} == {"page_labels", "none"}
    assert {p.display_source for p in load_deck(ELTE).pages} == {"text"}


def test_progress_counts_pages_read_of_all_pages(generated: list[GeneratedDeck], tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ocr.CACHE_ENV, str(tmp_path / "cold"))
    spec = by_name(generated, "folie_top_right_images")
    assert needs_reading(spec.path)
    seen: list[tuple[int, int]] = []
    load_deck(spec.path, progress=lambda done, total: seen.append((done, total)))
    total = len(spec.expected)
    assert seen == [(n, total) for n in range(1, total + 1)]
    seen.clear()
    load_deck(spec.path, progress=lambda done, total: seen.append((done, total)))
    assert seen == []  # from the cache: nothing to wait for


def test_without_tesseract_a_deck_loads_with_a_warning(generated: list[GeneratedDeck], tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ocr.CACHE_ENV, str(tmp_path / "cold"))
    monkeypatch.setitem(ocr._AVAILABLE, "reason", "the Tesseract program (tesseract) is not installed")
    spec = by_name(generated, "lone_top_right_vectors")
    deck = load_deck(spec.path)
    assert printed(deck) == [None] * len(spec.expected)
    assert deck.warnings == (
        "lone_top_right_vectors.pdf: printed numbers drawn on the pages cannot be read: "
        "the Tesseract program (tesseract) is not installed",
    )
    assert not needs_reading(spec.path)  # nothing a caller could wait for


def test_an_unwritable_cache_is_no_error(generated: list[GeneratedDeck], tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(ocr.CACHE_ENV, str(blocker / "cache"))
    spec = by_name(generated, "fraction_bottom_centre_images")
    deck = load_deck(spec.path)
    assert sum(1 for p in deck.pages if p.display_source == "ocr") >= 0.9 * spec.numbered


def test_a_long_unnumbered_deck_stops_reading_after_its_first_pages(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ocr.CACHE_ENV, str(tmp_path / "cache"))
    pdf = make_pdf(tmp_path / "script.pdf", [[f"Chapter {n}", "Plain text"] for n in range(1, 121)])
    rendered: list[int] = []
    page_groups = ocr._page_groups

    def counted(document: object, index: int) -> object:
        rendered.append(index)
        return page_groups(document, index)  # type: ignore[arg-type]

    monkeypatch.setattr(ocr, "_page_groups", counted)
    seen: list[tuple[int, int]] = []
    deck = load_deck(pdf, progress=lambda done, total: seen.append((done, total)))
    assert printed(deck) == [None] * 120
    assert len(rendered) <= ocr.PROBE_PAGES + 4 and seen[-1] == (120, 120)


def test_a_long_numbered_deck_is_read_to_its_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ocr.CACHE_ENV, str(tmp_path / "cache"))
    kinds = (TITLE, *([CONTENT] * 30), DIVIDER, *([CONTENT] * 24))
    spec = build_deck(tmp_path, DeckSpec("long_lone_bottom_right", kinds, style="lone", place="bottom right",
                                         drawn_as="vector", footer="Long lecture 2024", seed=21))
    got = printed(load_deck(spec.path))
    assert [g for g, e in zip(got, spec.expected, strict=True) if g is not None and g != e] == []
    assert sum(1 for g, e in zip(got[40:], spec.expected[40:], strict=True) if e is not None and g == e) >= 14


def test_a_huge_page_is_read_at_a_bounded_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ocr.CACHE_ENV, str(tmp_path / "cache"))
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format=(14400, 14400))  # the largest page PDF allows: 5 m square
    pdf.set_font("helvetica", size=400)
    for n in range(1, 4):
        pdf.add_page()
        pdf.cell(text=f"Poster {n}")
    (tmp_path / "poster.pdf").write_bytes(bytes(pdf.output()))
    sizes: list[tuple[int, int]] = []
    band_groups = ocr._band_groups

    def measured(image: object, *rest: object) -> object:
        sizes.append(image.size)  # type: ignore[attr-defined]
        return band_groups(image, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(ocr, "_band_groups", measured)
    assert printed(load_deck(tmp_path / "poster.pdf")) == [None, None, None]
    assert sizes and max(max(size) for size in sizes) <= 4000


# --- the rules, on what was read -----------------------------------------------------------------


def footer(text: str, x: float = 0.95, y: float = 0.94, band: str = "bottom") -> OcrSegment:
    return OcrSegment(text, band, x - 0.01, y - 0.01, x + 0.01, y + 0.01)


def numbers_of(pages: list[list[OcrSegment]]) -> list[str | None]:
    from citation_core.material.deck import _image_numbers

    return _image_numbers(pages)


def test_rules_a_lone_counter_with_overlays_title_and_divider() -> None:
    pages = [[], [footer("2")], [footer("3")], [footer("3")], [], [footer("5")], [footer("6")]]
    assert numbers_of(pages) == [None, "2", "3", "3", None, "5", "6"]


def test_rules_years_and_dates_repeated_on_every_page_are_no_counter() -> None:
    pages = [[footer("2024", x=0.1), footer("15.01.2025", x=0.5)] for _ in range(8)]
    assert numbers_of(pages) == [None] * 8


def test_rules_a_number_larger_than_its_page_position_is_refused() -> None:
    # a deck excerpt printing 40, 41, ... cannot be told from a misread: none
    assert numbers_of([[footer(str(n))] for n in range(40, 46)]) == [None] * 6
    # one misread page ahead of the deck drops out, its neighbours stay
    pages = [[footer("1")], [footer("2")], [footer("9")], [footer("4")], [footer("5")]]
    assert numbers_of(pages) == ["1", "2", None, "4", "5"]


def test_rules_chart_ticks_elsewhere_on_the_page_do_not_count() -> None:
    ticks = [footer(str(t), x=0.2 + 0.08 * t, y=0.92) for t in range(7)]
    pages = [[footer("1")], [footer("2"), *ticks], [footer("3"), *ticks], [footer("4")]]
    assert numbers_of(pages) == ["1", "2", "3", "4"]
    assert numbers_of([list(ticks) for _ in range(4)]) == [None] * 4  # ticks alone never number a deck


def test_rules_fractions_must_agree_on_the_total() -> None:
    pages = [[footer(f"{n} / 5")] for n in range(1, 6)]
    pages[2] = [footer("3 / 8")]
    assert numbers_of(pages) == ["1", "2", None, "4", "5"]
    assert numbers_of([[footer("1/2")], [footer("3/4")], [footer("5/9")]]) == [None, None, None]


def test_rules_one_place_of_the_page_makes_one_convention() -> None:
    # numbers that wander between corners are no deck-wide convention
    places = [(0.95, 0.94, "bottom"), (0.05, 0.94, "bottom"), (0.95, 0.05, "top right"), (0.5, 0.94, "bottom")]
    pages = [[footer(str(n), x=places[n % 4][0], y=places[n % 4][1], band=places[n % 4][2])] for n in range(1, 9)]
    assert numbers_of(pages) == [None] * 8


def test_rules_folie_and_stray_marks() -> None:
    pages = [[footer(f"Folie {n}", x=0.93, y=0.05, band="top right")] for n in range(1, 5)]
    pages[1] = [footer("|Folie 2.", x=0.93, y=0.05, band="top right")]
    assert numbers_of(pages) == ["1", "2", "3", "4"]
    assert numbers_of([[footer("Room 0 001")], [footer("12.06 2024")], [footer("Statistics")]]) == [None] * 3
