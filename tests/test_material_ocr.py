"""Printed numbers read from the rendered pages (OCR), for decks that draw their numbers instead of writing them.

The decks are generated (tests/material_decks): their numbers are images or vector paths, so the page
text has none, and the number a reader sees on every page is known because the test drew it. Two families:
large dark numbers, and faint ones as slide tools print them (small, thin, light grey, white on dark bars),
in a development and a held-out set. Real decks printed by HTML slide tools (tests/material_real/decks_html)
are read from their rendering too, against the number written down for every page.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from citation_core.material import ocr
from citation_core.material.deck import load_deck, needs_reading
from citation_core.material.models import Deck
from citation_core.material.ocr import OcrSegment
from tests.conftest import SAMPLE_COURSE
from tests.material_decks import (
    CONTENT,
    DIVIDER,
    FAINT_DEV_SPECS,
    FAINT_HELDOUT_SPECS,
    TITLE,
    DeckSpec,
    GeneratedDeck,
    build_deck,
    build_decks,
    build_faint_deck,
)
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
    assert right >= 0.98 * spec.numbered, f"{name}: {right} of {spec.numbered} numbered pages read: {got}"
    for page, expected in zip(deck.pages, spec.expected, strict=True):
        assert page.display_source == ("ocr" if page.display_page_number is not None else "none")
        if expected is None:
            assert page.display_page_number is None  # title, divider: no number
    assert deck.warnings == ()


# --- faint numbers, as slide tools print them --------------------------------------------------


@pytest.mark.parametrize("spec", [*FAINT_DEV_SPECS, *FAINT_HELDOUT_SPECS], ids=lambda spec: spec.name)
def test_faint_drawn_numbers_are_read_and_never_wrong(spec: object, tmp_path: Path, ocr_cache: Path) -> None:
    """5-9 pt, thin and regular, grey #777-#bbb (#d0d0d0 on a bar), white on dark footer bars, beside progress
    bars and footers: the number is read on at least 98 % of the numbered pages, never a wrong one, and
    none on a title, divider or closing page that prints none."""
    deck_spec = build_faint_deck(tmp_path, spec)  # type: ignore[arg-type]
    deck = load_deck(deck_spec.path)
    got = printed(deck)
    wrong = [(i, g, e) for i, (g, e) in enumerate(zip(got, deck_spec.expected, strict=True), start=1)
             if g is not None and g != e]
    assert wrong == [], f"{deck_spec.name}: (page, read, drawn) {wrong}"
    right = sum(1 for g, e in zip(got, deck_spec.expected, strict=True) if e is not None and g == e)
    assert right >= 0.98 * deck_spec.numbered, f"{deck_spec.name}: {right} of {deck_spec.numbered}: {got}"
    assert {p.display_source for p in deck.pages if p.display_page_number is not None} == {"ocr"}


REAL_HTML = Path(__file__).parent / "material_real" / "decks_html"


@pytest.mark.parametrize("truth_file", sorted(REAL_HTML.glob("*.numbers.yml")), ids=lambda p: p.name.split(".")[0])
def test_real_decks_printed_by_html_slide_tools_are_read_from_their_rendering(truth_file: Path,
                                                                            ocr_cache: Path) -> None:
    """xaringan/remark.js, Quarto reveal.js, Marp and Shower decks by other authors: their numbers are also in
    the text layer (the product takes them from there), so the reading is asked for directly. It sees only
    pixels: at least 95 % of each deck's numbered pages right, none wrong."""
    import yaml

    from citation_core.material.deck import _image_numbers

    truth: list[str | None] = yaml.safe_load(truth_file.read_text(encoding="utf-8"))["printed"]
    pdf = truth_file.with_name(truth_file.name.removesuffix(".numbers.yml") + ".pdf")
    read = _image_numbers(ocr.read_pages(pdf, pdf.read_bytes()))
    assert len(read) == len(truth)
    wrong = [(i, r, t) for i, (r, t) in enumerate(zip(read, truth, strict=True), start=1) if r is not None and r != t]
    assert wrong == [], f"{pdf.name}: (page, read, printed) {wrong}"
    numbered = sum(1 for t in truth if t is not None)
    right = sum(1 for r, t in zip(read, truth, strict=True) if t is not None and r == t)
    assert right >= 0.95 * numbered, f"{pdf.name}: {right} of {numbered} numbered pages read"


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

    def counted(document: object, index: int, declared: object) -> object:
        rendered.append(index)
        return page_groups(document, index, declared)  # type: ignore[arg-type]

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
    # a banner 5 m wide and 10 cm high, its footer a line of small text 2 m long: small, so rendered again
    # larger, but never wider than a band may be
    pdf.set_auto_page_break(False)
    pdf.add_page(format=(14400, 300))
    pdf.set_font("helvetica", size=12)
    pdf.set_xy(100, 280)
    pdf.cell(text=" ".join(["Poster session on slide numbering"] * 35))
    (tmp_path / "poster.pdf").write_bytes(bytes(pdf.output()))
    sizes: list[tuple[int, int]] = []
    band_groups = ocr._band_groups

    def measured(image: object, *rest: object) -> object:
        sizes.append(image.size)  # type: ignore[attr-defined]
        return band_groups(image, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(ocr, "_band_groups", measured)
    cut: list[tuple[int, int]] = []  # every group cut out of the page, rendered again larger or not
    binary = ocr._binary

    def cut_size(image: object) -> object:
        cut.append(image.size)  # type: ignore[attr-defined]
        return binary(image)  # type: ignore[arg-type]

    monkeypatch.setattr(ocr, "_binary", cut_size)
    assert printed(load_deck(tmp_path / "poster.pdf")) == [None, None, None, None]
    assert sizes and max(max(size) for size in sizes) <= 4000
    assert cut and max(max(size) for size in cut) <= 4000


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


def test_rules_digits_misread_by_ocr_are_undone() -> None:
    from citation_core.material.deck import _image_texts

    assert _image_texts("4l") == ["41", "4l"]  # a thin 1 read as a letter, and the reading as it came
    assert _image_texts("5]") == ["51", "5"]
    assert _image_texts("1O") == ["10", "1O"]
    assert _image_texts("42 [55") == ["42 / 55"]  # a thin slash read as a bracket or a bar
    assert _image_texts("12 | 40") == ["12 / 40"]
    assert _image_texts("Folie 7") == ["Folie 7"]  # words without a digit stay as read
    assert _image_texts("[12]") == ["12"] and _image_texts("Il") == ["Il"]
    pages = [[footer(text)] for text in ("1 / 6", "2 / 6", "3 | 6", "4 [6", "5 / 6", "6 / 6")]
    assert numbers_of(pages) == ["1", "2", "3", "4", "5", "6"]
    lone = [[footer(text)] for text in ("8", "9", "1O", "1l", "l2", "13")]
    assert numbers_of([[footer(str(n))] for n in range(1, 8)] + lone)[7:] == ["8", "9", "10", "11", "12", "13"]


def _band(width_mm: float = 254.0, height_mm: float = 20.0) -> tuple[np.ndarray, float]:
    px_per_mm = 10.0
    return np.full((round(height_mm * px_per_mm), round(width_mm * px_per_mm)), 255, dtype=np.uint8), px_per_mm


def _digit(pixels: np.ndarray, x: int, y: int, value: int, height: int = 22, stroke: int = 2) -> None:
    """A drawn "1"-like mark: a vertical stroke with a foot, of text size."""
    pixels[y:y + height, x:x + stroke] = value
    pixels[y + height - stroke:y + height, x - 4:x + 6] = value


def _groups(pixels: np.ndarray, px_per_mm: float) -> list[object]:
    from PIL import Image

    page = (254.0 * 72 / 25.4, 142.875 * 72 / 25.4)
    return list(ocr._band_groups(Image.fromarray(pixels), "bottom", (0.0, 0.86, 1.0, 1.0), page, px_per_mm))


def test_a_light_thin_mark_on_white_is_ink() -> None:
    pixels, mm = _band()
    _digit(pixels, 2300, 120, value=0xd0)  # #d0d0d0, two pixels thin
    found = _groups(pixels, mm)
    assert len(found) == 1 and not found[0].light_on_dark  # type: ignore[attr-defined]


def test_a_white_number_on_a_dark_footer_bar_is_read_against_the_bar() -> None:
    pixels, mm = _band()
    pixels[100:200, :] = 40  # a dark bar across the page, 10 mm high
    _digit(pixels, 2400, 140, value=250)
    found = _groups(pixels, mm)
    assert len(found) == 1
    group = found[0]
    assert group.light_on_dark and 100 <= group.box[0] < group.box[1] <= 200  # type: ignore[attr-defined]


def test_a_progress_bar_under_a_number_is_not_part_of_it() -> None:
    pixels, mm = _band()
    _digit(pixels, 1300, 150, value=120)
    pixels[173:177, : 1400] = 60  # a progress bar 0.4 mm high, just under the number, past it
    found = _groups(pixels, mm)
    assert len(found) == 1
    y0, y1, x0, x1 = found[0].box  # type: ignore[attr-defined]
    assert y1 <= 173 and x1 - x0 < 40
