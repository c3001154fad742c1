"""Where a text is drawn on a rendered page, and how much ink a region of the rendering holds.

The region comes from pdfium's own page-to-device transform (``FPDF_PageToDevice``, the matrix its renderer
draws with) applied to the character boxes of the text as pdfium's search finds it: it does not go through
the product's page geometry, so it tells where the line really is on an image of the page.
"""

from __future__ import annotations

import ctypes
import io
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from PIL import Image

Pixels = tuple[int, int, int, int]  # left, top, right, bottom (right and bottom excluded)
INK_CONTRAST = 60  # grey levels between ink and the page's background


def drawn_region(pdf: Path, page_number: int, text: str, size: tuple[int, int]) -> Pixels | None:
    """The pixels where pdfium draws the first occurrence of ``text`` on page ``page_number`` (1-based) when the
    page is rendered ``size`` (width, height) pixels large; None when pdfium's text does not have it."""
    import pypdfium2
    import pypdfium2.raw as pdfium_c

    document = pypdfium2.PdfDocument(str(pdf))
    try:
        page = document[page_number - 1]
        textpage = page.get_textpage()
        found = textpage.search(text, match_case=True).get_next()
        if found is None:
            return None
        first, count = found
        xs: list[int] = []
        ys: list[int] = []
        dx, dy = ctypes.c_int(), ctypes.c_int()
        for index in range(first, first + count):
            left, bottom, right, top = textpage.get_charbox(index)
            if right <= left or top <= bottom:
                continue
            for x, y in ((left, bottom), (left, top), (right, bottom), (right, top)):
                pdfium_c.FPDF_PageToDevice(page, 0, 0, size[0], size[1], 0, x, y, ctypes.byref(dx), ctypes.byref(dy))
                xs.append(dx.value)
                ys.append(dy.value)
        return (min(xs), min(ys), max(xs) + 1, max(ys) + 1) if xs else None
    finally:
        document.close()


def grey(png: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("L"), dtype=np.int16)


def ink_mask(pixels: np.ndarray) -> np.ndarray:
    """Pixels that stand out from the page's background (its most common grey) by ``INK_CONTRAST`` or more."""
    background = int(np.bincount(pixels.ravel()).argmax())
    return np.asarray(np.abs(pixels - background) >= INK_CONTRAST)


def share(mask: np.ndarray, region: Pixels) -> float:
    """The share of ``region``'s pixels that are set in ``mask`` (0 for an empty region)."""
    left, top, right, bottom = region
    part = mask[max(0, top):max(0, bottom), max(0, left):max(0, right)]
    return float(part.mean()) if part.size else 0.0


def covered(region: Pixels, boxes: Iterable[Pixels]) -> float:
    """The share of ``region``'s area inside the union of ``boxes``."""
    left, top, right, bottom = region
    inside = np.zeros((max(0, bottom - top), max(0, right - left)), dtype=bool)
    for b_left, b_top, b_right, b_bottom in boxes:
        inside[max(0, b_top - top):max(0, b_bottom - top), max(0, b_left - left):max(0, b_right - left)] = True
    return float(inside.mean()) if inside.size else 0.0
