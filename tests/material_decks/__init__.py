"""Slide decks whose printed numbers exist only in the rendering (images or vector paths, never text).

Every deck is drawn here with fpdf2 and Pillow, so the number a reader sees on each page is known:
``GeneratedDeck.expected`` lists it per page (None where the page prints no number). The decks cover
the usual conventions ("N / TOTAL", a lone "N", "Folie N") at the usual places (bottom right, bottom
centre, top right), with title, agenda, divider and repeated overlay pages, page furniture (course
footers with a year, a date, a logo), a chart whose axes carry numbers, a scanned-looking deck (noisy
raster pages with an invisible text layer) and a deck that prints no numbers at all.

``build_decks(folder)`` writes them all; tests call it once per session (see ``generated_decks``).

A second family, the faint decks, prints its numbers the way slide tools do (remark.js, reveal.js, Marp,
Google Slides, Keynote, PowerPoint): small (5 to 9 pt), thin and light, grey on white or light on a dark
footer bar, some above a progress bar. It comes in two disjoint sets, ``FAINT_DEV_SPECS`` to tune a way of
reading on and ``FAINT_HELDOUT_SPECS`` to judge it on (other fonts, sizes, grey levels and combinations);
``build_faint_decks(folder, "dev" | "heldout")`` writes one set.
"""

from __future__ import annotations

import datetime as dt
import io
import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from fontTools.pens.basePen import BasePen
from fontTools.ttLib import TTFont
from fpdf import FPDF
from fpdf.drawing import PaintedPath
from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
SANS = FONT_DIR / "DejaVuSans.ttf"
SANS_BOLD = FONT_DIR / "DejaVuSans-Bold.ttf"
MM_PER_PT = 25.4 / 72
_FIXED_DATE = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)

# Page kinds: what a deck shows on each page, in order.
TITLE, AGENDA, DIVIDER, CONTENT, OVERLAY, CHART, CLOSING = (
    "title", "agenda", "divider", "content", "overlay", "chart", "closing"
)  # fmt: skip


@dataclass(frozen=True)
class GeneratedDeck:
    name: str
    path: Path
    expected: tuple[str | None, ...]  # the printed number on each page (index = page_number - 1)
    style: str  # how the numbers are printed, for messages
    drawn_as: str  # "image", "vector" or "raster" (the whole page is one image)

    @property
    def numbered(self) -> int:
        return sum(1 for n in self.expected if n is not None)


@dataclass(frozen=True)
class DeckSpec:
    name: str
    kinds: tuple[str, ...]
    style: str  # "fraction", "lone", "folie", "none"
    place: str  # "bottom right", "bottom centre", "top right"
    drawn_as: str  # "image", "vector", "raster"
    size: tuple[float, float] = (254.0, 142.875)  # mm, 16:9
    numbered_kinds: frozenset[str] = frozenset({AGENDA, CONTENT, OVERLAY, CHART, CLOSING})
    footer: str | None = None  # page furniture at the bottom left, drawn like the numbers
    date: str | None = None  # furniture at the bottom centre or right
    logo: bool = False
    dark_dividers: bool = False
    language: str = "en"
    seed: int = 1
    unprinted_count: bool = False  # unnumbered pages still advance the counter (as in LaTeX beamer)
    extra: dict[str, str] = field(default_factory=dict)


def _kinds(*runs: tuple[str, int]) -> tuple[str, ...]:
    return tuple(kind for kind, count in runs for _ in range(count))


SPECS: tuple[DeckSpec, ...] = (
    DeckSpec(
        "fraction_bottom_right_images",
        _kinds((TITLE, 1), (AGENDA, 1), (CONTENT, 3), (DIVIDER, 1), (CONTENT, 2), (OVERLAY, 3), (CONTENT, 2),
               (DIVIDER, 1), (CONTENT, 3), (CLOSING, 1)),
        style="fraction", place="bottom right", drawn_as="image",
        footer="Algorithms and Data Structures · Winter term 2024/25", seed=11,
    ),
    DeckSpec(
        "lone_bottom_centre_vectors",
        _kinds((TITLE, 1), (AGENDA, 1), (CONTENT, 4), (OVERLAY, 2), (DIVIDER, 1), (CONTENT, 4), (OVERLAY, 3),
               (CONTENT, 2)),
        style="lone", place="bottom centre", drawn_as="vector", size=(254.0, 190.5),
        footer="Databases 2024", date="15.01.2025", seed=12,
    ),
    DeckSpec(
        "folie_top_right_images",
        _kinds((TITLE, 1), (AGENDA, 1), (CONTENT, 3), (DIVIDER, 1), (CONTENT, 3), (OVERLAY, 2), (DIVIDER, 1),
               (CONTENT, 3)),
        style="folie", place="top right", drawn_as="image", language="de",
        footer="Technische Universität · Rechnernetze 2025", logo=True, dark_dividers=True, seed=13,
    ),
    DeckSpec(
        "lone_top_right_vectors",
        _kinds((TITLE, 1), (CONTENT, 5), (DIVIDER, 1), (CONTENT, 3), (OVERLAY, 3), (CONTENT, 2), (CLOSING, 1)),
        style="lone", place="top right", drawn_as="vector",
        footer="Operating Systems · Lecture 7 · 2024", seed=14, unprinted_count=True,
    ),
    DeckSpec(
        "lone_bottom_right_with_charts",
        _kinds((TITLE, 1), (AGENDA, 1), (CONTENT, 2), (CHART, 2), (CONTENT, 2), (DIVIDER, 1), (CHART, 1),
               (OVERLAY, 2), (CHART, 2), (CONTENT, 2)),
        style="lone", place="bottom right", drawn_as="vector",
        footer="Data Science 2023", seed=15,
    ),
    DeckSpec(
        "fraction_bottom_centre_images",
        _kinds((TITLE, 1), (AGENDA, 1), (CONTENT, 4), (DIVIDER, 1), (CONTENT, 4), (OVERLAY, 2), (CONTENT, 3)),
        style="fraction", place="bottom centre", drawn_as="image", size=(254.0, 190.5), seed=16,
        date="2024-11-05", unprinted_count=True,
    ),
    DeckSpec(
        "scanned_fraction_bottom_right",
        _kinds((TITLE, 1), (AGENDA, 1), (CONTENT, 3), (DIVIDER, 1), (CONTENT, 3), (OVERLAY, 2), (CONTENT, 3)),
        style="fraction", place="bottom right", drawn_as="raster", size=(254.0, 190.5), seed=17,
        footer="Compiler Construction 2022",
    ),
    DeckSpec(
        "unnumbered_with_furniture_and_charts",
        _kinds((TITLE, 1), (AGENDA, 1), (CONTENT, 3), (CHART, 2), (DIVIDER, 1), (CONTENT, 3), (CHART, 1),
               (CONTENT, 2)),
        style="none", place="bottom right", drawn_as="image",
        footer="Statistics 2024 · Room 0.001", date="12.06.2024", logo=True, seed=18,
    ),
)


def expected_numbers(spec: DeckSpec) -> tuple[str | None, ...]:
    """The printed number of every page: unnumbered kinds print none (and advance the count only with
    ``unprinted_count``); overlay pages repeat the number of the page they continue."""
    numbers: list[str | None] = []
    counter = 0
    previous = None
    for kind in spec.kinds:
        if spec.style == "none" or kind not in spec.numbered_kinds:
            counter += 1 if spec.unprinted_count else 0
            numbers.append(None)
        else:
            if not (kind == OVERLAY and previous == OVERLAY):
                counter += 1
            numbers.append(str(counter))
        previous = kind
    return tuple(numbers)


def build_decks(folder: Path, names: Sequence[str] | None = None) -> list[GeneratedDeck]:
    """The decks of ``SPECS`` (or those named) in ``folder``; a deck already there is kept."""
    return [build_deck(folder, spec) for spec in SPECS if names is None or spec.name in names]


def build_deck(folder: Path, spec: DeckSpec) -> GeneratedDeck:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{spec.name}.pdf"
    expected = expected_numbers(spec)
    if not path.exists():
        path.write_bytes(_draw_deck(spec, expected))
    return GeneratedDeck(spec.name, path, expected, f"{spec.style} at the {spec.place}", spec.drawn_as)


# --- text of the pages ------------------------------------------------------------------------

_TOPICS_EN = [
    ("Sorting by merging", ["Split the list into halves", "Sort each half on its own", "Merge the sorted halves"]),
    ("Hash functions", ["Map keys to buckets", "Collisions are unavoidable", "Chaining keeps a list per bucket"]),
    ("Binary search trees", ["Left keys are smaller", "Right keys are larger", "Search follows one path"]),
    ("Balanced trees", ["Rotations restore balance", "Height stays logarithmic", "Insert and delete rebalance"]),
    ("Graph traversal", ["Breadth first uses a queue", "Depth first uses a stack", "Mark visited nodes"]),
    ("Shortest paths", ["Dijkstra needs weights of zero or more", "A priority queue picks the next node",
                        "Relax every outgoing edge"]),
    ("Dynamic programming", ["Overlapping subproblems", "Store results in a table", "Build answers bottom up"]),
    ("Greedy algorithms", ["Take the best local choice", "Prove an exchange argument", "Matroids explain when"]),
    ("Amortised analysis", ["Average cost over a sequence", "The potential method", "Dynamic arrays double"]),
    ("Heaps", ["A complete binary tree", "Parent smaller than children", "Sift down after removal"]),
    ("Union find", ["Disjoint sets of elements", "Union by rank", "Path compression flattens trees"]),
    ("String matching", ["Naive search compares everything", "Knuth Morris Pratt skips ahead",
                         "Rolling hashes for Rabin Karp"]),
]
_TOPICS_DE = [
    ("Schichtenmodell", ["Jede Schicht bietet Dienste an", "Protokolle regeln den Austausch",
                         "Kapselung der Nutzdaten"]),
    ("Vermittlung", ["Leitungsvermittlung reserviert", "Paketvermittlung teilt Leitungen", "Warteschlangen puffern"]),
    ("Adressierung", ["Adressen sind hierarchisch", "Netzanteil und Hostanteil", "Subnetze teilen Bereiche"]),
    ("Wegewahl", ["Router leiten Pakete weiter", "Distanzvektoren tauschen Kosten aus", "Zustand der Verbindungen"]),
    ("Transportschicht", ["Ports unterscheiden Anwendungen", "Zuverlässige Übertragung", "Flusskontrolle bremst"]),
    ("Überlastkontrolle", ["Das Fenster wächst langsam", "Verluste halbieren das Fenster",
                           "Fairness zwischen Flüssen"]),
    ("Anwendungen", ["Namensauflösung über Server", "Elektronische Post", "Das Web und seine Abrufe"]),
    ("Sicherheit", ["Vertraulichkeit durch Verschlüsselung", "Integrität durch Prüfsummen",
                    "Authentifizierung der Partner"]),
]


def _page_texts(spec: DeckSpec) -> Iterator[tuple[str, list[str]]]:
    topics = _TOPICS_DE if spec.language == "de" else _TOPICS_EN
    rng = random.Random(spec.seed)
    order = list(range(len(topics)))
    rng.shuffle(order)
    topic_no = 0
    section = 0
    overlay_step = 0
    for kind in spec.kinds:
        if kind == TITLE:
            title = "Rechnernetze" if spec.language == "de" else "Algorithms and Data Structures"
            yield title, ["Vorlesung und Übung" if spec.language == "de" else "Lecture notes and examples"]
        elif kind == AGENDA:
            yield ("Inhalt" if spec.language == "de" else "Agenda"), [topics[i][0] for i in order[:4]]
        elif kind == DIVIDER:
            section += 1
            yield (f"Teil {chr(64 + section)}" if spec.language == "de" else f"Part {chr(64 + section)}"), []
        elif kind == CLOSING:
            yield ("Vielen Dank" if spec.language == "de" else "Thank you"), ["Questions and discussion"]
        elif kind == OVERLAY:
            title, bullets = topics[order[topic_no % len(order)]]
            overlay_step += 1
            yield title, bullets[: min(overlay_step, len(bullets))]
        else:
            if overlay_step:
                overlay_step = 0
                topic_no += 1
            title, bullets = topics[order[topic_no % len(order)]]
            topic_no += 1
            if kind == CHART:
                yield f"{title}: measurements", ["Running time grows with the input size"]
            else:
                yield title, bullets
        if kind != OVERLAY and overlay_step:
            overlay_step = 0
            topic_no += 1


# --- drawing ----------------------------------------------------------------------------------


def _number_text(spec: DeckSpec, number: str, total: int) -> str:
    if spec.style == "fraction":
        return f"{number} / {total}"
    if spec.style == "folie":
        return f"Folie {number}"
    return number


def _draw_deck(spec: DeckSpec, expected: Sequence[str | None]) -> bytes:
    width, height = spec.size
    pdf = FPDF(unit="mm", format=(width, height))
    pdf.set_auto_page_break(False)
    pdf.set_creation_date(_FIXED_DATE)
    pdf.add_font("dejavu", "", str(SANS))
    pdf.add_font("dejavu", "B", str(SANS_BOLD))
    total = max((int(n) for n in expected if n is not None), default=0)
    rng = random.Random(spec.seed)
    for index, ((title, lines), kind, number) in enumerate(zip(_page_texts(spec), spec.kinds, expected, strict=True)):
        pdf.add_page()
        marks = _marks(spec, kind, number, total)
        if spec.drawn_as == "raster":
            _raster_page(pdf, spec, kind, title, lines, marks, rng)
            continue
        dark = kind == DIVIDER and spec.dark_dividers
        if dark:
            pdf.set_fill_color(30, 40, 70)
            pdf.rect(0, 0, width, height, style="F")
        _text_page(pdf, spec, kind, title, lines, dark)
        if kind == CHART:
            _place_image(pdf, _chart_image(rng, index), width * 0.18, height * 0.40, width * 0.62, height * 0.56)
        for text, place, size_pt in marks:
            draw = _draw_vector if spec.drawn_as == "vector" else _draw_image
            draw(pdf, text, place, size_pt, (255, 255, 255) if dark else (60, 60, 60))
    return bytes(pdf.output())


def _marks(spec: DeckSpec, kind: str, number: str | None, total: int) -> list[tuple[str, str, float]]:
    """What the page prints besides its content: (text, place, size in points)."""
    marks: list[tuple[str, str, float]] = []
    if kind in (TITLE, DIVIDER):
        return marks  # title and divider pages carry no furniture either
    if spec.footer:
        marks.append((spec.footer, "bottom left", 8))
    if spec.date:
        marks.append((spec.date, "bottom right" if spec.place == "bottom centre" else "bottom centre", 8))
    if spec.logo:
        marks.append(("TU", "top left", 14))
    if number is not None:
        marks.append((_number_text(spec, number, total), spec.place, 10))
    return marks


def _text_page(pdf: FPDF, spec: DeckSpec, kind: str, title: str, lines: list[str], dark: bool) -> None:
    width, height = spec.size
    pdf.set_text_color(255, 255, 255) if dark else pdf.set_text_color(20, 20, 20)
    if kind in (TITLE, DIVIDER, CLOSING):
        pdf.set_font("dejavu", "B", 30)
        pdf.set_xy(15, height * 0.38)
        pdf.cell(width - 30, 14, title, align="C")
        pdf.set_font("dejavu", "", 16)
        for i, line in enumerate(lines):
            pdf.set_xy(15, height * 0.38 + 18 + 9 * i)
            pdf.cell(width - 30, 8, line, align="C")
        return
    pdf.set_font("dejavu", "B", 22)
    pdf.set_xy(18 if spec.logo else 12, 14)
    pdf.cell(width * 0.6, 12, title)
    pdf.set_font("dejavu", "", 16)
    for i, line in enumerate(lines):
        pdf.set_xy(16, 38 + 11 * i)
        pdf.cell(width * 0.7, 9, f"• {line}")


def _anchor(place: str, page: tuple[float, float], box: tuple[float, float]) -> tuple[float, float]:
    """Top left corner (mm) of a box of ``box`` size printed at ``place``."""
    (width, height), (w, h) = page, box
    margin_x, margin_y = width * 0.035, height * 0.045
    y = margin_y if place.startswith("top") else height - margin_y - h
    if place.endswith("right"):
        x = width - margin_x - w
    elif place.endswith("left"):
        x = margin_x
    else:
        x = (width - w) / 2
    return x, y


def _font(size_px: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(SANS_BOLD if bold else SANS), size_px)


def _text_image(text: str, size_pt: float, color: tuple[int, int, int], dpi: int = 300) -> tuple[Image.Image, float]:
    """``text`` rendered on a transparent background; returns it and its height in mm."""
    px = round(size_pt / 72 * dpi)
    font = _font(px)
    left, top, right, bottom = font.getbbox(text)
    image = Image.new("RGBA", (right - left + 4, bottom - top + 4), (255, 255, 255, 0))
    ImageDraw.Draw(image).text((2 - left, 2 - top), text, font=font, fill=(*color, 255))
    return image, image.height / dpi * 25.4


def _place_image(pdf: FPDF, image: Image.Image, x: float, y: float, w: float, h: float) -> None:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    buffer.seek(0)
    pdf.image(buffer, x=x, y=y, w=w, h=h)


def _draw_image(pdf: FPDF, text: str, place: str, size_pt: float, color: tuple[int, int, int]) -> None:
    image, h = _text_image(text, size_pt, color)
    w = h * image.width / image.height
    x, y = _anchor(place, (pdf.w, pdf.h), (w, h))
    _place_image(pdf, image, x, y, w, h)


class _PathPen(BasePen):  # type: ignore[misc]
    """Glyph outlines (font units, y up) drawn into an fpdf2 path (mm, y down)."""

    def __init__(self, glyphs: object, path: PaintedPath, transform: Callable[[float, float], tuple[float, float]]):
        super().__init__(glyphs)
        self.path, self.transform = path, transform

    def _moveTo(self, pt: tuple[float, float]) -> None:  # noqa: N802 (the pen protocol)
        self.path.move_to(*self.transform(*pt))

    def _lineTo(self, pt: tuple[float, float]) -> None:  # noqa: N802
        self.path.line_to(*self.transform(*pt))

    def _curveToOne(self, p1: tuple[float, float], p2: tuple[float, float], p3: tuple[float, float]) -> None:  # noqa: N802
        self.path.curve_to(*self.transform(*p1), *self.transform(*p2), *self.transform(*p3))

    def _qCurveToOne(self, p1: tuple[float, float], p2: tuple[float, float]) -> None:  # noqa: N802
        self.path.quadratic_curve_to(*self.transform(*p1), *self.transform(*p2))

    def _closePath(self) -> None:  # noqa: N802
        self.path.close()


_TTF: dict[Path, TTFont] = {}


def _draw_vector(pdf: FPDF, text: str, place: str, size_pt: float, color: tuple[int, int, int]) -> None:
    """``text`` as filled glyph outlines: it looks like text but is no text to a PDF reader."""
    _outline(pdf, SANS, text, size_pt, color, lambda box: _anchor(place, (pdf.w, pdf.h), box))


def _outline(pdf: FPDF, font_file: Path, text: str, size_pt: float, color: tuple[int, int, int],
             anchor: Callable[[tuple[float, float]], tuple[float, float]]) -> None:
    """``text`` in ``font_file`` drawn as filled glyph outlines, its box (width, height) placed by ``anchor``."""
    font = _TTF.setdefault(font_file, TTFont(str(font_file)))
    glyphs = font.getGlyphSet()
    cmap = font.getBestCmap()
    scale = size_pt * MM_PER_PT / font["head"].unitsPerEm
    names = [cmap.get(ord(ch), ".notdef") for ch in text]
    advance = sum(glyphs[name].width for name in names) * scale
    ascent, descent = font["hhea"].ascent * scale, -font["hhea"].descent * scale
    x, y = anchor((advance, ascent + descent))
    baseline = y + ascent
    with pdf.new_path() as path:
        path.style.fill_color = "#{:02x}{:02x}{:02x}".format(*color)
        path.style.stroke_color = None
        path.style.paint_rule = "FILL_NONZERO"
        for name in names:
            origin = x

            def transform(gx: float, gy: float, origin: float = origin) -> tuple[float, float]:
                return origin + gx * scale, baseline - gy * scale

            glyphs[name].draw(_PathPen(glyphs, path, transform))
            x += glyphs[name].width * scale


def _chart_image(rng: random.Random, index: int) -> Image.Image:
    """A line chart with numbered axes (years below, counts to the left), as a raster image."""
    w, h = 1500, 900
    image = Image.new("RGB", (w, h), "white")
    draw = ImageDraw.Draw(image)
    font = _font(34)
    left, bottom, right, top = 150, h - 90, w - 40, 40
    draw.line([(left, top), (left, bottom), (right, bottom)], fill="black", width=4)
    years = list(range(2018, 2025)) if index % 2 else list(range(0, 7))
    for i, year in enumerate(years):
        x = left + (right - left) * (i + 0.5) / len(years)
        draw.line([(x, bottom), (x, bottom + 12)], fill="black", width=3)
        label = str(year)
        lw = font.getlength(label)
        draw.text((x - lw / 2, bottom + 20), label, font=font, fill="black")
    for i, value in enumerate(range(0, 50, 10)):
        y = bottom - (bottom - top) * i / 4
        draw.line([(left - 12, y), (left, y)], fill="black", width=3)
        label = str(value)
        draw.text((left - 24 - font.getlength(label), y - 20), label, font=font, fill="black")
    points = [(left + (right - left) * (i + 0.5) / len(years), bottom - rng.uniform(0.1, 0.95) * (bottom - top))
              for i in range(len(years))]
    draw.line(points, fill=(200, 40, 40), width=6)
    return image


def _raster_page(pdf: FPDF, spec: DeckSpec, kind: str, title: str, lines: list[str],
                 marks: list[tuple[str, str, float]], rng: random.Random) -> None:
    """A scanned-looking page: the whole slide is one noisy, slightly rotated greyscale image; its words
    are also an invisible text layer (as after a text recognition pass), its printed marks are not."""
    width, height = spec.size
    dpi = 150
    px = (round(width / 25.4 * dpi), round(height / 25.4 * dpi))
    image = Image.new("L", px, 235)
    draw = ImageDraw.Draw(image)

    def at(x_mm: float, y_mm: float) -> tuple[float, float]:
        return x_mm / 25.4 * dpi, y_mm / 25.4 * dpi

    if kind in (TITLE, DIVIDER, CLOSING):
        font = _font(round(30 / 72 * dpi), bold=True)
        tw = font.getlength(title)
        draw.text(((px[0] - tw) / 2, px[1] * 0.38), title, font=font, fill=25)
    else:
        draw.text(at(12, 14), title, font=_font(round(22 / 72 * dpi), bold=True), fill=25)
        for i, line in enumerate(lines):
            draw.text(at(16, 38 + 11 * i), f"• {line}", font=_font(round(16 / 72 * dpi)), fill=30)
    for text, place, size_pt in marks:
        font = _font(round(size_pt / 72 * dpi))
        left, top, right, bottom = font.getbbox(text)
        box = ((right - left) / dpi * 25.4, (bottom - top) / dpi * 25.4)
        x, y = _anchor(place, spec.size, box)
        draw.text((at(x, y)[0] - left, at(x, y)[1] - top), text, font=font, fill=40)
    image = image.rotate(rng.uniform(-0.6, 0.6), resample=Image.Resampling.BICUBIC, fillcolor=235)
    image = image.filter(ImageFilter.GaussianBlur(0.7))
    # the noise comes from the deck's seed (Pillow's effect_noise draws from an unseeded generator: every build
    # of the deck would differ, and so could what is read from it)
    noise = np.random.default_rng(rng.randrange(2**32)).normal(128, 40, (px[1], px[0]))
    image = Image.blend(image, Image.fromarray(noise.clip(0, 255).astype(np.uint8)), 0.12)
    speckles = ImageDraw.Draw(image)
    for _ in range(400):
        x, y = rng.randrange(px[0]), rng.randrange(px[1])
        speckles.point((x, y), fill=rng.choice((20, 60, 250)))
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=55)
    buffer.seek(0)
    pdf.image(buffer, x=0, y=0, w=width, h=height)
    # the invisible text layer: title and body only
    pdf.text_mode = "INVISIBLE"
    pdf.set_font("dejavu", "", 16)
    pdf.set_xy(12, 14)
    pdf.cell(width * 0.6, 12, title)
    for i, line in enumerate(lines):
        pdf.set_xy(16, 38 + 11 * i)
        pdf.cell(width * 0.7, 9, line)
    pdf.text_mode = "FILL"


# --- faint decks: numbers as slide tools print them ---------------------------------------------
#
# Decks exported from HTML slide tools (remark.js, reveal.js, Marp), Google Slides, Keynote or PowerPoint
# print their numbers small (5 to 9 pt), thin and light: grey on white, or white and light grey on a dark
# footer bar, sometimes above a thin progress bar along the bottom edge. Two disjoint families, so that a
# way of reading them can be tuned on one (``FAINT_DEV_SPECS``) and judged on the other
# (``FAINT_HELDOUT_SPECS``, other fonts, sizes, grey levels and combinations).

DEJAVU_EXTRALIGHT = FONT_DIR / "DejaVuSans-ExtraLight.ttf"
DEJAVU_CONDENSED = FONT_DIR / "DejaVuSansCondensed.ttf"
LIBERATION_DIR = Path("/usr/share/fonts/truetype/liberation")
LIBERATION_SANS = LIBERATION_DIR / "LiberationSans-Regular.ttf"
LIBERATION_NARROW = LIBERATION_DIR / "LiberationSansNarrow-Regular.ttf"

WIDE = (254.0, 142.875)  # 16:9, ten inches wide (Google Slides, PowerPoint, a printed reveal.js deck)
MARP = (338.667, 190.5)  # 16:9, 1280 x 720 px (Marp)
FOUR_THREE = (254.0, 190.5)  # 4:3 (remark.js, older PowerPoint)

# what a title, agenda or closing page prints: "count" (the next number), "repeat" (the last number
# printed again) or "none"
COUNT, REPEAT, NONE = "count", "repeat", "none"


def _grey(level: int) -> tuple[int, int, int]:
    return (level, level, level)


@dataclass(frozen=True)
class FaintSpec:
    name: str
    kinds: tuple[str, ...]
    style: str  # "fraction" ("N / TOTAL") or "lone" ("N")
    place: str  # "bottom right", "bottom centre", "top right"
    drawn_as: str  # "image" (anti-aliased, at ``dpi``) or "vector" (glyph outlines)
    font: Path
    size_pt: float
    color: tuple[int, int, int]  # of the number
    size: tuple[float, float] = WIDE  # mm
    dpi: int = 200
    opaque: bool = False  # an image keeps the background it was drawn on (else it is transparent)
    title: str = NONE  # COUNT or NONE
    agenda: str = COUNT  # COUNT, REPEAT or NONE
    closing: str = REPEAT  # COUNT, REPEAT or NONE
    unprinted_count: bool = False  # pages printing no number still advance the counter
    footer: str | None = None  # furniture at the bottom left (in the bar when there is one)
    date: str | None = None  # furniture at the bottom centre, or right when the number is at the centre
    furniture_color: tuple[int, int, int] = (176, 176, 176)
    logo: str | None = None  # "top left" or "bottom left"
    bar: tuple[int, int, int] | None = None  # a dark footer bar spanning the width, the number at its right end
    progress: tuple[int, int, int] | None = None  # a thin progress bar along the bottom edge
    dark_dividers: bool = False
    seed: int = 1

    def describe(self) -> str:
        on = f"on a bar {_hex(self.bar)}" if self.bar else "on white"
        return f"{self.style} at the {self.place}, {self.font.stem} {self.size_pt:g} pt {_hex(self.color)} {on}"


def _hex(color: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*color)


FAINT_DEV_SPECS: tuple[FaintSpec, ...] = (
    FaintSpec(  # remark.js: "N / TOTAL" at the bottom right of every slide, the title included
        "faint_dev_remark_fraction_bottom_right",
        _kinds((TITLE, 1), (AGENDA, 1), (CONTENT, 3), (OVERLAY, 3), (CONTENT, 2), (DIVIDER, 1), (CONTENT, 4),
               (OVERLAY, 2), (CONTENT, 2), (CLOSING, 1)),
        style="fraction", place="bottom right", drawn_as="vector", font=SANS, size_pt=8, color=_grey(0x77),
        size=FOUR_THREE, title=COUNT, agenda=COUNT, closing=NONE, seed=31,
    ),
    FaintSpec(  # reveal.js: a thin lone number above the progress bar
        "faint_dev_reveal_lone_bottom_right_progress",
        _kinds((TITLE, 1), (AGENDA, 1), (CONTENT, 4), (DIVIDER, 1), (CONTENT, 3), (OVERLAY, 3), (CONTENT, 3),
               (DIVIDER, 1), (CONTENT, 4), (CLOSING, 1)),
        style="lone", place="bottom right", drawn_as="image", font=DEJAVU_EXTRALIGHT, size_pt=9,
        color=_grey(0x88), dpi=200, title=NONE, agenda=NONE, closing=REPEAT, progress=(42, 118, 221), seed=32,
    ),
    FaintSpec(  # Marp: a small lone number at the bottom centre, a course footer and a date
        "faint_dev_marp_lone_bottom_centre_footer",
        _kinds((TITLE, 1), (AGENDA, 1), (CONTENT, 5), (OVERLAY, 2), (CONTENT, 3), (DIVIDER, 1), (CONTENT, 5),
               (OVERLAY, 3), (CONTENT, 2), (CLOSING, 1)),
        style="lone", place="bottom centre", drawn_as="vector", font=SANS, size_pt=6, color=_grey(0x99),
        size=MARP, title=NONE, agenda=COUNT, closing=NONE, footer="Software Engineering · 2024/25",
        date="05.11.2024", furniture_color=_grey(0xaa), seed=33,
    ),
    FaintSpec(  # Google Slides: "N / TOTAL" at the top right, a logo and a footer
        "faint_dev_gslides_fraction_top_right_logo",
        _kinds((TITLE, 1), (AGENDA, 1), (CONTENT, 3), (DIVIDER, 1), (CONTENT, 3), (OVERLAY, 2), (CONTENT, 2),
               (DIVIDER, 1), (CONTENT, 3), (OVERLAY, 3), (CONTENT, 2), (CLOSING, 1)),
        style="fraction", place="top right", drawn_as="image", font=SANS, size_pt=7, color=_grey(0xaa),
        dpi=150, opaque=True, title=COUNT, agenda=REPEAT, closing=REPEAT, logo="top left",
        footer="Introduction to Machine Learning", furniture_color=_grey(0xbb), seed=34,
    ),
    FaintSpec(  # a corporate template: a dark footer bar, the course at its left, a white thin number at its right
        "faint_dev_bar_lone_white",
        _kinds((TITLE, 1), (AGENDA, 1), (CONTENT, 4), (OVERLAY, 2), (CONTENT, 2), (DIVIDER, 1), (CONTENT, 4),
               (DIVIDER, 1), (CONTENT, 3), (CLOSING, 1)),
        style="lone", place="bottom right", drawn_as="vector", font=DEJAVU_EXTRALIGHT, size_pt=8,
        color=_grey(0xff), title=NONE, agenda=COUNT, closing=REPEAT, bar=(31, 45, 61),
        footer="Databases · Winter term 2024/25", furniture_color=_grey(0xcc), dark_dividers=True, seed=35,
    ),
    FaintSpec(  # Keynote: "N / TOTAL" at the bottom centre, a progress bar, a date; unnumbered pages count
        "faint_dev_keynote_fraction_bottom_centre_progress",
        _kinds((TITLE, 1), (AGENDA, 1), (CONTENT, 3), (OVERLAY, 4), (CONTENT, 2), (DIVIDER, 1), (CONTENT, 6),
               (DIVIDER, 1), (CONTENT, 2), (CLOSING, 1)),
        style="fraction", place="bottom centre", drawn_as="image", font=DEJAVU_EXTRALIGHT, size_pt=7,
        color=_grey(0x77), dpi=300, title=NONE, agenda=NONE, closing=REPEAT, unprinted_count=True,
        progress=(230, 120, 40), date="12 March 2024", furniture_color=_grey(0xb0), seed=36,
    ),
)

FAINT_HELDOUT_SPECS: tuple[FaintSpec, ...] = (
    FaintSpec(  # remark.js with another template: a tiny lone number
        "faint_heldout_remark_lone_bottom_right",
        _kinds((TITLE, 1), (AGENDA, 1), (CONTENT, 3), (OVERLAY, 2), (CONTENT, 4), (DIVIDER, 1), (CONTENT, 3),
               (OVERLAY, 3), (CONTENT, 3), (CLOSING, 1)),
        style="lone", place="bottom right", drawn_as="vector", font=LIBERATION_SANS, size_pt=5.5,
        color=_grey(0x80), size=FOUR_THREE, title=COUNT, agenda=REPEAT, closing=NONE, seed=41,
    ),
    FaintSpec(  # reveal.js printed by decktape: "N / TOTAL", narrow and light, above the progress bar
        "faint_heldout_reveal_fraction_bottom_right_progress",
        _kinds((TITLE, 1), (AGENDA, 1), (CONTENT, 2), (OVERLAY, 3), (CONTENT, 3), (DIVIDER, 1), (CONTENT, 4),
               (OVERLAY, 2), (CONTENT, 2), (CLOSING, 1)),
        style="fraction", place="bottom right", drawn_as="image", font=LIBERATION_NARROW, size_pt=7.5,
        color=_grey(0xa0), dpi=250, title=COUNT, agenda=COUNT, closing=REPEAT, progress=(130, 60, 200), seed=42,
    ),
    FaintSpec(  # a footer bar with a light grey "N / TOTAL"; unnumbered pages count
        "faint_heldout_bar_fraction_light_grey",
        _kinds((TITLE, 1), (AGENDA, 1), (CONTENT, 4), (DIVIDER, 1), (CONTENT, 3), (OVERLAY, 3), (CONTENT, 3),
               (DIVIDER, 1), (CONTENT, 4), (CLOSING, 1)),
        style="fraction", place="bottom right", drawn_as="image", font=DEJAVU_CONDENSED, size_pt=6.5,
        color=_grey(0xd0), dpi=180, opaque=True, title=NONE, agenda=NONE, closing=NONE, unprinted_count=True,
        bar=(51, 58, 69), footer="Computer Graphics · 2024/25", furniture_color=_grey(0xb8), dark_dividers=True,
        seed=43,
    ),
    FaintSpec(  # Marp with the number at the top right, very light
        "faint_heldout_marp_lone_top_right",
        _kinds((TITLE, 1), (AGENDA, 1), (CONTENT, 6), (OVERLAY, 2), (CONTENT, 3), (DIVIDER, 1), (CONTENT, 5),
               (OVERLAY, 3), (CONTENT, 4), (CLOSING, 1)),
        style="lone", place="top right", drawn_as="vector", font=DEJAVU_CONDENSED, size_pt=8.5,
        color=_grey(0xbb), size=MARP, title=NONE, agenda=COUNT, closing=REPEAT,
        footer="Theoretical Computer Science", furniture_color=_grey(0xb4), seed=44,
    ),
    FaintSpec(  # PowerPoint: a 5 pt number at the bottom centre, a logo, a footer and a date
        "faint_heldout_pptx_lone_bottom_centre_logo",
        _kinds((TITLE, 1), (AGENDA, 1), (CONTENT, 3), (OVERLAY, 2), (CONTENT, 3), (DIVIDER, 1), (CONTENT, 3),
               (OVERLAY, 2), (CONTENT, 2), (DIVIDER, 1), (CONTENT, 3), (CLOSING, 1)),
        style="lone", place="bottom centre", drawn_as="image", font=LIBERATION_SANS, size_pt=5,
        color=_grey(0x80), dpi=240, title=COUNT, agenda=REPEAT, closing=REPEAT, logo="bottom left",
        footer="Signals and Systems", date="2024-10-21", furniture_color=_grey(0xa8), seed=45,
    ),
    FaintSpec(  # Google Slides in 4:3: a narrow "N / TOTAL" at the top right, a logo, the year in the footer
        "faint_heldout_gslides_fraction_top_right_narrow",
        _kinds((TITLE, 1), (AGENDA, 1), (CONTENT, 4), (OVERLAY, 3), (CONTENT, 2), (DIVIDER, 1), (CONTENT, 4),
               (OVERLAY, 2), (CONTENT, 3), (CLOSING, 1)),
        style="fraction", place="top right", drawn_as="vector", font=LIBERATION_NARROW, size_pt=8.5,
        color=_grey(0xb4), size=FOUR_THREE, title=NONE, agenda=NONE, closing=NONE, logo="top left",
        footer="2024/25", furniture_color=_grey(0xc0), seed=46,
    ),
)


def faint_expected(spec: FaintSpec) -> tuple[str | None, ...]:
    """The printed number of every page: content and charts count; overlay steps after the first repeat
    the number; dividers print none; title, agenda and closing pages follow the spec (count, repeat the
    last number printed, or none)."""
    return _faint_numbering(spec)[0]


def _faint_numbering(spec: FaintSpec) -> tuple[tuple[str | None, ...], int]:
    """The printed numbers and the TOTAL of "N / TOTAL" (the counter at the end of the deck)."""
    numbers: list[str | None] = []
    counter, last, previous = 0, None, None
    for kind in spec.kinds:
        rule = {TITLE: spec.title, AGENDA: spec.agenda, CLOSING: spec.closing, DIVIDER: NONE}.get(kind, COUNT)
        if kind == OVERLAY and previous == OVERLAY:
            rule = REPEAT
        if rule == COUNT:
            counter += 1
            last = str(counter)
            numbers.append(last)
        elif rule == REPEAT:
            if last is None:
                raise ValueError(f"{spec.name}: a {kind} page repeats a number before any was printed")
            numbers.append(last)
        else:
            counter += 1 if spec.unprinted_count else 0
            numbers.append(None)
        previous = kind
    return tuple(numbers), counter


def build_faint_decks(folder: Path, which: str = "dev") -> list[GeneratedDeck]:
    """The faint decks of ``FAINT_DEV_SPECS`` (``which="dev"``) or ``FAINT_HELDOUT_SPECS`` (``"heldout"``) in
    ``folder``; a deck already there is kept."""
    specs = {"dev": FAINT_DEV_SPECS, "heldout": FAINT_HELDOUT_SPECS}[which]
    return [build_faint_deck(folder, spec) for spec in specs]


def build_faint_deck(folder: Path, spec: FaintSpec) -> GeneratedDeck:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{spec.name}.pdf"
    expected = faint_expected(spec)
    if not path.exists():
        path.write_bytes(_draw_faint_deck(spec, expected))
    return GeneratedDeck(spec.name, path, expected, spec.describe(), spec.drawn_as)


def _draw_faint_deck(spec: FaintSpec, expected: Sequence[str | None]) -> bytes:
    width, height = spec.size
    pdf = FPDF(unit="mm", format=(width, height))
    pdf.set_auto_page_break(False)
    pdf.set_creation_date(_FIXED_DATE)
    pdf.add_font("dejavu", "", str(SANS))
    pdf.add_font("dejavu", "B", str(SANS_BOLD))
    # the page texts and layout of the first family, for a deck of this size
    layout = DeckSpec(spec.name, spec.kinds, spec.style, spec.place, spec.drawn_as, size=spec.size,
                      logo=spec.logo == "top left", seed=spec.seed)
    total = _faint_numbering(spec)[1]
    count = len(spec.kinds)
    for index, ((title, lines), kind, number) in enumerate(zip(_page_texts(layout), spec.kinds, expected,
                                                               strict=True)):
        pdf.add_page()
        dark = kind == DIVIDER and spec.dark_dividers
        if dark:
            pdf.set_fill_color(35, 45, 65)
            pdf.rect(0, 0, width, height, style="F")
        _text_page(pdf, layout, kind, title, lines, dark)
        furnished = number is not None or kind in (AGENDA, CONTENT, OVERLAY, CHART, CLOSING)
        if spec.progress is not None and index > 0:  # reveal.js: 3 px of a 700 px high slide, growing
            pdf.set_fill_color(*spec.progress)
            thickness = height * 0.0045
            pdf.rect(0, height - thickness, width * index / (count - 1), thickness, style="F")
        if furnished:
            _faint_furniture(pdf, spec)
        if number is not None:
            text = f"{number} / {total}" if spec.style == "fraction" else number
            background = spec.bar if spec.bar is not None and spec.place.startswith("bottom") else (255, 255, 255)
            _faint_mark(pdf, spec, text, spec.place, spec.size_pt, spec.color, background)
    return bytes(pdf.output())


def _bar_height(spec: FaintSpec) -> float:
    return spec.size[1] * 0.06


def _faint_furniture(pdf: FPDF, spec: FaintSpec) -> None:
    width, height = spec.size
    white = (255, 255, 255)
    if spec.bar is not None:
        pdf.set_fill_color(*spec.bar)
        pdf.rect(0, height - _bar_height(spec), width, _bar_height(spec), style="F")
    left_offset = 0.0
    if spec.logo is not None:
        logo = _logo_image(spec.seed)
        w, h = 11.0, 5.5
        x, y = width * 0.02, (height * 0.03 if spec.logo == "top left" else height - height * 0.03 - h)
        _place_image(pdf, logo, x, y, w, h)
        if spec.logo == "bottom left":
            left_offset = w + 3
    bottom_background = spec.bar if spec.bar is not None else white
    if spec.footer:
        _faint_mark(pdf, spec, spec.footer, "bottom left", spec.size_pt, spec.furniture_color, bottom_background,
                    shift=left_offset)
    if spec.date:
        place = "bottom right" if spec.place == "bottom centre" else "bottom centre"
        _faint_mark(pdf, spec, spec.date, place, spec.size_pt, spec.furniture_color, bottom_background)


def _logo_image(seed: int) -> Image.Image:
    """A small two-letter logo: white letters on a coloured rounded box."""
    rng = random.Random(seed)
    colour = (rng.randrange(20, 120), rng.randrange(60, 140), rng.randrange(120, 200))
    image = Image.new("RGB", (260, 130), "white")
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, 259, 129), radius=22, fill=colour)
    font = _font(80, bold=True)
    letters = "".join(rng.choice("ABDEHKLMNRSTUW") for _ in range(2))
    left, top, right, bottom = font.getbbox(letters)
    draw.text(((260 - (right - left)) / 2 - left, (130 - (bottom - top)) / 2 - top), letters, font=font,
              fill="white")
    return image


def _faint_anchor(spec: FaintSpec, place: str, box: tuple[float, float], shift: float = 0.0) -> tuple[float, float]:
    """Top left corner (mm) of a mark of ``box`` size at ``place``: near the page edge, or inside the bar."""
    (width, height), (w, h) = spec.size, box
    if spec.bar is not None and place.startswith("bottom"):
        bar = _bar_height(spec)
        margin_x, y = 4.0, height - bar + (bar - h) / 2
    else:
        margin_x = width * 0.02
        y = height * 0.03 if place.startswith("top") else height - height * 0.03 - h
    if place.endswith("right"):
        x = width - margin_x - w
    elif place.endswith("left"):
        x = margin_x + shift
    else:
        x = (width - w) / 2
    return x, y


def _faint_mark(pdf: FPDF, spec: FaintSpec, text: str, place: str, size_pt: float, color: tuple[int, int, int],
                background: tuple[int, int, int], shift: float = 0.0) -> None:
    if spec.drawn_as == "vector":
        _glyph_path(pdf, spec, text, place, size_pt, color, shift)
        return
    px = size_pt / 72 * spec.dpi
    font = ImageFont.truetype(str(spec.font), px)
    left, top, right, bottom = font.getbbox(text)
    pad = max(2, round(px / 4))
    size = (math.ceil(right - left) + 2 * pad, math.ceil(bottom - top) + 2 * pad)
    coverage = Image.new("L", size, 0)  # anti-aliased: the share of every pixel the glyphs cover
    ImageDraw.Draw(coverage).text((pad - left, pad - top), text, font=font, fill=255)
    ink = Image.new("RGB", size, color)
    if spec.opaque:
        image = Image.composite(ink, Image.new("RGB", size, background), coverage)
    else:
        image = ink.convert("RGBA")
        image.putalpha(coverage)
    w, h = size[0] / spec.dpi * 25.4, size[1] / spec.dpi * 25.4
    x, y = _faint_anchor(spec, place, (w, h), shift)
    _place_image(pdf, image, x, y, w, h)


def _glyph_path(pdf: FPDF, spec: FaintSpec, text: str, place: str, size_pt: float, color: tuple[int, int, int],
                shift: float = 0.0) -> None:
    """``text`` as filled glyph outlines of the spec's font (no text to a PDF reader)."""
    _outline(pdf, spec.font, text, size_pt, color, lambda box: _faint_anchor(spec, place, box, shift))
