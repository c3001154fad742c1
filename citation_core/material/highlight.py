"""Where a citation's evidence stands on the rendered slide: one box per text line, from pdfium's character boxes.

The evidence is a quote of the deck text (read by the deck loader); pdfium's own text of the page
may differ in spacing, line breaks and bullet glyphs. Both are compared as words: each evidence line
is found in pdfium's text as a run of the same words, and the boxes of its characters are joined per
visual line. Boxes are fractions of the page (origin top left), so the viewer can draw them over an
image of any size.
"""

from __future__ import annotations

import bisect
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .models import Cue
from .page_geometry import PageGeometry, shown_pdf_page

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
MIN_WORDS = 1
Rect4 = tuple[float, float, float, float]  # left, top, right, bottom as fractions of the displayed page


@dataclass(frozen=True)
class Box:
    left: float
    top: float
    right: float
    bottom: float

    def to_json(self) -> dict[str, float]:
        return {"left": self.left, "top": self.top, "right": self.right, "bottom": self.bottom}


def _words(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(0).casefold(), m.start(), m.end()) for m in _WORD.finditer(text)]


def _find_run(page_words: list[tuple[str, int, int]], wanted: list[str], start_at: int) -> tuple[int, int] | None:
    """Index range (into ``page_words``) of the first run equal to ``wanted``, searching from ``start_at``."""
    n = len(wanted)
    for i in range(start_at, len(page_words) - n + 1):
        if page_words[i][0] == wanted[0] and [w for w, _, _ in page_words[i : i + n]] == wanted:
            return i, i + n
    return None


MIN_LETTERS = 8  # a line matched letter by letter (see ``_Letters``) needs at least this many


class _Letters:
    """The letters and digits of pdfium's page text, case-folded, each with its index in that text.

    The deck text keeps a raised or lowered character on its line ("O(n3)") where pdfium's own text breaks
    it out ("O(n", "3", ")"): as words they differ, as letters they are the same. A line that is not found
    as a run of words is looked for as a run of letters.
    """

    def __init__(self, text: str) -> None:
        letters: list[str] = []
        self.index: list[int] = []
        for i, char in enumerate(text):
            if char.isalnum():
                for folded in char.casefold():
                    letters.append(folded)
                    self.index.append(i)
        self.text = "".join(letters)

    def find(self, line: str, start_at: int) -> tuple[int, int] | None:
        """Character range (into pdfium's text) of ``line``'s letters, searching from that text's index
        ``start_at``, then from the start."""
        wanted = "".join(c.casefold() for c in line if c.isalnum())
        if len(wanted) < MIN_LETTERS:
            return None
        at = self.text.find(wanted, bisect.bisect_left(self.index, start_at))
        if at < 0:
            at = self.text.find(wanted)
        if at < 0:
            return None
        return self.index[at], self.index[at + len(wanted) - 1] + 1


def _line_boxes(textpage: Any, first: int, last: int, display: PageGeometry) -> list[Box]:
    """The character boxes of pdfium chars ``first..last`` joined per displayed line.

    A character joins a line by its loose box (the font's ascent to descent: the same height for every character
    of a line, so a comma or a subscript that hangs below the others stays on it); the band spans the characters'
    own boxes. Lines run across the page as it is shown, or down it on a page turned by ``/Rotate``.
    """
    chars: list[tuple[Rect4, Rect4]] = []  # (own box, loose box)
    for index in range(first, last):
        left, bottom, right, top = textpage.get_charbox(index)
        if right <= left or top <= bottom:
            continue  # generated spaces and line breaks have no box
        own = display.fractions((left, bottom, right, top))
        l_left, l_bottom, l_right, l_top = textpage.get_charbox(index, loose=True)
        loose = display.fractions((l_left, l_bottom, l_right, l_top)) if l_right > l_left and l_top > l_bottom else own
        chars.append((own, loose))
    down = _runs_down([own for own, _ in chars], display.size)
    if down:  # lines down the page: joined as columns, the same way as rows with x and y swapped
        chars = [(_swap(own), _swap(loose)) for own, loose in chars]
    lines: list[tuple[list[float], list[float]]] = []  # (band, loose extent), [left, top, right, bottom] each
    for own, loose in chars:
        for band, extent in lines:
            overlap = min(loose[3], extent[3]) - max(loose[1], extent[1])
            if overlap > 0.5 * min(loose[3] - loose[1], extent[3] - extent[1]):
                band[:] = [min(band[0], own[0]), min(band[1], own[1]), max(band[2], own[2]), max(band[3], own[3])]
                extent[:] = [min(extent[0], loose[0]), min(extent[1], loose[1]),
                             max(extent[2], loose[2]), max(extent[3], loose[3])]
                break
        else:
            lines.append((list(own), list(loose)))
    bands = [(band[0], band[1], band[2], band[3]) for band, _ in lines]
    bands = [_swap(band) for band in bands] if down else bands
    return [Box(round(max(0.0, a), 4), round(max(0.0, b), 4), round(min(1.0, c), 4), round(min(1.0, d), 4))
            for a, b, c, d in bands]


def _swap(box: Rect4) -> Rect4:
    left, top, right, bottom = box
    return top, left, bottom, right


def _runs_down(boxes: Sequence[Rect4], size: tuple[float, float]) -> bool:
    """Whether the characters (boxes as fractions of a page ``size`` large) follow each other down the page
    rather than across it."""
    width, height = size
    across = sum(abs(b[0] + b[2] - a[0] - a[2]) * width for a, b in zip(boxes, boxes[1:], strict=False))
    down = sum(abs(b[1] + b[3] - a[1] - a[3]) * height for a, b in zip(boxes, boxes[1:], strict=False))
    return down > across


def evidence_boxes(pdf: Path, page_number: int, evidence: str) -> list[Box]:
    """Boxes around each line of ``evidence`` on page ``page_number`` (1-based) of ``pdf``; [] when not found."""
    with shown_pdf_page(pdf, page_number) as (page, display):
        textpage = page.get_textpage()
        text = textpage.get_text_range()
        page_words = _words(text)
        letters: _Letters | None = None
        boxes: list[Box] = []
        cursor = 0  # the word after the last line found
        for line in evidence.splitlines():
            wanted = [w for w, _, _ in _words(line)]
            if len(wanted) < MIN_WORDS:
                continue
            run = _find_run(page_words, wanted, cursor) or _find_run(page_words, wanted, 0)
            if run is not None:
                cursor = run[1]
                boxes += _line_boxes(textpage, page_words[run[0]][1], page_words[run[1] - 1][2], display)
                continue
            letters = letters or _Letters(text)
            found = letters.find(line, page_words[cursor - 1][2] if cursor else 0)
            if found is not None:
                cursor = next((k for k, w in enumerate(page_words) if w[1] >= found[1]), len(page_words))
                boxes += _line_boxes(textpage, found[0], found[1], display)
        return boxes


# --- drawing the evidence -------------------------------------------------------------------------

BAND_RGBA = (255, 196, 0, 92)  # translucent amber: the words stay readable under it
BAND_EDGE_RGBA = (214, 140, 0, 255)


def draw_bands(png: bytes, boxes: Sequence[Box], pad: float = 0.004) -> bytes:
    """``png`` with a translucent band over each box (fractions of the image) and a mark in the left margin.

    Returns the image unchanged when there is no box.
    """
    if not boxes:
        return png
    from PIL import Image, ImageDraw

    with Image.open(io.BytesIO(png)) as opened:
        base = opened.convert("RGBA")
    width, height = base.size
    layer = Image.new("RGBA", base.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    edge = max(2, width // 240)
    for box in boxes:
        left = max(0, round((box.left - pad) * width))
        top = max(0, round((box.top - pad) * height))
        right = min(width - 1, round((box.right + pad) * width))
        bottom = min(height - 1, round((box.bottom + pad) * height))
        if right <= left or bottom <= top:
            continue
        draw.rectangle((left, top, right, bottom), fill=BAND_RGBA)
        draw.rectangle((max(0, left - 2 * edge), top, max(0, left - edge), bottom), fill=BAND_EDGE_RGBA)
    out = io.BytesIO()
    Image.alpha_composite(base, layer).convert("RGB").save(out, format="PNG")
    return out.getvalue()


# --- the evidence in a transcript -------------------------------------------------------------------


def evidence_cues(cues: Sequence[Cue], start: float, end: float | None, quote: str | None) -> list[int]:
    """Indexes of the cues a video citation quotes: the cues of [start, end] whose words the quote has.

    Without a quote (an answer stored before evidence existed), or when no cue of the span matches it,
    every cue of the span; without an end, the cue playing at ``start``.
    """
    if end is not None and end > start:
        span = [i for i, cue in enumerate(cues) if cue.end > start and cue.start < end]
    else:
        span = []
    if not span:
        playing = [i for i, cue in enumerate(cues) if cue.start <= start]
        span = playing[-1:]
    if not quote or not span:
        return span
    said = {w.casefold() for w, _, _ in _words(quote)}
    quoted = []
    for i in span:
        words = [w.casefold() for w, _, _ in _words(cues[i].text)]
        if words and sum(w in said for w in words) >= max(1, 0.6 * len(words)):
            quoted.append(i)
    return quoted or span
