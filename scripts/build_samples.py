#!/usr/bin/env python3
"""Build the Citation Studio sample course into ``sample_decks/``.

The outputs are committed to the repository. Users of the project need none of the
tools below; they are only needed to REBUILD the samples:

* Python packages: fpdf2 (slide PDFs), pypdf (/PageLabels, metadata, checks),
  pypdfium2 (renders slides to video frames), PyYAML (content files), Pillow
* Debian packages: ffmpeg (ffmpeg and ffprobe), espeak-ng (synthetic narration),
  fonts-dejavu-core (DejaVu TTF fonts, so that German umlauts and math symbols render)

Usage::

    python scripts/build_samples.py               # rebuild everything, then check it
    python scripts/build_samples.py --skip-video  # keep existing MP4s (no ffmpeg/espeak-ng needed)
    python scripts/build_samples.py --check       # only check the existing outputs

The teaching content (slides, narration, FAQs, course structure) lives in
``scripts/sample_content/*.yml``; this script only lays it out.

What is built (see sample_decks/README.md, which this script also writes):

* one course "Algorithms and Data Structures" with three lecture units,
* three slide decks (16:9, fpdf2) that number their slides in three different ways:
  - A merge_sort.pdf: printed numbers only in the PDF /PageLabels (nothing visible),
    unnumbered pages get an empty page label (a label dictionary with neither /S nor /P),
  - B hash_tables.pdf: footer text "N / TOTAL", no /PageLabels,
  - C binaere_suchbaeume.pdf (German): footer text "Folie N", no /PageLabels;
  title, agenda and section-divider slides are unnumbered and do not advance the count,
* WebVTT transcripts whose cue times come from the narration text (deterministic),
* MP4 videos: slide images shown according to the unit timeline plus espeak-ng speech
  placed at the cue start times.

Determinism: fixed PDF dates and metadata, cue timing computed from text only, x264 run
single-threaded with bitexact flags. Re-running with the same tool versions gives the
same bytes.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import math
import re
import shutil
import subprocess
import sys
import tempfile
import wave
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from fpdf import FPDF
from fpdf.fonts import FontFace
from pypdf import PdfReader, PdfWriter
from pypdf.generic import ArrayObject, DictionaryObject, NameObject, NumberObject

ROOT = Path(__file__).resolve().parent.parent
CONTENT = Path(__file__).resolve().parent / "sample_content"
OUT = ROOT / "sample_decks"

FIXED_DATE = dt.datetime(2024, 10, 14, 9, 0, 0, tzinfo=dt.UTC)
PDF_DATE = "D:20241014090000Z"
AUTHOR = "Citation Studio sample course (CC BY 4.0)"
SIZE_LIMIT = 8 * 1024 * 1024

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
FONTS = {
    ("Sans", ""): "DejaVuSans.ttf",
    ("Sans", "B"): "DejaVuSans-Bold.ttf",
    ("Mono", ""): "DejaVuSansMono.ttf",
}

# --- slide geometry (PostScript points, 16:9) -------------------------------------------
W, H = 960.0, 540.0
MARGIN = 48.0
TITLE_Y = 34.0
RULE_Y = 82.0
BODY_TOP = 100.0
BODY_BOTTOM = 492.0
FOOTER_RULE_Y = 502.0

NAVY = (0x1B, 0x3A, 0x5C)
ACCENT = (0x2E, 0x86, 0xC1)
TEXT = (0x22, 0x22, 0x22)
GREY = (0x6B, 0x72, 0x80)
LIGHT = (0xF1, 0xF5, 0xF9)
PALE = (0xD6, 0xE8, 0xF5)
WHITE = (0xFF, 0xFF, 0xFF)

# --- video ---------------------------------------------------------------------------
VIDEO_W, VIDEO_H, VIDEO_FPS = 854, 480, 10
RENDER_SCALE = 1.5  # render 1440x810, downscale with lanczos
SAMPLE_RATE = 22050  # espeak-ng native rate
VOICES = {"en": ("en-us", 160), "de": ("de", 150)}  # voice, base words per minute
CHARS_PER_SECOND = {"en": 15.0, "de": 14.0}  # used to derive cue durations from text
MIN_CUE_S, MAX_CUE_S = 3.0, 8.0
SPEECH_GAP_MS = 250  # speech must end this long before the next cue


class BuildError(RuntimeError):
    pass


# ======================================================================================
# Slides
# ======================================================================================


@dataclass
class PageInfo:
    index: int  # 1-based PDF page
    kind: str
    title: str
    printed: str | None  # number printed on the slide (or carried by /PageLabels)
    number_text: str | None  # the footer text drawn on the slide, e.g. "3 / 12"
    texts: list[str] = field(default_factory=list)  # every text block we drew (for checks)


def _plain(text: str) -> str:
    return text.replace("**", "")


class DeckRenderer:
    def __init__(self, spec: dict, glyphs: dict[str, set[int]]):
        self.spec = spec
        self.glyphs = glyphs
        self.lang = spec["language"]
        self.label = spec["label"]
        self.course = self.label.split(" · ")[0]
        pdf = FPDF(orientation="L", unit="pt", format=(H, W))
        pdf.set_creation_date(FIXED_DATE)
        pdf.set_auto_page_break(False)
        pdf.set_margins(MARGIN, MARGIN, MARGIN)
        pdf.c_margin = 0
        for (family, style), name in FONTS.items():
            pdf.add_font(family, style, str(FONT_DIR / name))
        pdf.set_title(spec["title"])
        pdf.set_author(AUTHOR)
        pdf.set_subject(self.course)
        pdf.set_creator("scripts/build_samples.py")
        pdf.set_lang("de-DE" if self.lang == "de" else "en-US")
        self.pdf = pdf
        self.pages: list[PageInfo] = []
        self.current: PageInfo | None = None

    # -- low-level helpers --------------------------------------------------------------
    def _check(self, text: str, family: str) -> None:
        missing = {ch for ch in _plain(text) if ch not in "\n" and ord(ch) not in self.glyphs[family]}
        if missing:
            raise BuildError(f"{self.spec['file']}: glyphs {sorted(missing)} missing in {family} font: {text!r}")
        assert self.current is not None
        self.current.texts.append(_plain(text))

    def _font(self, family: str = "Sans", style: str = "", size: float = 18, color=TEXT) -> None:
        self.pdf.set_font(family, style, size)
        self.pdf.set_text_color(*color)

    def _cell(self, x, y, w, h, text, *, family="Sans", style="", size=18, color=TEXT, align="L"):
        self._check(text, family)
        self._font(family, style, size, color)
        if self.pdf.get_string_width(text) > w + 0.5:
            raise BuildError(f"{self.spec['file']}: text too wide for its box: {text!r}")
        self.pdf.set_xy(x, y)
        self.pdf.cell(w=w, h=h, text=text, align=align)

    def _para(self, x, y, w, text, *, size=18, lh=1.3, style="", color=TEXT, align="L", markdown=True) -> float:
        self._check(text, "Sans")
        self._font("Sans", style, size, color)
        self.pdf.set_xy(x, y)
        self.pdf.multi_cell(w=w, h=size * lh, text=text, align=align, markdown=markdown,
                            new_x="LMARGIN", new_y="NEXT")
        return self.pdf.get_y()

    # -- page frames ----------------------------------------------------------------------
    def new_page(self, kind: str, title: str, printed: str | None) -> None:
        self.pdf.add_page()
        number_text = None
        if printed is not None:
            numbering = self.spec["numbering"]
            if numbering == "of_total":
                number_text = f"{printed} / {self.spec['_total']}"
            elif numbering == "folie":
                number_text = f"Folie {printed}"
            elif numbering != "page_labels":
                raise BuildError(f"unknown numbering {numbering!r}")
        self.current = PageInfo(len(self.pages) + 1, kind, title, printed, number_text)
        self.pages.append(self.current)

    def finish_page(self, kicker_color=GREY) -> None:
        """Draw the kicker (top right) and the footer number. Drawn last, so that text
        extraction gives the slide title first and the printed number last."""
        pdf = self.pdf
        page = self.current
        assert page is not None
        if page.kind != "title":
            self._cell(W - MARGIN - 520, 12, 520, 14, self.label, size=11, color=kicker_color, align="R")
        if page.kind in ("content", "agenda"):
            pdf.set_draw_color(0xD0, 0xD5, 0xDD)
            pdf.set_line_width(0.8)
            pdf.line(MARGIN, FOOTER_RULE_Y, W - MARGIN, FOOTER_RULE_Y)
        if page.number_text:
            self._cell(W - MARGIN - 160, FOOTER_RULE_Y + 10, 160, 18, page.number_text,
                       size=13, color=GREY, align="R")

    # -- slide kinds -------------------------------------------------------------------------
    def title_slide(self, slide: dict) -> None:
        pdf = self.pdf
        self.new_page("title", slide["title"], None)
        pdf.set_fill_color(*NAVY)
        pdf.rect(0, 0, W, H, style="F")
        pdf.set_fill_color(*ACCENT)
        pdf.rect(MARGIN + 72, 238 - 22, 96, 5, style="F")
        y = self._para(MARGIN + 72, 238, W - 2 * MARGIN - 96, slide["title"], size=42, lh=1.2,
                       style="B", color=WHITE, markdown=False)
        self._para(MARGIN + 72, y + 12, W - 2 * MARGIN - 96, slide["subtitle"], size=21, color=PALE,
                   markdown=False)
        licence = ("Beispielmaterial für Citation Studio · Lizenz CC BY 4.0" if self.lang == "de"
                   else "Sample course material for Citation Studio · Licensed CC BY 4.0")
        self._cell(MARGIN + 72, 460, 600, 18, licence, size=12, color=PALE)
        # course name above the title, drawn last
        self._cell(MARGIN + 72, 170, 700, 22, self.course, size=17, style="B", color=(0x8C, 0xC4, 0xEA))
        self.finish_page()

    def divider_slide(self, slide: dict) -> None:
        pdf = self.pdf
        self.new_page("divider", slide["title"], None)
        pdf.set_fill_color(*LIGHT)
        pdf.rect(0, 0, W, H, style="F")
        pdf.set_fill_color(*ACCENT)
        pdf.rect(0, 0, 28, H, style="F")
        y = self._para(MARGIN + 72, 210, W - 2 * MARGIN - 144, slide["title"], size=36, lh=1.2,
                       style="B", color=NAVY, markdown=False)
        if slide.get("subtitle"):
            self._para(MARGIN + 72, y + 10, W - 2 * MARGIN - 144, slide["subtitle"], size=20,
                       color=GREY, markdown=False)
        self.finish_page()

    def content_slide(self, slide: dict, printed: str | None) -> None:
        pdf = self.pdf
        kind = slide["kind"]
        self.new_page(kind, slide["title"], printed)
        pdf.set_fill_color(*ACCENT)
        pdf.rect(0, 0, W, 6, style="F")
        size = 30.0
        self._font("Sans", "B", size)
        while pdf.get_string_width(slide["title"]) > W - 2 * MARGIN and size > 20:
            size -= 1
            self._font("Sans", "B", size)
        self._cell(MARGIN, TITLE_Y, W - 2 * MARGIN, 36, slide["title"], style="B", size=size, color=NAVY)
        pdf.set_draw_color(*ACCENT)
        pdf.set_line_width(1.6)
        pdf.line(MARGIN, RULE_Y, W - MARGIN, RULE_Y)
        y = self.body(MARGIN, BODY_TOP + 4, W - 2 * MARGIN, slide.get("body", []))
        if y > BODY_BOTTOM:
            raise BuildError(f"{self.spec['file']}: slide {slide['title']!r} overflows ({y:.0f} > {BODY_BOTTOM})")
        self.finish_page()

    # -- body elements ---------------------------------------------------------------------
    def body(self, x: float, y: float, w: float, elements: list) -> float:
        for el in elements:
            (key, val), = el.items()
            if key == "bullets":
                y = self.bullets(x, y, w, val)
            elif key == "code":
                y = self.code(x, y, w, val)
            elif key == "table":
                y = self.table(x, y, w, val)
            elif key == "columns":
                left, right = val
                gap = 28
                lw = (w - gap) * 0.54
                y1 = self.body(x, y, lw, left)
                y2 = self.body(x + lw + gap, y, w - lw - gap, right)
                y = max(y1, y2)
            elif key == "tree":
                y = self.tree(x, y, w, val)
            elif key == "chaining":
                y = self.chaining(x, y, w, val["m"], val["keys"])
            elif key == "probing":
                y = self.probing(x, y, w, val["m"], val["keys"])
            elif key == "rotation":
                y = self.rotation(x, y, w, val)
            else:
                raise BuildError(f"unknown body element {key!r}")
        return y

    def bullets(self, x: float, y: float, w: float, items: list, level: int = 0) -> float:
        size = 21.0 if level == 0 else 18.0
        indent = 26.0
        for item in items:
            if isinstance(item, list):
                y = self.bullets(x + 30, y, w - 30, item, level + 1) + 5
                continue
            glyph = "•" if level == 0 else "–"
            self._cell(x, y, indent - 4, size * 1.3, glyph, size=size, color=ACCENT)
            y = self._para(x + indent, y, w - indent, item, size=size)
            y += 8 if level == 0 else 3
        return y

    def code(self, x: float, y: float, w: float, text: str) -> float:
        pdf = self.pdf
        lines = text.rstrip("\n").split("\n")
        size = 16.0
        lh = size * 1.32
        pad = 10.0
        h = len(lines) * lh + 2 * pad
        pdf.set_fill_color(*LIGHT)
        pdf.rect(x, y, w, h, style="F")
        pdf.set_fill_color(*ACCENT)
        pdf.rect(x, y, 4, h, style="F")
        for i, line in enumerate(lines):
            if line.strip():
                self._cell(x + 18, y + pad + i * lh, w - 28, lh, line, family="Mono", size=size)
        return y + h + 12

    def table(self, x: float, y: float, w: float, spec: dict) -> float:
        pdf = self.pdf
        rows = spec["rows"]
        for row in rows:
            for cell in row:
                self._check(cell, "Sans")
        size = 16.5
        self._font("Sans", "", size)
        pdf.set_fill_color(*WHITE)  # rows without zebra fill would otherwise use the current fill colour
        old_margin = pdf.l_margin
        pdf.set_left_margin(x)
        pdf.set_y(y)
        with pdf.table(
            width=w,
            col_widths=spec["widths"],
            align="LEFT",
            text_align="LEFT",
            borders_layout="NONE",
            line_height=size * 1.3,
            padding=(5, 8, 5, 8),
            headings_style=FontFace(emphasis="BOLD", color=WHITE, fill_color=NAVY),
            cell_fill_color=LIGHT,
            cell_fill_mode="ROWS",
        ) as table:
            for row in rows:
                r = table.row()
                for cell in row:
                    r.cell(cell)
        pdf.set_left_margin(old_margin)
        return pdf.get_y() + 14

    # -- drawings ------------------------------------------------------------------------------
    @staticmethod
    def _layout_tree(spec) -> list[dict]:
        """Nodes in preorder; x = in-order index, depth = level. spec: [label, left, right],
        missing children as null; labels starting with "^" are drawn as subtree triangles."""
        counter = [0]

        def build(node, depth):
            if node is None:
                return None
            me = {"label": str(node[0]), "depth": depth}
            left = build(node[1] if len(node) > 1 else None, depth + 1)
            me["x"] = counter[0]
            counter[0] += 1
            right = build(node[2] if len(node) > 2 else None, depth + 1)
            me["children"] = [c for c in (left, right) if c is not None]
            return me

        def preorder(n):
            yield n
            for c in n["children"]:
                yield from preorder(c)

        return list(preorder(build(spec, 0)))

    def _draw_tree(self, x: float, y: float, w: float, spec, *, r: float = 17, vgap: float = 64) -> float:
        pdf = self.pdf
        nodes = self._layout_tree(spec)  # preorder list; nodes[0] is the root
        count = max(n["x"] for n in nodes) + 1
        dx = w / count
        pos = {id(n): (x + dx * (n["x"] + 0.5), y + r + n["depth"] * vgap) for n in nodes}
        pdf.set_draw_color(*GREY)
        pdf.set_line_width(1.4)
        for n in nodes:
            px, py = pos[id(n)]
            for c in n["children"]:
                cx, cy = pos[id(c)]
                pdf.line(px, py, cx, cy)
        maxy = y
        for n in nodes:  # shapes first, labels afterwards (preorder)
            cx, cy = pos[id(n)]
            if n["label"].startswith("^"):
                pdf.set_fill_color(*PALE)
                pdf.set_draw_color(*ACCENT)
                pdf.polygon([(cx, cy - 6), (cx - 22, cy + 34), (cx + 22, cy + 34)], style="DF")
                maxy = max(maxy, cy + 34)
            else:
                pdf.set_fill_color(*WHITE)
                pdf.set_draw_color(*ACCENT)
                pdf.set_line_width(2)
                pdf.ellipse(cx - r, cy - r, 2 * r, 2 * r, style="DF")
                maxy = max(maxy, cy + r)
        for n in nodes:
            cx, cy = pos[id(n)]
            if n["label"].startswith("^"):
                self._cell(cx - 20, cy + 12, 40, 18, n["label"][1:], size=15, color=NAVY, align="C")
            else:
                self._cell(cx - r, cy - 9, 2 * r, 18, n["label"], style="B", size=15, color=NAVY, align="C")
        return maxy

    def tree(self, x: float, y: float, w: float, spec) -> float:
        return self._draw_tree(x, y + 6, w, spec) + 14

    def rotation(self, x: float, y: float, w: float, spec: dict) -> float:
        pdf = self.pdf
        tw = 230.0
        left_x = x + 60
        right_x = x + w - 60 - tw
        y0 = y + 4
        b1 = self._draw_tree(left_x, y0, tw, spec["left"], r=16, vgap=52)
        b2 = self._draw_tree(right_x, y0, tw, spec["right"], r=16, vgap=52)
        mid_l, mid_r = left_x + tw + 30, right_x - 30
        ay = y0 + 52
        pdf.set_draw_color(*NAVY)
        pdf.set_line_width(1.6)
        for yy, direction in ((ay - 8, 1), (ay + 18, -1)):
            pdf.line(mid_l, yy, mid_r, yy)
            tip = mid_r if direction == 1 else mid_l
            pdf.set_fill_color(*NAVY)
            pdf.polygon([(tip, yy), (tip - 9 * direction, yy - 5), (tip - 9 * direction, yy + 5)], style="F")
        self._cell(mid_l, ay - 28, mid_r - mid_l, 16, spec["forward"], family="Mono", size=13,
                   color=NAVY, align="C")
        self._cell(mid_l, ay + 24, mid_r - mid_l, 16, spec["backward"], family="Mono", size=13,
                   color=NAVY, align="C")
        return max(b1, b2) + 16

    def chaining(self, x: float, y: float, w: float, m: int, keys: list[int]) -> float:
        pdf = self.pdf
        chains: list[list[int]] = [[] for _ in range(m)]
        for k in keys:
            chains[k % m].insert(0, k)  # prepend
        row, bw, bh, nw, step = 38.0, 38.0, 28.0, 44.0, 72.0
        pdf.set_line_width(1.3)
        for j, chain in enumerate(chains):
            top = y + 4 + j * row
            self._cell(x, top + 5, 26, 18, str(j), size=14, color=GREY, align="R")
            sx = x + 34
            pdf.set_draw_color(*NAVY)
            pdf.set_fill_color(*LIGHT)
            pdf.rect(sx, top, bw, bh, style="DF")
            if not chain:
                pdf.line(sx, top + bh, sx + bw, top)  # NIL
                continue
            prev_x = sx + bw / 2
            for i, key in enumerate(chain):
                nx = sx + bw + 34 + i * step
                pdf.set_draw_color(*GREY)
                pdf.line(prev_x, top + bh / 2, nx - 2, top + bh / 2)
                pdf.set_fill_color(*GREY)
                pdf.polygon([(nx, top + bh / 2), (nx - 7, top + bh / 2 - 4), (nx - 7, top + bh / 2 + 4)], style="F")
                pdf.set_draw_color(*ACCENT)
                pdf.set_fill_color(*PALE)
                pdf.rect(nx, top, nw, bh, style="DF")
                self._cell(nx, top + 5, nw, 18, str(key), style="B", size=14, color=NAVY, align="C")
                prev_x = nx + nw
            if sx + bw + 34 + len(chain) * step > x + w + 1:
                raise BuildError("chaining drawing too wide")
        return y + 4 + m * row + 8

    def probing(self, x: float, y: float, w: float, m: int, keys: list[int]) -> float:
        pdf = self.pdf
        slots: list[int | None] = [None] * m
        for k in keys:
            i = 0
            while slots[(k + i) % m] is not None:
                i += 1
            slots[(k + i) % m] = k
        cw = min(62.0, w / m)
        bh = 38.0
        x0 = x + (w - cw * m) / 2
        pdf.set_line_width(1.3)
        pdf.set_draw_color(*NAVY)
        for j, key in enumerate(slots):
            pdf.set_fill_color(*(PALE if key is not None else WHITE))
            pdf.rect(x0 + j * cw, y + 6, cw, bh, style="DF")
        for j, key in enumerate(slots):
            if key is not None:
                self._cell(x0 + j * cw, y + 6 + 10, cw, 18, str(key), style="B", size=16, color=NAVY, align="C")
        for j in range(m):
            self._cell(x0 + j * cw, y + 6 + bh + 4, cw, 14, str(j), size=12, color=GREY, align="C")
        return y + 6 + bh + 4 + 14 + 14

    # -- whole deck ---------------------------------------------------------------------------
    def build(self) -> tuple[bytes, list[PageInfo]]:
        slides = self.spec["slides"]
        self.spec["_total"] = sum(1 for s in slides if s["kind"] == "content")
        n = 0
        for slide in slides:
            kind = slide["kind"]
            if kind == "title":
                self.title_slide(slide)
            elif kind == "divider":
                self.divider_slide(slide)
            elif kind == "agenda":
                self.content_slide(slide, None)
            elif kind == "content":
                n += 1
                self.content_slide(slide, str(n))
            else:
                raise BuildError(f"unknown slide kind {kind!r}")
        return bytes(self.pdf.output()), self.pages


def load_glyphs() -> dict[str, set[int]]:
    from fontTools.ttLib import TTFont

    missing = [name for name in FONTS.values() if not (FONT_DIR / name).exists()]
    if missing:
        raise BuildError(f"fonts {missing} not found in {FONT_DIR}: apt-get install fonts-dejavu-core")
    glyphs: dict[str, set[int]] = {}
    for (family, _style), name in FONTS.items():
        cmap = set(TTFont(str(FONT_DIR / name)).getBestCmap())
        glyphs[family] = cmap if family not in glyphs else glyphs[family] & cmap
    return glyphs


def page_label_nums(pages: list[PageInfo]) -> ArrayObject:
    """/PageLabels number tree: a decimal range for each run of consecutively numbered
    pages; an empty label dictionary (no /S, no /P: label is the empty string) for each
    run of unnumbered pages."""
    nums = ArrayObject()
    prev: int | None = None
    for i, page in enumerate(pages):
        cur = int(page.printed) if page.printed is not None else None
        start_range = i == 0 or (cur is None) != (prev is None) or (cur is not None and cur != (prev or 0) + 1)
        if start_range:
            nums.append(NumberObject(i))
            if cur is None:
                nums.append(DictionaryObject())
            else:
                nums.append(DictionaryObject({
                    NameObject("/S"): NameObject("/D"),
                    NameObject("/St"): NumberObject(cur),
                }))
        prev = cur
    return nums


def finalize_pdf(data: bytes, spec: dict, pages: list[PageInfo]) -> bytes:
    """Rewrite with pypdf: fixed metadata, and /PageLabels for decks numbered that way."""
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    if spec["numbering"] == "page_labels":
        writer._root_object[NameObject("/PageLabels")] = DictionaryObject({
            NameObject("/Nums"): page_label_nums(pages)
        })
    writer.add_metadata({
        "/Title": spec["title"],
        "/Author": AUTHOR,
        "/Subject": spec["label"].split(" · ")[0],
        "/Creator": "scripts/build_samples.py (fpdf2)",
        "/Producer": "fpdf2 + pypdf",
        "/CreationDate": PDF_DATE,
        "/ModDate": PDF_DATE,
    })
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


# ======================================================================================
# Transcripts, audio, video
# ======================================================================================


@dataclass
class Cue:
    start_ms: int
    end_ms: int
    text: str
    page: int


def cue_duration_ms(text: str, lang: str) -> int:
    est = 0.6 + len(text) / CHARS_PER_SECOND[lang]
    if est > MAX_CUE_S:
        raise BuildError(f"cue too long ({est:.1f} s), split it: {text!r}")
    est = max(est, MIN_CUE_S)
    return int(round(est * 10)) * 100


def build_cues(spec: dict) -> list[Cue]:
    cues: list[Cue] = []
    t = 0
    for page, slide in enumerate(spec["slides"], start=1):
        say = slide.get("say")
        if not say:
            raise BuildError(f"{spec['file']}: slide {page} has no narration")
        for text in say:
            d = cue_duration_ms(text, spec["language"])
            cues.append(Cue(t, t + d, text, page))
            t += d
    return cues


def timeline(cues: list[Cue]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for c in cues:
        if not out or out[-1][1] != c.page:
            out.append((c.start_ms, c.page))
    return out


def vtt_time(ms: int) -> str:
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, ms = divmod(rest, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}.{ms:03d}"


def write_vtt(path: Path, cues: list[Cue]) -> None:
    lines = ["WEBVTT", ""]
    for i, c in enumerate(cues, start=1):
        lines += [str(i), f"{vtt_time(c.start_ms)} --> {vtt_time(c.end_ms)}", c.text, ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, check=True, capture_output=True, **kw)
    except FileNotFoundError as exc:
        raise BuildError(f"{cmd[0]} not found: apt-get install ffmpeg espeak-ng") from exc
    except subprocess.CalledProcessError as exc:
        raise BuildError(f"{' '.join(cmd[:3])}... failed:\n{exc.stderr.decode(errors='replace')}") from exc


def speak(text: str, lang: str, target_ms: int, tmp: Path) -> bytes:
    """espeak-ng PCM (mono, 16 bit, 22050 Hz) for one cue, sped up until it fits target_ms."""
    voice, speed = VOICES[lang]
    wav_path = tmp / "cue.wav"
    for _ in range(8):
        run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(wav_path), "--stdin"], input=text.encode())
        with wave.open(str(wav_path)) as w:
            if (w.getnchannels(), w.getsampwidth(), w.getframerate()) != (1, 2, SAMPLE_RATE):
                raise BuildError("unexpected espeak-ng WAV format")
            frames = w.readframes(w.getnframes())
        length_ms = len(frames) / 2 / SAMPLE_RATE * 1000
        if length_ms <= target_ms:
            return frames
        speed = math.ceil(speed * length_ms / target_ms) + 3
    raise BuildError(f"cannot fit speech into {target_ms} ms: {text!r}")


def build_audio(cues: list[Cue], lang: str, path: Path, tmp: Path) -> None:
    total = cues[-1].end_ms
    pcm = bytearray(2 * (total * SAMPLE_RATE // 1000))
    for c in cues:
        frames = speak(c.text, lang, c.end_ms - c.start_ms - SPEECH_GAP_MS, tmp)
        at = 2 * (c.start_ms * SAMPLE_RATE // 1000)
        pcm[at:at + len(frames)] = frames
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SAMPLE_RATE)
        w.writeframes(bytes(pcm))


def render_frames(pdf_path: Path, tmp: Path) -> list[Path]:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf_path))
    paths = []
    for i in range(len(doc)):
        img = doc[i].render(scale=RENDER_SCALE).to_pil()
        p = tmp / f"page{i + 1:03d}.png"
        img.save(p)
        paths.append(p)
    doc.close()
    return paths


def build_video(pdf_path: Path, cues: list[Cue], lang: str, out: Path) -> None:
    with tempfile.TemporaryDirectory() as tmpname:
        tmp = Path(tmpname)
        frames = render_frames(pdf_path, tmp)
        wav = tmp / "speech.wav"
        build_audio(cues, lang, wav, tmp)
        tl = timeline(cues)
        total = cues[-1].end_ms
        lines = ["ffconcat version 1.0"]
        for k, (at, page) in enumerate(tl):
            until = tl[k + 1][0] if k + 1 < len(tl) else total
            lines += [f"file '{frames[page - 1].name}'", f"duration {(until - at) / 1000:.3f}"]
        lines.append(f"file '{frames[tl[-1][1] - 1].name}'")  # concat demuxer needs the last file twice
        (tmp / "frames.txt").write_text("\n".join(lines) + "\n")
        run([
            "ffmpeg", "-hide_banner", "-nostdin", "-y",
            "-f", "concat", "-safe", "0", "-i", str(tmp / "frames.txt"),
            "-i", str(wav),
            "-map", "0:v", "-map", "1:a",
            "-vf", f"scale={VIDEO_W}:{VIDEO_H}:flags=lanczos,fps={VIDEO_FPS},format=yuv420p",
            "-c:v", "libx264", "-preset", "slow", "-tune", "stillimage", "-crf", "28",
            "-profile:v", "high", "-g", str(VIDEO_FPS * 30), "-threads", "1",
            "-c:a", "aac", "-b:a", "40k", "-ac", "1", "-ar", str(SAMPLE_RATE),
            "-t", f"{total / 1000:.3f}",
            "-map_metadata", "-1", "-metadata:s:a:0", f"language={'deu' if lang == 'de' else 'eng'}",
            "-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact",
            "-movflags", "+faststart",
            str(out),
        ])


def ffprobe(path: Path) -> dict:
    res = run(["ffprobe", "-v", "error", "-show_format", "-show_streams", "-of", "json", str(path)])
    return json.loads(res.stdout)


# ======================================================================================
# course.yml, faqs.yml, README.md
# ======================================================================================


def q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)  # a JSON string is a valid YAML double-quoted scalar


def fmt_seconds(ms: int) -> str:
    return str(ms // 1000) if ms % 1000 == 0 else f"{ms / 1000:g}"


def write_course_yml(course: dict, units: list[dict]) -> None:
    by_id = {u["id"]: u for u in units}
    out = [
        "# Sample course for Citation Studio. Generated by scripts/build_samples.py; do not edit by hand.",
        "# Paths are relative to this file. timeline: which deck page (1-based PDF index) the video",
        "# shows from which second. Unit 201 has slides only (no video, transcript or timeline).",
        f"id: {course['id']}",
        f"name: {q(course['name'])}",
        f"language: {course['language']}",
        "faqs: faqs.yml",
        "lectures:",
    ]
    for lec in course["lectures"]:
        out += [f"  - id: {lec['id']}", f"    name: {q(lec['name'])}", "    units:"]
        for u0 in lec["units"]:
            u = by_id[u0["id"]]
            out += [
                f"      - id: {u['id']}",
                f"        name: {q(u['name'])}",
                f"        language: {u['language']}",
                f"        deck: {u['deck']}",
            ]
            if u.get("video"):
                out.append(f"        video: {u['video']}")
            if u.get("transcript"):
                out.append(f"        transcript: {u['transcript']}")
            if u.get("timeline"):
                out.append("        timeline:")
                out += [f"          - {{at: {fmt_seconds(at)}, page: {page}}}" for at, page in u["timeline"]]
            out.append("        versions: {attachment: 1, video: 1}")
    (OUT / "course.yml").write_text("\n".join(out) + "\n", encoding="utf-8")


def write_faqs(faqs: list[dict]) -> None:
    ids = [f["id"] for f in faqs]
    if len(set(ids)) != len(ids):
        raise BuildError("duplicate FAQ ids")
    ordered = [{"id": f["id"], "question": f["question"], "answer": f["answer"], "language": f["language"]}
               for f in faqs]
    text = yaml.safe_dump(ordered, allow_unicode=True, sort_keys=False, width=100)
    (OUT / "faqs.yml").write_text(
        "# Course FAQs (generated from scripts/sample_content/faqs.yml).\n" + text, encoding="utf-8")


NUMBERING_DOC = {
    "page_labels": "PDF `/PageLabels` only; no number is visible on the slides. Unnumbered pages "
                   "carry an empty page label (label dictionary with neither `/S` nor `/P`, so "
                   "`pypdf` reports `''`); numbered pages use decimal labels (`/S /D`) with `/St` "
                   "continuing the count after each divider.",
    "of_total": "Printed in the footer as `N / TOTAL` (TOTAL = number of numbered slides); no `/PageLabels`.",
    "folie": "Printed in the footer as `Folie N`; no `/PageLabels`.",
}


def write_readme(course: dict, units: list[dict]) -> None:
    L = [
        "# Sample course: Algorithms and Data Structures",
        "",
        "Generated by `scripts/build_samples.py` from the content in `scripts/sample_content/`.",
        "Do not edit these files by hand; change the content files and rebuild.",
        "",
        "## Contents",
        "",
        "- `course.yml`: the course (id 1) with its lectures, units, timelines and material versions.",
        "- `faqs.yml`: course FAQs (English and German).",
        "- `decks/`: slide decks (PDF, 16:9).",
        "- `transcripts/`: WebVTT transcripts of the narration.",
        "- `videos/`: MP4 videos (H.264 + AAC, 854x480): the slides shown according to the unit",
        "  timeline, with speech synthesized by espeak-ng from the transcript cues. The cue times",
        "  in the VTT are exactly the times at which the speech starts in the video.",
        "",
        "| Unit | Lecture | Language | Deck | Video | Transcript |",
        "|---|---|---|---|---|---|",
    ]
    for u in units:
        L.append(f"| {u['id']} {u['name']} | {u['lecture_name']} | {u['language']} | `{u['deck']}` "
                 f"| {('`' + u['video'] + '`') if u.get('video') else '–'} "
                 f"| {('`' + u['transcript'] + '`') if u.get('transcript') else '–'} |")
    L += [
        "",
        "## Slide numbering",
        "",
        "Every deck starts with an unnumbered title slide and an unnumbered agenda slide and has",
        "unnumbered section-divider slides. Printed numbering starts at 1 on the first content slide;",
        "dividers print nothing and do not advance the count. So the printed slide number and the",
        "PDF page index (1-based, as used in `timeline`) differ.",
        "",
        "On every page the slide title is the first text in the content stream; a small course/unit",
        "label (top right) follows the body, and the printed number (decks B and C) is the very last",
        "text, on its own line.",
        "",
    ]
    for u in units:
        pages = u["pages"]
        L += [f"### Deck {u['letter']}: `{u['deck']}` (unit {u['id']}, {u['language']})", "",
              NUMBERING_DOC[u["numbering"]], ""]
        L.append("| PDF page | " + " | ".join(str(p.index) for p in pages) + " |")
        L.append("|---|" + "---|" * len(pages))
        L.append("| printed | " + " | ".join(p.number_text or (p.printed or "–") if u["numbering"] != "page_labels"
                                            else (p.printed or "–") for p in pages) + " |")
        L.append("| kind | " + " | ".join(p.kind for p in pages) + " |")
        L.append("")
        unnumbered = [str(p.index) for p in pages if p.printed is None]
        L.append(f"Unnumbered PDF pages: {', '.join(unnumbered)}.")
        L.append("")
    L += [
        "Cross-references use printed numbers, as on real slides: deck B says \"Example from slide 7\"",
        "(PDF page 10) and deck C says \"im Baum von Folie 2\" (PDF page 4).",
        "",
        "## Licence",
        "",
        "All content in this directory (slides, narration, transcripts, videos, FAQs) was written for",
        "the Citation Studio project and is licensed under the Creative Commons Attribution 4.0",
        "International licence (CC BY 4.0, https://creativecommons.org/licenses/by/4.0/).",
        "The slides embed subsets of the DejaVu Sans fonts (Bitstream Vera / DejaVu font licence).",
        "",
        "## Rebuilding",
        "",
        "```sh",
        "python scripts/build_samples.py              # everything, followed by checks",
        "python scripts/build_samples.py --skip-video # PDFs, VTTs and YAML only; keeps the MP4s",
        "python scripts/build_samples.py --check      # only run the checks",
        "```",
        "",
        "Rebuilding needs the Python packages fpdf2, pypdf, pypdfium2, PyYAML and Pillow and the",
        "Debian packages ffmpeg, espeak-ng and fonts-dejavu-core. The outputs are committed, so",
        "nothing of this is needed to use the samples. The build is deterministic for fixed tool",
        "versions (fixed PDF dates, cue times computed from the text, single-threaded x264).",
        "",
    ]
    (OUT / "README.md").write_text("\n".join(L), encoding="utf-8")


# ======================================================================================
# Checks
# ======================================================================================


def _squash(s: str) -> str:
    return re.sub(r"\s+", "", s)


def check_deck(path: Path, numbering: str, pages: list[PageInfo] | None, label: str, verbose: bool) -> list[str]:
    reader = PdfReader(str(path))
    problems: list[str] = []
    has_labels = "/PageLabels" in reader.trailer["/Root"]
    if has_labels != (numbering == "page_labels"):
        problems.append(f"{path.name}: /PageLabels present={has_labels}")
    if pages is not None and len(reader.pages) != len(pages):
        problems.append(f"{path.name}: {len(reader.pages)} pages, expected {len(pages)}")
    labels = reader.page_labels if has_labels else None
    if verbose:
        print(f"\n{path.relative_to(ROOT)}: {len(reader.pages)} pages, /PageLabels={has_labels}")
    for i, page in enumerate(reader.pages):
        text = page.extract_text()
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        first, last = lines[0], lines[-1]
        lab = f" label={labels[i]!r}" if labels is not None else ""
        if verbose:
            print(f"  p{i + 1:2d}{lab}: first={first!r}  last={last!r}")
        if pages is None:
            continue
        info = pages[i]
        if _squash(first) != _squash(info.title) and not _squash(info.title).startswith(_squash(first)):
            problems.append(f"{path.name} p{i + 1}: first line {first!r} is not the title {info.title!r}")
        expected_last = info.number_text or label
        if info.kind == "title":
            expected_last = label.split(" · ")[0]
        if last != expected_last:
            problems.append(f"{path.name} p{i + 1}: last line {last!r}, expected {expected_last!r}")
        if info.number_text is None and re.search(r"\d", last):
            problems.append(f"{path.name} p{i + 1}: digits in last line of an unnumbered page")
        squashed = _squash(text)
        for t in info.texts:
            if _squash(t) not in squashed:
                problems.append(f"{path.name} p{i + 1}: text not extracted: {t!r}")
        if labels is not None and labels[i] != (info.printed or ""):
            problems.append(f"{path.name} p{i + 1}: page label {labels[i]!r}, expected {info.printed!r}")
        if numbering == "page_labels" and info.printed and re.search(rf"(^|\s){info.printed}\s*$", text):
            problems.append(f"{path.name} p{i + 1}: page number visible in the text")
    return problems


def parse_vtt(path: Path) -> list[tuple[float, float, str]]:
    cues = []
    blocks = path.read_text(encoding="utf-8").strip().split("\n\n")[1:]
    for b in blocks:
        lines = b.splitlines()
        start, end = lines[1].split(" --> ")

        def sec(t: str) -> float:
            h, m, s = t.split(":")
            return int(h) * 3600 + int(m) * 60 + float(s)

        cues.append((sec(start), sec(end), " ".join(lines[2:])))
    return cues


def check_all(verbose: bool = True, deck_pages: dict | None = None) -> list[str]:
    problems: list[str] = []
    course = yaml.safe_load((OUT / "course.yml").read_text(encoding="utf-8"))
    faqs = yaml.safe_load((OUT / (course["faqs"])).read_text(encoding="utf-8"))
    if len(faqs) < 8 or not any(f["language"] == "de" for f in faqs):
        problems.append("faqs.yml: need >= 8 FAQs, some in German")
    ids = []
    for lec in course["lectures"]:
        for u in lec["units"]:
            ids.append(u["id"])
            content = next(c for c in load_units_content() if c["id"] == u["id"])
            deck = OUT / u["deck"]
            pages = deck_pages.get(u["id"]) if deck_pages else None
            problems += check_deck(deck, content["spec"]["numbering"], pages, content["spec"]["label"], verbose)
            if u.get("transcript"):
                cues = parse_vtt(OUT / u["transcript"])
                durs = [e - s for s, e, _ in cues]
                total = cues[-1][1]
                if verbose:
                    print(f"  {u['transcript']}: {len(cues)} cues, {total:.1f} s, cue length "
                          f"{min(durs):.1f}-{max(durs):.1f} s")
                if not (180 <= total <= 480):
                    problems.append(f"{u['transcript']}: length {total:.1f} s not within 3-8 min")
                if min(durs) < MIN_CUE_S - 1e-6 or max(durs) > MAX_CUE_S + 1e-6:
                    problems.append(f"{u['transcript']}: cue length out of range")
                tl = u["timeline"]
                if tl[0]["at"] != 0 or [t["page"] for t in tl] != list(range(1, len(tl) + 1)):
                    problems.append(f"{u['id']}: timeline must start at 0 and walk the pages in order")
                starts = {round(s, 3) for s, _, _ in cues}
                if any(round(float(t["at"]), 3) not in starts for t in tl):
                    problems.append(f"{u['id']}: timeline entries must coincide with cue starts")
                if u.get("video"):
                    info = ffprobe(OUT / u["video"])
                    dur = float(info["format"]["duration"])
                    v = next(s for s in info["streams"] if s["codec_type"] == "video")
                    a = next(s for s in info["streams"] if s["codec_type"] == "audio")
                    if verbose:
                        print(f"  {u['video']}: {dur:.3f} s, {v['codec_name']} {v['width']}x{v['height']} "
                              f"{v['pix_fmt']}, {a['codec_name']} {a['sample_rate']} Hz, "
                              f"{int(info['format']['bit_rate']) // 1000} kbit/s")
                    if abs(dur - total) > 0.15:
                        problems.append(f"{u['video']}: duration {dur:.3f} s != transcript end {total:.3f} s")
                    if (v["codec_name"], a["codec_name"], v["pix_fmt"]) != ("h264", "aac", "yuv420p"):
                        problems.append(f"{u['video']}: wrong codecs")
                    head = (OUT / u["video"]).read_bytes()[:4096]
                    if head.find(b"moov") < 0 or head.find(b"moov") > head.find(b"mdat") > 0:
                        problems.append(f"{u['video']}: not faststart (moov after mdat)")
    if len(ids) != len(set(ids)):
        problems.append("unit ids not unique")
    size = sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file())
    if verbose:
        print(f"\nsample_decks/ total: {size / 1024 / 1024:.2f} MB")
    if size >= SIZE_LIMIT:
        problems.append(f"sample_decks/ is {size} bytes, limit {SIZE_LIMIT}")
    return problems


# ======================================================================================
# Main
# ======================================================================================


def load_units_content() -> list[dict]:
    course = yaml.safe_load((CONTENT / "course.yml").read_text(encoding="utf-8"))
    units = []
    letters = iter("ABCDEFGH")
    for lec in course["lectures"]:
        for u in lec["units"]:
            spec = yaml.safe_load((CONTENT / u["content"]).read_text(encoding="utf-8"))
            units.append({**u, "lecture_name": lec["name"], "spec": spec, "letter": next(letters)})
    return units


def build(skip_video: bool) -> dict[int, list[PageInfo]]:
    course = yaml.safe_load((CONTENT / "course.yml").read_text(encoding="utf-8"))
    faqs = yaml.safe_load((CONTENT / "faqs.yml").read_text(encoding="utf-8"))
    glyphs = load_glyphs()
    for sub in ("decks", "transcripts") + (() if skip_video else ("videos",)):
        shutil.rmtree(OUT / sub, ignore_errors=True)
        (OUT / sub).mkdir(parents=True)
    (OUT / "videos").mkdir(exist_ok=True)

    units_out = []
    deck_pages: dict[int, list[PageInfo]] = {}
    for u in load_units_content():
        spec = u["spec"]
        stem = Path(spec["file"]).stem
        data, pages = DeckRenderer(spec, glyphs).build()
        data = finalize_pdf(data, spec, pages)
        deck = OUT / "decks" / spec["file"]
        deck.write_bytes(data)
        deck_pages[u["id"]] = pages
        rec = {"id": u["id"], "name": u["name"], "language": spec["language"], "lecture_name": u["lecture_name"],
               "deck": f"decks/{spec['file']}", "pages": pages, "numbering": spec["numbering"],
               "letter": u["letter"]}
        printed = ", ".join(f"{p.index}→{p.number_text or p.printed or '–'}" for p in pages)
        print(f"{deck.relative_to(ROOT)}: {len(pages)} pages  [{printed}]")
        if u.get("transcript"):
            cues = build_cues(spec)
            vtt = OUT / "transcripts" / f"{stem}.vtt"
            write_vtt(vtt, cues)
            rec["transcript"] = f"transcripts/{stem}.vtt"
            rec["timeline"] = timeline(cues)
            print(f"{vtt.relative_to(ROOT)}: {len(cues)} cues, {cues[-1].end_ms / 1000:.1f} s")
            if u.get("video"):
                mp4 = OUT / "videos" / f"{stem}.mp4"
                rec["video"] = f"videos/{stem}.mp4"
                if skip_video:
                    if not mp4.exists():
                        raise BuildError(f"--skip-video but {mp4} does not exist")
                else:
                    build_video(deck, cues, spec["language"], mp4)
                    print(f"{mp4.relative_to(ROOT)}: {mp4.stat().st_size / 1024:.0f} KiB")
        units_out.append(rec)

    write_course_yml(course, units_out)
    write_faqs(faqs)
    write_readme(course, units_out)
    return deck_pages


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--skip-video", action="store_true", help="keep the existing MP4s")
    ap.add_argument("--check", action="store_true", help="only check the existing outputs")
    ap.add_argument("--quiet", action="store_true", help="do not print per-page check output")
    args = ap.parse_args()
    try:
        deck_pages = None if args.check else build(args.skip_video)
        problems = check_all(verbose=not args.quiet, deck_pages=deck_pages)
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for p in problems:
        print(f"PROBLEM: {p}", file=sys.stderr)
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
