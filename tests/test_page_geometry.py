"""The band over a quoted line lies on that line's ink, on decks of every producer and on any page box.

Each line is boxed by ``evidence_boxes`` and the page rendered by ``render_page_png``, as the app does; where
the line really is comes from pdfium's own page-to-device transform (``tests.ink.drawn_region``), and the
rendered pixels say whether there is ink. The crafted variants take page 4 of the metropolis deck and
rewrite its page boxes with pypdf: a CropBox smaller than the MediaBox (on the page or inherited from the
page tree), a MediaBox away from the origin, /Rotate, /UserUnit, and CropBoxes that are broken.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pypdf
import pytest
from pypdf.generic import ArrayObject, FloatObject, NameObject, NumberObject, PdfObject

from citation_core.material.deck import render_page_png
from citation_core.material.highlight import Box, evidence_boxes

from .conftest import REAL_DIR
from .ink import Pixels, covered, drawn_region, grey, ink_mask, share

WIDTH = 800
MIN_INK = 0.05  # a text line's box: at least this share of its pixels is ink (lines measure 0.1 to 0.3)

# (deck, page, a line of that page, the tool that made the PDF)
REAL_LINES = [
    ("decks/en_metropolis_demo.pdf", 4, "The metropolis theme is a Beamer theme with minimal visual noise",
     "beamer, XeTeX, MediaBox inherited"),
    ("decks/en_nlp_rag.pdf", 5, "Hallucination is a response that is not faithful to the facts of", "beamer, LuaTeX"),
    ("decks/de_git_branches.pdf", 12, "https://github.com/Programmiermethoden-CampusMinden/Prog2-Lecture",
     "beamer, pdfTeX"),
    ("decks/en_elte_nlp_4-ngram_lm.pdf", 6, "Using the chain rule, the probability of a token sequence",
     "beamer, /Rotate 90, CropBox inherited and taller than the MediaBox"),
    # the comma below the line's other letters belongs to the line (no second, tiny band in the middle of it)
    ("decks/en_swe_practices.pdf", 10, "A function is a contract, which comes with", "LibreOffice Impress"),
    ("decks_html/xaringan_tidyverse.pdf", 10,
     'Much digital ink has been spilled over the "tidyverse vs. base R" debate.', "xaringan, Chrome print"),
    ("decks_html/quarto_bayes_intro.pdf", 10, "fréquence relative (et donc une probabilité) biaisée en raison de ses",
     "Quarto reveal.js, Chrome print"),
    ("decks/en_iot_sensors.pdf", 13, "Digital pins can be set to 1 (on), or 0 (off)", "PowerPoint export"),
    ("decks/en_shiny_apps.pdf", 8, "the computer serving your app is a web server.", "Keynote"),
]


def to_pixels(box: Box, size: tuple[int, int]) -> Pixels:
    width, height = size
    return (math.floor(box.left * width), math.floor(box.top * height),
            math.ceil(box.right * width), math.ceil(box.bottom * height))


def assert_boxed_on_its_ink(pdf: Path, page: int, line: str) -> list[Box]:
    """The line (one line on the page) gets one box, inside the page, over ink, covering where the line is drawn."""
    pixels = grey(render_page_png(pdf, page, width=WIDTH))
    size = (pixels.shape[1], pixels.shape[0])
    ink = ink_mask(pixels)
    drawn = drawn_region(pdf, page, line, size)
    assert drawn is not None, f"pdfium's text of page {page} lacks {line!r}"
    assert share(ink, drawn) > MIN_INK, f"the region pdfium draws the line in holds its ink: {drawn}"
    boxes = evidence_boxes(pdf, page, line)
    assert len(boxes) == 1, f"one band for the one line: {boxes}"
    for box in boxes:
        assert 0 <= box.left < box.right <= 1 and 0 <= box.top < box.bottom <= 1, box
        assert share(ink, to_pixels(box, size)) > MIN_INK, f"{box} lies over empty page ({to_pixels(box, size)}, " \
                                                           f"the line is drawn at {drawn})"
    assert covered(drawn, [to_pixels(b, size) for b in boxes]) > 0.9, (drawn, boxes)
    return boxes


@pytest.mark.real
@pytest.mark.parametrize(("deck", "page", "line"), [case[:3] for case in REAL_LINES],
                         ids=[case[3] for case in REAL_LINES])
def test_the_box_of_a_quoted_line_lies_over_its_ink(deck: str, page: int, line: str) -> None:
    assert_boxed_on_its_ink(REAL_DIR / deck, page, line)


# --- crafted page boxes --------------------------------------------------------------------------------------

BASE = REAL_DIR / "decks" / "en_metropolis_demo.pdf"  # 362.83 x 272.13 pt, its MediaBox on the page tree
BASE_PAGE = 4
LINE = REAL_LINES[0][2]  # drawn at about x 28..332, y 186..194 of the page


def numbers(*values: float | str) -> ArrayObject:
    return ArrayObject([NameObject(v) if isinstance(v, str) else FloatObject(v) for v in values])


def crafted(tmp_path: Path, name: str, page: dict[str, PdfObject] | None = None,
            tree: dict[str, PdfObject] | None = None) -> Path:
    """Page 4 of the metropolis deck alone, its page dictionary given ``page`` and the page tree's root ``tree``
    (an entry set on the root is taken off the page, so the page inherits it)."""
    writer = pypdf.PdfWriter()
    writer.add_page(pypdf.PdfReader(BASE).pages[BASE_PAGE - 1])
    page_dict = writer.pages[0]
    for key, value in (page or {}).items():
        page_dict[NameObject(key)] = value
    root = writer.root_object["/Pages"].get_object()
    for key, value in (tree or {}).items():
        root[NameObject(key)] = value
        if key in page_dict:
            del page_dict[key]
    out = tmp_path / f"{name}.pdf"
    writer.write(out)
    return out


# pdfium's text of a page turned by 180 degrees has the words of the first lines out of order: another line there
OTHER_LINE = "Enable the theme by loading"
VALID: dict[str, tuple[Callable[[Path], Path], str]] = {
    "CropBox smaller than the MediaBox": (
        lambda d: crafted(d, "crop", {"/CropBox": numbers(20, 120, 345, 250)}), LINE),
    "CropBox and MediaBox inherited from the page tree": (lambda d: crafted(
        d, "inherited", tree={"/MediaBox": numbers(0, 0, 362.83, 272.13), "/CropBox": numbers(20, 120, 345, 250)}),
        LINE),
    "MediaBox away from the origin": (
        lambda d: crafted(d, "offset", {"/MediaBox": numbers(-30, 50, 352.83, 322.13)}), LINE),
    "CropBox written right to left": (
        lambda d: crafted(d, "reversed", {"/CropBox": numbers(345, 250, 20, 120)}), LINE),
    # turned a quarter, the page shows its lines running down: one band along each of them
    "/Rotate 90": (lambda d: crafted(d, "rotate90", {"/Rotate": NumberObject(90)}), LINE),
    "/Rotate 270 inherited, with a CropBox": (lambda d: crafted(
        d, "rotate270", {"/CropBox": numbers(20, 120, 345, 250)}, tree={"/Rotate": NumberObject(270)}), LINE),
    "/Rotate 180 and a MediaBox away from the origin": (lambda d: crafted(
        d, "rotate180", {"/Rotate": NumberObject(180), "/MediaBox": numbers(-30, 50, 352.83, 322.13)}), OTHER_LINE),
}

BROKEN: dict[str, dict[str, PdfObject]] = {
    "CropBox outside the MediaBox": {"/CropBox": numbers(1000, 1000, 1200, 1200)},
    "CropBox of three numbers": {"/CropBox": numbers(0, 0, 100)},
    "CropBox with a name among its numbers": {"/CropBox": numbers("/a", 0, 100, 100)},
    "CropBox without area": {"/CropBox": numbers(50, 50, 50, 200)},
    "CropBox that is not an array": {"/CropBox": NameObject("/Page")},
}


@pytest.mark.real
@pytest.mark.parametrize("variant", list(VALID))
def test_the_box_lies_over_the_ink_whatever_the_page_boxes_say(variant: str, tmp_path: Path) -> None:
    make, line = VALID[variant]
    assert_boxed_on_its_ink(make(tmp_path), 1, line)


@pytest.mark.real
def test_a_crop_box_shows_only_its_part_of_the_page(tmp_path: Path) -> None:
    whole = evidence_boxes(BASE, BASE_PAGE, LINE)[0]
    crop = VALID["CropBox smaller than the MediaBox"][0](tmp_path)
    cropped = evidence_boxes(crop, 1, LINE)[0]
    # the crop keeps x 20..345 and y 120..250 of the 362.83 x 272.13 page: the line stands where it stood on the
    # page, now measured from the crop's top left corner
    x0, x1 = whole.left * 362.83, whole.right * 362.83
    y_top, y_bottom = 272.13 * (1 - whole.top), 272.13 * (1 - whole.bottom)
    assert (cropped.left, cropped.top, cropped.right, cropped.bottom) == pytest.approx(
        ((x0 - 20) / 325, (250 - y_top) / 130, (x1 - 20) / 325, (250 - y_bottom) / 130), abs=0.002)
    height, width = grey(render_page_png(crop, 1, width=WIDTH)).shape  # and the image is of the crop alone
    assert height / width == pytest.approx(130 / 325, abs=0.01)


@pytest.mark.real
@pytest.mark.parametrize("variant", list(BROKEN))
def test_a_broken_crop_box_is_ignored_the_whole_media_box_is_shown(variant: str, tmp_path: Path) -> None:
    broken = crafted(tmp_path, "broken", BROKEN[variant])
    plain = crafted(tmp_path, "plain")
    assert render_page_png(broken, 1, width=WIDTH) == render_page_png(plain, 1, width=WIDTH)
    assert evidence_boxes(broken, 1, LINE) == evidence_boxes(plain, 1, LINE) != []


@pytest.mark.real
def test_a_user_unit_scales_the_page_not_where_the_line_stands(tmp_path: Path) -> None:
    from citation_core.material.page_geometry import page_geometry

    scaled = crafted(tmp_path, "unit", {"/UserUnit": FloatObject(2.5)})
    plain = crafted(tmp_path, "plain")
    assert render_page_png(scaled, 1, width=WIDTH) == render_page_png(plain, 1, width=WIDTH)
    assert evidence_boxes(scaled, 1, LINE) == evidence_boxes(plain, 1, LINE) != []
    width, height = page_geometry(plain, 1).size_pt
    assert page_geometry(scaled, 1).size_pt == pytest.approx((2.5 * width, 2.5 * height))
    assert (width, height) == pytest.approx((362.83, 272.13))
