"""The page as it is shown: one reading of a page's geometry for everything that renders a page or places
something on it (page images and thumbnails, evidence boxes and the bands drawn from them, the bands of the
rendering read for printed numbers).

The visible box is the MediaBox cut to the CropBox, both inherited through the page tree as the PDF says
(ISO 32000, 7.7.3.4 and 14.11.2). A CropBox that is not four numbers, has no area or lies outside the MediaBox is
ignored (the whole MediaBox shows); a page without a usable MediaBox is US Letter, as readers take it.
``/Rotate`` turns the page clockwise as it is shown; ``/UserUnit`` is the size of one unit in points: it changes
how large the page is, not where anything stands on it.

The entries are read with pypdf (``DeclaredPages``), which walks the page tree to the one page. pdfium is then
told that box (``shown_page``) before anything is rendered or measured, so what it draws and what is placed
over the drawing come from the same numbers. pypdfium2's own ``get_mediabox``/``get_cropbox`` are not used:
they read the page's own dictionary only, and give US Letter for a MediaBox the page inherits.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pypdf
from pypdf.generic import ArrayObject, DictionaryObject

from .pdf_errors import DECRYPT_ERRORS, PDF_ERRORS
from .pdfium import PDFIUM_LOCK, shown_box

Rect = tuple[float, float, float, float]  # left, bottom, right, top in the page's space (PDF units, y up)
LETTER: Rect = (0.0, 0.0, 612.0, 792.0)
_INHERITED = ("/MediaBox", "/CropBox")
_MAX_DEPTH = 64  # levels of the page tree walked (a cycle or a very deep tree ends the walk)
_SAME = 1e-3  # PDF units: boxes closer than this are the same box


@dataclass(frozen=True)
class DeclaredPage:
    """What a page's dictionary says of its boxes, the entries it inherits included; None: missing or unusable."""

    media: Rect | None
    crop: Rect | None
    user_unit: float = 1.0

    def visible_box(self) -> Rect:
        """The MediaBox cut to the CropBox; the whole MediaBox when the CropBox is missing, broken or outside it."""
        media = self.media or LETTER
        if self.crop is None:
            return media
        cut = (max(media[0], self.crop[0]), max(media[1], self.crop[1]),
               min(media[2], self.crop[2]), min(media[3], self.crop[3]))
        return cut if cut[2] - cut[0] > _SAME and cut[3] - cut[1] > _SAME else media


@dataclass(frozen=True)
class PageGeometry:
    """A page as it is shown: its visible box (page space), turned ``rotation`` degrees clockwise."""

    box: Rect
    rotation: int = 0  # 0, 90, 180 or 270
    user_unit: float = 1.0  # points per unit

    @property
    def size(self) -> tuple[float, float]:
        """Width and height as shown, in the page's units."""
        left, bottom, right, top = shown_box(self.box, self.rotation)
        return right - left, top - bottom

    @property
    def size_pt(self) -> tuple[float, float]:
        """Width and height as shown, in points (1/72 inch)."""
        width, height = self.size
        return width * self.user_unit, height * self.user_unit

    def scale_for_width(self, pixels: int) -> float:
        """Pixels per unit for an image of the page ``pixels`` wide."""
        return pixels / self.size[0]

    def fractions(self, rect: Rect) -> tuple[float, float, float, float]:
        """``rect`` (page space) as (left, top, right, bottom) fractions of the page as shown, origin top left."""
        page_left, page_bottom, page_right, page_top = shown_box(self.box, self.rotation)
        left, bottom, right, top = shown_box(rect, self.rotation)
        width, height = page_right - page_left, page_top - page_bottom
        return ((left - page_left) / width, (page_top - top) / height,
                (right - page_left) / width, (page_top - bottom) / height)


def _number(value: Any) -> float | None:
    value = value.get_object() if hasattr(value, "get_object") else value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _rect(value: Any) -> Rect | None:
    """Four numbers with an area, as (left, bottom, right, top); None for anything else."""
    value = value.get_object() if hasattr(value, "get_object") else value
    if not isinstance(value, ArrayObject) or len(value) != 4:
        return None
    numbers = [_number(v) for v in value]
    if any(n is None for n in numbers):
        return None
    x0, y0, x1, y1 = (float(n) for n in numbers)  # type: ignore[arg-type]
    left, bottom, right, top = min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)
    return (left, bottom, right, top) if right - left > _SAME and top - bottom > _SAME else None


class DeclaredPages:
    """The page tree of one PDF as pypdf reads it: each page's boxes on demand, found by walking to that page."""

    def __init__(self, reader: pypdf.PdfReader) -> None:
        self._reader = reader

    @classmethod
    def read(cls, source: Path | bytes) -> DeclaredPages | None:
        """The page tree of ``source`` (a file or its bytes); None when pypdf cannot open it."""
        try:
            reader = pypdf.PdfReader(source if isinstance(source, Path) else io.BytesIO(source))
            if reader.is_encrypted and reader.decrypt("") == pypdf.PasswordType.NOT_DECRYPTED:
                return None
        except DECRYPT_ERRORS:
            return None
        return cls(reader)

    def _root(self) -> Any:
        catalog: Any = self._reader.trailer["/Root"]
        return catalog.get_object()["/Pages"].get_object()

    def count(self) -> int | None:
        """The pages the tree's root counts; None when it cannot be read."""
        try:
            count = _entry(self._root(), "/Count")
        except PDF_ERRORS:
            return None
        return count if isinstance(count, int) and not isinstance(count, bool) else None

    def page(self, index: int) -> DeclaredPage | None:
        """Page ``index`` (0-based); None when the tree does not lead to it."""
        try:
            found = _walk(self._root(), index)
        except PDF_ERRORS:
            return None
        if found is None:
            return None
        page, inherited = found
        unit = _number(_entry(page, "/UserUnit", 1.0))
        return DeclaredPage(media=_rect(inherited.get("/MediaBox")), crop=_rect(inherited.get("/CropBox")),
                            user_unit=unit if unit is not None and unit > 0 else 1.0)


def _entry(node: DictionaryObject, key: str, default: Any = None) -> Any:
    """``node[key]`` with an indirect object resolved; ``default`` when it is missing."""
    value = node.get(key, default)
    return value.get_object() if hasattr(value, "get_object") else value


def _walk(root: Any, index: int) -> tuple[DictionaryObject, dict[str, Any]] | None:
    """The page dictionary at ``index`` under ``root`` (by the ``/Count`` of each subtree) and the entries it has
    or inherits."""
    node, inherited = root, {}
    for _ in range(_MAX_DEPTH):
        if not isinstance(node, DictionaryObject):
            return None
        inherited.update({key: node[key] for key in _INHERITED if key in node})
        kids = _entry(node, "/Kids")
        if _entry(node, "/Type") == "/Page" or kids is None:
            return (node, inherited) if index == 0 else None
        if not isinstance(kids, ArrayObject):
            return None
        for kid in kids:
            kid = kid.get_object()
            if not isinstance(kid, DictionaryObject):
                continue
            pages = _entry(kid, "/Count", 1) if _entry(kid, "/Type") != "/Page" and "/Kids" in kid else 1
            pages = pages if isinstance(pages, int) and not isinstance(pages, bool) and pages >= 0 else 1
            if index < pages:
                node = kid
                break
            index -= pages
        else:
            return None
    return None


def shown_page(page: Any, declared: DeclaredPage | None) -> PageGeometry:
    """The geometry of ``page`` (a pypdfium2 page; the caller holds ``PDFIUM_LOCK``), and pdfium told its
    visible box when pdfium reads the page's boxes otherwise (a broken CropBox). ``declared``: what the PDF
    says of this page (None: pypdf could not read it, and pdfium's reading stands)."""
    import pypdfium2.raw as pdfium_c

    rotation = int(page.get_rotation()) % 360
    if declared is None:
        box = tuple(float(v) for v in page.get_bbox())
        if box[2] - box[0] > _SAME and box[3] - box[1] > _SAME:
            return PageGeometry(box, rotation)  # type: ignore[arg-type]
        pdfium_c.FPDFPage_SetCropBox(page, -1e9, -1e9, 1e9, 1e9)  # a CropBox outside the MediaBox: drop it
        box = tuple(float(v) for v in page.get_bbox())
        if not (box[2] - box[0] > _SAME and box[3] - box[1] > _SAME):
            box = LETTER
            pdfium_c.FPDFPage_SetMediaBox(page, *box)
        return PageGeometry(box, rotation)  # type: ignore[arg-type]
    box = declared.visible_box()
    if any(abs(a - float(b)) > _SAME for a, b in zip(box, page.get_bbox(), strict=True)):
        pdfium_c.FPDFPage_SetMediaBox(page, *box)
        pdfium_c.FPDFPage_SetCropBox(page, *box)
    return PageGeometry(box, rotation, declared.user_unit)


def declared_page(pages: DeclaredPages | None, index: int, count: int) -> DeclaredPage | None:
    """Page ``index`` of ``pages`` when pypdf counts the ``count`` pages pdfium counts (else the two may not mean
    the same page, and pdfium's reading stands)."""
    if pages is None or pages.count() != count:
        return None
    return pages.page(index)


@contextmanager
def shown_pdf_page(pdf: Path, page_number: int,
                   cannot_open: str = "cannot open the PDF") -> Iterator[tuple[Any, PageGeometry]]:
    """Page ``page_number`` (1-based) of ``pdf`` opened with pdfium, and its geometry as shown (pdfium told its
    visible box): every caller that draws or measures a page opens it here. ``PDFIUM_LOCK`` is held while the
    page is in use; page and document are closed after.

    Raises MaterialError naming the file for a file pdfium cannot open (``cannot_open`` says what failed) or a
    page outside it.
    """
    import pypdfium2

    from ..errors import MaterialError

    pages = DeclaredPages.read(pdf)
    with PDFIUM_LOCK:
        try:
            document = pypdfium2.PdfDocument(str(pdf))
        except pypdfium2.PdfiumError as err:
            raise MaterialError(f"{pdf.name}: {cannot_open} ({err})") from err
        try:
            count = len(document)
            if not 1 <= page_number <= count:
                raise MaterialError(f"{pdf.name}: page {page_number} is out of range 1..{count}")
            page = document[page_number - 1]
            try:
                yield page, shown_page(page, declared_page(pages, page_number - 1, count))
            finally:
                page.close()
        finally:
            document.close()


def page_geometry(pdf: Path, page_number: int) -> PageGeometry:
    """The geometry of page ``page_number`` (1-based) of ``pdf``.

    Raises MaterialError naming the file for a file pdfium cannot open or a page outside it.
    """
    with shown_pdf_page(pdf, page_number) as (_, geometry):
        return geometry
