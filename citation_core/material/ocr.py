"""Read what is printed in the corners and the footer of slide pages from their rendering (Tesseract OCR).

Used only for decks whose printed numbers are drawn (images, vector paths, scans) instead of written as
text, and only when neither the manifest, ``/PageLabels`` nor the page text numbers the deck (see
``deck.py``). This module reads; ``deck.py`` decides which of the words read are slide numbers.

Each page is rendered (pypdfium2) in two bands: the footer (the bottom 14 % of the page, full width)
and the top right corner. Inside a band, separate groups of ink (a word, "12 / 40", "Folie 7", a tick
label of a chart) are found by cutting along empty rows and columns; every group of text size is cut
out, scaled to one height, and all groups of a page are read in one Tesseract call, one group per line.
What is read is cached per deck content (SHA-256) as JSON in :func:`cache_dir`, so a deck is read once.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import pypdfium2
from PIL import Image, ImageFilter, ImageOps

from . import json_cache
from .cache_paths import OCR_CACHE_ENV, ocr_cache_dir
from .page_geometry import DeclaredPages, declared_page, shown_page
from .pdfium import PDFIUM_LOCK

__all__ = [
    "CACHE_ENV",
    "OcrSegment",
    "Progress",
    "cache_dir",
    "content_digest",
    "file_digest",
    "ocr_unavailable",
    "read_pages",
    "recorded",
    "remember_not_needed",
    "terminal_progress",
]

CACHE_ENV = OCR_CACHE_ENV
FORMAT = 3  # bump when what is stored (bands, scale, segmentation) changes: older entries are read again
# (2: the bands are rendered in colour and turned grey afterwards; 3: small groups rendered again larger,
# bars read as surfaces of their own, every group read at two heights)
MAX_CACHE_ENTRIES = 2000

Progress = Callable[[int, int], None]  # (pages done, pages in all)

# (name, left, top, right, bottom) as fractions of the page, y downwards
BANDS: tuple[tuple[str, float, float, float, float], ...] = (
    ("bottom", 0.0, 0.86, 1.0, 1.0),
    ("top right", 0.6, 0.0, 1.0, 0.14),
)
_PX_PER_MM = 10.0  # rendering resolution of the bands (about 250 dpi)
_MAX_BAND_PX = 4000  # ... lower for huge pages, so that no band is wider or taller than this
_MIN_BAND_PX = 8  # a band narrower or lower than this (a page of a degenerate size) is not read
PROBE_PAGES = 40  # a longer deck is read on only when its first pages look numbered (see ``promising``)
_ROW_GAP_MM = 0.35  # an empty run at least this high separates two lines
_COL_GAP_MM = 2.4  # an empty run at least this wide separates two groups on a line (word gaps are smaller)
_MIN_HEIGHT, _MAX_HEIGHT = 0.007, 0.05  # a group of text size: its height as a fraction of the page height
_MAX_WIDTH = 0.5  # ... and at most half the page wide
_LINE_PX = 40  # each group is scaled to this height before it is read ...
_LINE_HEIGHTS = (_LINE_PX, 56)  # ... and to this one: read at both
_THIN = 0.05  # strokes thinner than this (``_stroke``) are read a third time, thickened
_SHARP_PX = 48  # a group lower than this (in band pixels) is rendered again, this high ...
_MAX_GROW = 6.0  # ... at most this many times the band's scale
_CLEAN_SPREAD = 2.0  # a surface whose pixels stray more than this from its colour (median) is a noisy scan
_CLEAN_CONTRAST, _NOISY_CONTRAST = 16, 60  # grey levels from the surface's colour that count as ink
_SPARSE, _SOLID = 0.04, 0.75  # ink density of a group of text: less is noise spread thin, more a solid box
_RULE_MIN_WIDTH = 0.15  # a row with a stretch of ink this wide (of the page width) is a rule or a bar ...
_RULE_MAX_MM = 1.0  # ... a rule (a progress bar, a line) when at most this high
_MAX_GROUPS = 24  # groups read per page (those farthest from the page's edge are dropped first)
_TESSERACT_CONFIG = "--psm 6 -c tessedit_do_invert=0"

TESSERACT = "tesseract"  # the program pytesseract runs (its default command)


@dataclass(frozen=True)
class OcrSegment:
    """One group of ink read from a band: its text and where it is (fractions of the page, y down)."""

    text: str
    band: str
    x0: float
    y0: float
    x1: float
    y1: float


# --- availability --------------------------------------------------------------------------


_AVAILABLE: dict[str, str | None] = {}
_LOCK = threading.Lock()


def ocr_unavailable() -> str | None:
    """Why the page images cannot be read (no pytesseract, no tesseract program), or None when they can."""
    with _LOCK:
        if "reason" not in _AVAILABLE:
            _AVAILABLE["reason"] = _why_unavailable()
        return _AVAILABLE["reason"]


def _why_unavailable() -> str | None:
    # asked when any deck loads: found without importing pytesseract, which imports pandas when it is installed
    if importlib.util.find_spec("pytesseract") is None:
        return "the Python package pytesseract is not installed"
    if shutil.which(TESSERACT) is None:
        return f"the Tesseract program ({TESSERACT}) is not installed"
    return None


@functools.cache
def engine_version() -> str:
    """The Tesseract version, e.g. "5.3.0" (part of the cache key: another version may read differently)."""
    try:
        out = subprocess.run([TESSERACT, "--version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError) as err:
        raise RuntimeError(f"cannot run {TESSERACT} --version ({err})") from err
    found = re.search(r"tesseract\s+v?(\d+(?:\.\d+)*)", out.stdout + out.stderr, re.IGNORECASE)
    if found is None:
        raise RuntimeError(f"{TESSERACT} --version printed no version")
    return found.group(1)


def terminal_progress(label: str, stream: TextIO | None = None) -> Progress | None:
    """For a command line: redraws ``label: page 5 of 20`` on ``stream`` (default stderr) while pages are
    read, and clears the line at the end; None when the stream is not a terminal (nothing is written)."""
    out = stream if stream is not None else sys.stderr
    try:
        if not out.isatty():
            return None
    except (AttributeError, ValueError):  # a closed or unusual stream
        return None

    def show(done: int, total: int) -> None:
        line = f"{label}: page {done} of {total}"
        out.write("\r" + line)
        if done >= total:
            out.write("\r" + " " * len(line) + "\r")
        out.flush()

    return show


# --- cache ---------------------------------------------------------------------------------


def cache_dir() -> Path:
    """Where read pages are kept: ``$CITATION_STUDIO_OCR_CACHE``, else ``$XDG_CACHE_HOME/citation-studio/ocr``
    (``~/.cache/citation-studio/ocr``)."""
    return ocr_cache_dir()


def content_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


_FILE_DIGESTS: dict[tuple[str, int, int], str] = {}


def file_digest(path: Path) -> str:
    """:func:`content_digest` of a file, remembered while its size and modification time stay."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    with _LOCK:
        known = _FILE_DIGESTS.get(key)
    if known is None:
        known = content_digest(path.read_bytes())
        with _LOCK:
            if len(_FILE_DIGESTS) > 1000:
                _FILE_DIGESTS.clear()
            _FILE_DIGESTS[key] = known
    return known


def _entry_path(digest: str) -> Path:
    return cache_dir() / f"{digest}.json"


def _load_entry(digest: str) -> dict[str, Any] | None:
    """The entry stored for this content when it is one this module writes (see :func:`_valid`), else None: a
    damaged or altered entry counts as missing, so that the deck is read again and the entry rewritten."""
    entry = json_cache.read_entry(_entry_path(digest))
    return entry if _valid(entry) else None


def _valid(entry: Any) -> bool:
    """Whether ``entry`` is ``{"format": FORMAT, "needed": False}``, or ``needed`` true with the Tesseract version
    (``engine``, text) and ``pages``: a list per page of segments, each exactly the fields of an OcrSegment with
    a text, one of the bands, and its box as finite fractions of the page (0 to 1, left above right, top
    above bottom)."""
    if not isinstance(entry, dict) or entry.get("format") != FORMAT or not isinstance(entry.get("needed"), bool):
        return False
    if not entry["needed"]:
        return True
    pages = entry.get("pages")
    return (isinstance(entry.get("engine"), str) and isinstance(pages, list)
            and all(isinstance(page, list) and all(_valid_segment(segment) for segment in page) for page in pages))


_SEGMENT_FIELDS = frozenset({"text", "band", "x0", "y0", "x1", "y1"})
_BAND_NAMES = frozenset(band[0] for band in BANDS)


def _valid_segment(segment: Any) -> bool:
    if not isinstance(segment, dict) or segment.keys() != _SEGMENT_FIELDS:
        return False
    band = segment["band"]
    if not isinstance(segment["text"], str) or not isinstance(band, str) or band not in _BAND_NAMES:
        return False
    box: list[float] = [segment[key] for key in ("x0", "y0", "x1", "y1")]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1 for v in box):
        return False  # NaN fails every comparison
    return box[0] <= box[2] and box[1] <= box[3]


def _store_entry(digest: str, entry: dict[str, Any]) -> None:
    """Write an entry atomically; a cache that cannot be written is no error (the deck is read again)."""
    json_cache.write_entry(_entry_path(digest), entry, MAX_CACHE_ENTRIES)


def recorded(digest: str) -> bool:
    """Whether the deck with this content has been looked at: read, or found not to need reading."""
    return _load_entry(digest) is not None


def remember_not_needed(digest: str) -> None:
    """Note that the deck with this content numbers its pages without the images (nothing to read)."""
    if _load_entry(digest) is None:
        _store_entry(digest, {"format": FORMAT, "needed": False})


def _cached_pages(digest: str, page_count: int) -> list[tuple[OcrSegment, ...]] | None:
    entry = _load_entry(digest)
    if entry is None or not entry.get("needed") or entry.get("engine") != engine_version():
        return None
    pages = entry.get("pages")
    if not isinstance(pages, list) or len(pages) != page_count:
        return None
    return [tuple(OcrSegment(**segment) for segment in page) for page in pages]


# --- reading -------------------------------------------------------------------------------


Promising = Callable[[list[tuple["OcrSegment", ...]]], bool]


def read_pages(path: Path, data: bytes, progress: Progress | None = None,
               promising: Promising | None = None) -> list[tuple[OcrSegment, ...]]:
    """What the footer and top right corner of every page say, from the cache or read now.

    ``data`` is the file's content (the cache key). ``progress(done, total)`` is called after each page
    read. A deck longer than ``PROBE_PAGES`` is read on past them only when ``promising(first pages)``
    says they look numbered; otherwise the rest is left unread (empty), so that a long unnumbered
    deck costs a few seconds, not minutes. Raises RuntimeError (with the reason) when the pages cannot
    be rendered or read.
    """
    reason = ocr_unavailable()
    if reason is not None:
        raise RuntimeError(reason)
    digest = content_digest(data)
    # one thread per Tesseract process: two processes read at once, and OpenMP threads on top only contend
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    with PDFIUM_LOCK:
        document = pypdfium2.PdfDocument(data)
    try:
        with PDFIUM_LOCK:
            count = len(document)
        cached = _cached_pages(digest, count)
        if cached is not None:
            return cached
        pages = _read_document(document, count, progress, promising, DeclaredPages.read(data))
    except pypdfium2.PdfiumError as err:
        raise RuntimeError(f"cannot render the pages ({err})") from err
    finally:
        with PDFIUM_LOCK:
            document.close()
    _store_entry(digest, {"format": FORMAT, "needed": True, "engine": engine_version(), "file": path.name,
                          "pages": [[asdict(s) for s in page] for page in pages]})
    return pages


def _read_document(document: pypdfium2.PdfDocument, count: int, progress: Progress | None,
                   promising: Promising | None = None,
                   declared: DeclaredPages | None = None) -> list[tuple[OcrSegment, ...]]:
    """Render page by page (pdfium is not thread-safe) while Tesseract reads earlier pages in two threads;
    ``declared``: the page boxes as the file says them (``page_geometry``)."""
    results: list[tuple[OcrSegment, ...]] = [() for _ in range(count)]
    done = 0
    pending: list[tuple[int, Future[tuple[OcrSegment, ...]]]] = []

    def collect() -> bool:
        """Take the oldest page read; False when the rest of the deck is not worth reading."""
        nonlocal done
        index, future = pending.pop(0)
        results[index] = future.result()
        done += 1
        if progress is not None:
            progress(done, count)
        return not (done == PROBE_PAGES < count and promising is not None and not promising(results[:done]))

    failed: list[Exception] = []
    with ThreadPoolExecutor(max_workers=2) as pool:
        for index in range(count):
            try:
                with PDFIUM_LOCK:  # rendering only: Tesseract reads outside the lock
                    groups = list(_page_groups(document, index, declared))
            except (pypdfium2.PdfiumError, ValueError) as err:  # this page cannot be rendered: it is skipped
                failed.append(err)
                groups = []
            pending.append((index, pool.submit(_read_groups, groups)))
            while len(pending) > 3:  # keep rendering at most a few pages ahead
                if not collect():
                    return _stopped(results, pending, progress, count)
        while pending:
            if not collect():
                return _stopped(results, pending, progress, count)
    if failed and len(failed) == count:  # not one page: the file, not a page, is at fault
        raise pypdfium2.PdfiumError(str(failed[0]))
    return results


def _stopped(results: list[tuple[OcrSegment, ...]], pending: list[tuple[int, Future[tuple[OcrSegment, ...]]]],
             progress: Progress | None, count: int) -> list[tuple[OcrSegment, ...]]:
    for _, future in pending:
        future.cancel()
    if progress is not None:
        progress(count, count)
    return results


@dataclass(frozen=True)
class _Group:
    image: Image.Image  # greyscale, dark ink on white
    band: str
    box: tuple[float, float, float, float]  # fractions of the page


@dataclass(frozen=True)
class _Ink:
    """A group of ink of text size found in a band: where it is and on what it is drawn."""

    box: tuple[int, int, int, int]  # y0, y1, x0, x1 in the band's pixels
    light_on_dark: bool  # drawn lighter than its surface (white on a dark footer bar)
    noisy: bool  # its surface is noisy (a scan): the crop is smoothed before it is split into ink and paper


def _page_groups(document: pypdfium2.PdfDocument, index: int, declared: DeclaredPages | None) -> Iterator[_Group]:
    page = document[index]
    try:
        geometry = shown_page(page, declared_page(declared, index, len(document)))
        width, height = geometry.size  # in the page's units, as the crops below and the rendering take them
        if width <= 0 or height <= 0:
            return
        unit = geometry.user_unit  # points per unit: the sizes in millimetres are of the page as printed
        tallest = max(bottom - top for _, _, top, _, bottom in BANDS)
        scale = min(_PX_PER_MM * 25.4 / 72 * unit, _MAX_BAND_PX / width, _MAX_BAND_PX / (tallest * height))
        px_per_mm = scale * 72 / 25.4 / unit
        groups: list[_Group] = []
        for name, left, top, right, bottom in BANDS:
            if min((right - left) * width, (bottom - top) * height) * scale < _MIN_BAND_PX:
                continue  # a sliver of a page (2 x 4000 pt): nothing of text size fits in it
            crop = (left * width, (1 - bottom) * height, (1 - right) * width, top * height)
            # in colour, then grey: pdfium's own grey rendering converts every image it draws whole, at its full
            # size (gigabytes for a gigapixel image behind the band), where a colour rendering reads it row by row
            image = page.render(scale=scale, crop=crop).to_pil().convert("L")
            for ink in _band_groups(image, name, (left, top, right, bottom), geometry.size_pt, px_per_mm):
                groups.append(_group(page, (width, height), image, ink, name, (left * width, top * height), scale))
    finally:
        page.close()
    # a page number is the outermost line of its band: when a band is crowded (a table in the footer), the
    # groups nearest the page's edge are read first, and the smaller first among them
    groups.sort(key=lambda g: (round(1 - g.box[3] if g.band == "bottom" else g.box[1], 2),
                               (g.box[3] - g.box[1]) * (g.box[2] - g.box[0])))
    yield from groups[:_MAX_GROUPS]


def _group(page: pypdfium2.PdfPage, size: tuple[float, float], band_image: Image.Image, ink: _Ink, name: str,
           origin_pt: tuple[float, float], scale: float) -> _Group:
    """The group cut out as black ink on white, rendered again larger when it is small (thin, light strokes
    lose their shape at the band's resolution: a 6 pt digit is 14 pixels high there). ``size``: the page's as
    shown, and ``origin_pt`` the band's top left, in the page's units."""
    y0, y1, x0, x1 = ink.box
    width_pt, height_pt = size
    pad = max(2, (y1 - y0) // 4)
    # the group in the page's units, padded, inside the page
    left = max(0.0, origin_pt[0] + (x0 - pad) / scale)
    right = min(width_pt, origin_pt[0] + (x1 + pad) / scale)
    top = max(0.0, origin_pt[1] + (y0 - pad) / scale)
    bottom = min(height_pt, origin_pt[1] + (y1 + pad) / scale)
    box = (origin_pt[0] + x0 / scale) / width_pt, (origin_pt[1] + y0 / scale) / height_pt, \
        (origin_pt[0] + x1 / scale) / width_pt, (origin_pt[1] + y1 / scale) / height_pt
    grow = _SHARP_PX / max(1, y1 - y0)
    # ... never wider than a band may be (a group may be half a poster wide)
    grow = min(grow, _MAX_GROW, _MAX_BAND_PX / max(1e-6, (right - left) * scale))
    if grow > 1.25 and not ink.noisy:
        sharp = scale * grow
        image = page.render(scale=sharp, crop=(left, height_pt - bottom, width_pt - right, top)).to_pil().convert("L")
    else:
        image = band_image.crop((max(0, x0 - pad), max(0, y0 - pad), min(band_image.width, x1 + pad),
                                 min(band_image.height, y1 + pad)))
    if ink.noisy:
        image = image.filter(ImageFilter.MedianFilter(3))
    return _Group(_binary(ImageOps.invert(image) if ink.light_on_dark else image), name, box)


def _band_groups(image: Image.Image, name: str, band: tuple[float, float, float, float],
                 page_size: tuple[float, float], px_per_mm: float) -> Iterator[_Ink]:
    """Groups of ink of text size in one rendered band (``name`` and ``band`` say which band it is)."""
    pixels = np.asarray(image, dtype=np.uint8)
    if pixels.size == 0:
        return
    page_w_px = page_size[0] * 25.4 / 72 * px_per_mm
    page_h_px = page_size[1] * 25.4 / 72 * px_per_mm
    yield from _surface_groups(pixels, (0, pixels.shape[0], 0, pixels.shape[1]), (page_w_px, page_h_px),
                               px_per_mm, nested=False)


def _surface_groups(pixels: np.ndarray, region: tuple[int, int, int, int], page_px: tuple[float, float],
                    px_per_mm: float, nested: bool) -> Iterator[_Ink]:
    """Text-sized groups of ink on one surface: the band's paper, or a bar or box drawn on it (one level down).

    Ink is what differs from the surface's own colour (its most common grey): by a little on a clean
    rendering, so that light grey and thin strokes count; by much on a noisy scan, after smoothing. Long
    thin rules (a progress bar, a line above the footer) are left out, so that a number beside one is not
    joined to it; a solid bar or box is read as a surface of its own (light text on a dark bar)."""
    ry0, ry1, rx0, rx1 = region
    surface = pixels[ry0:ry1, rx0:rx1]
    if surface.size == 0:
        return
    level = int(np.argmax(np.bincount(surface.ravel(), minlength=256)))
    spread = float(np.median(np.abs(surface.astype(np.int16) - level)))
    noisy = spread > _CLEAN_SPREAD
    values = np.asarray(Image.fromarray(surface).filter(ImageFilter.MedianFilter(3))) if noisy else surface
    ink = np.abs(values.astype(np.int16) - level) > (_NOISY_CONTRAST if noisy else _CLEAN_CONTRAST)
    if not ink.any():
        return
    page_w_px, page_h_px = page_px
    panels = _rule_rows(ink, round(_RULE_MIN_WIDTH * page_w_px), round(_RULE_MAX_MM * px_per_mm))
    for y0, y1 in panels:
        if not nested and (y1 - y0) >= _MIN_HEIGHT * page_h_px:
            cols = _runs(np.asarray(ink[y0:y1].any(axis=0)), 1)
            x0, x1 = cols[0][0], cols[-1][1]
            yield from _surface_groups(pixels, (ry0 + y0, ry0 + y1, rx0 + x0, rx0 + x1), page_px, px_per_mm, True)
        ink[y0:y1] = False
    light_on_dark = level < 128
    for y0, y1, x0, x1 in _xy_cut(ink, max(1, round(_ROW_GAP_MM * px_per_mm)), max(1, round(_COL_GAP_MM * px_per_mm))):
        h, w = (y1 - y0) / page_h_px, (x1 - x0) / page_w_px
        density = float(ink[y0:y1, x0:x1].mean())
        if density > _SOLID and not nested and h >= _MIN_HEIGHT and w >= _MIN_HEIGHT * page_h_px / page_w_px:
            # a box drawn on the band (a badge, a bookmark): what is written on it is read against its colour
            inner = max(1, round(0.2 * px_per_mm))
            if y1 - y0 > 2 * inner and x1 - x0 > 2 * inner:
                yield from _surface_groups(pixels, (ry0 + y0 + inner, ry0 + y1 - inner, rx0 + x0 + inner,
                                                    rx0 + x1 - inner), page_px, px_per_mm, True)
            continue
        if not _MIN_HEIGHT <= h <= _MAX_HEIGHT or w > _MAX_WIDTH:
            continue
        if not _SPARSE <= density <= _SOLID:  # specks of noise spread thin, solid boxes and bars
            continue
        yield _Ink((ry0 + y0, ry0 + y1, rx0 + x0, rx0 + x1), light_on_dark, noisy)


def _rule_rows(ink: np.ndarray, min_width: int, max_thin: int) -> list[tuple[int, int]]:
    """Runs of rows crossed by one long stretch of ink (at least ``min_width`` pixels without a gap).

    Runs up to ``max_thin`` rows high are rules and progress bars: their ink is cleared from ``ink``
    here. Thicker runs are bars (a footer bar): returned, for the caller to read as surfaces of their own.
    """
    if ink.shape[1] < min_width or min_width <= 0:
        return []
    # the longest stretch of ink in each row: a running count that restarts at every gap
    counts = np.zeros(ink.shape[0], dtype=np.int64)
    run = np.zeros(ink.shape[0], dtype=np.int64)
    for column in ink.T:
        run = np.where(column, run + 1, 0)
        np.maximum(counts, run, out=counts)
    bars: list[tuple[int, int]] = []
    for y0, y1 in _runs(counts >= min_width, 1):
        if y1 - y0 <= max_thin:
            ink[y0:y1] = False
        else:
            bars.append((y0, y1))
    return bars


def _binary(image: Image.Image) -> Image.Image:
    """Black ink on white, split at the grey level that best separates the two (Otsu's threshold)."""
    pixels = np.asarray(image, dtype=np.uint8)
    counts = np.bincount(pixels.ravel(), minlength=256).astype(np.float64)
    share = counts / counts.sum()
    below = np.cumsum(share)
    mean_below = np.cumsum(share * np.arange(256))
    between = (mean_below[-1] * below - mean_below) ** 2 / (below * (1 - below) + 1e-12)
    threshold = int(np.argmax(between))
    return Image.fromarray(np.where(pixels > threshold, 255, 0).astype(np.uint8))


def _runs(mask: np.ndarray, min_gap: int) -> list[tuple[int, int]]:
    """Runs of True in a 1-D mask, joining runs separated by fewer than ``min_gap`` False."""
    idx = np.flatnonzero(mask)
    if idx.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(idx) > min_gap)
    starts = np.concatenate(([idx[0]], idx[breaks + 1]))
    ends = np.concatenate((idx[breaks], [idx[-1]])) + 1
    return [(int(s), int(e)) for s, e in zip(starts, ends, strict=True)]


def _xy_cut(ink: np.ndarray, row_gap: int, col_gap: int) -> list[tuple[int, int, int, int]]:
    """Boxes (y0, y1, x0, x1) of ink separated by empty rows and columns, cut recursively.

    A row or column counts as empty with fewer than two ink pixels, so that single specks of noise
    do not join what they lie between.
    """
    out: list[tuple[int, int, int, int]] = []
    stack = [(0, ink.shape[0], 0, ink.shape[1])]
    while stack:
        y0, y1, x0, x1 = stack.pop()
        region = ink[y0:y1, x0:x1]
        rows = _runs(region.sum(axis=1) >= 2, row_gap)
        if not rows:
            continue
        if len(rows) > 1 or rows[0] != (0, y1 - y0):
            stack.extend((y0 + a, y0 + b, x0, x1) for a, b in rows)
            continue
        cols = _runs(region.sum(axis=0) >= 2, col_gap)
        if not cols:
            continue
        if len(cols) > 1 or cols[0] != (0, x1 - x0):
            stack.extend((y0, y1, x0 + a, x0 + b) for a, b in cols)
            continue
        out.append((y0, y1, x0, x1))
    return out


def _stroke(image: Image.Image) -> float:
    """How thick the strokes of a black-on-white group are, for its height: about 0.09 for a regular weight,
    0.04 for a thin one (twice the ink's area over its outline, per pixel of height)."""
    ink = np.asarray(image) < 128
    inner = ink.copy()
    inner[1:-1, 1:-1] &= ink[:-2, 1:-1] & ink[2:, 1:-1] & ink[1:-1, :-2] & ink[1:-1, 2:]
    outline = int((ink & ~inner).sum())
    return 2 * float(ink.sum()) / max(1, outline) / max(1, int(ink.shape[0]))


def _read_groups(groups: list[_Group]) -> tuple[OcrSegment, ...]:
    """All groups of one page read in one Tesseract call: each group twice, at two heights (a group of thin
    strokes a third time, thickened), one per line of a composed image. Every reading is kept when they
    differ: Tesseract drops or mistakes a thin "1" at one size and not at another, and the deck-wide rules
    (``deck._image_numbers``) keep the reading that fits the counter."""
    if not groups:
        return ()
    import pytesseract

    lines: list[tuple[int, Image.Image]] = []
    for index, group in enumerate(groups):
        image = group.image
        thin = _stroke(image) < _THIN
        for height in _LINE_HEIGHTS:
            width = max(1, round(image.width * height / max(1, image.height)))
            line = image.resize((min(width, 1600), height), Image.Resampling.LANCZOS)
            lines.append((index, line))
            if height != _LINE_PX and thin:  # and once more in a regular weight (Tesseract knows those best)
                lines.append((index, line.filter(ImageFilter.MinFilter(3))))
    gap, margin = _LINE_PX, 20
    sheet = Image.new("L", (max(i.width for _, i in lines) + 2 * margin,
                            sum(i.height + gap for _, i in lines) + gap), 255)
    spans: list[tuple[int, int]] = []
    y = gap
    for _, line in lines:
        sheet.paste(line, (margin, y))
        spans.append((y - gap // 2, y + line.height + gap // 2))
        y += line.height + gap
    data = pytesseract.image_to_data(sheet, lang="eng", config=_TESSERACT_CONFIG,
                                     output_type=pytesseract.Output.DICT)
    words: list[list[tuple[int, str]]] = [[] for _ in lines]
    for text, left, top, height, conf in zip(data["text"], data["left"], data["top"], data["height"], data["conf"],
                                            strict=True):
        text = str(text).strip()
        if not text or float(conf) < 0:
            continue
        centre = int(top) + int(height) / 2
        for i, (a, b) in enumerate(spans):
            if a <= centre < b:
                words[i].append((int(left), text))
                break
    segments: list[OcrSegment] = []
    seen: set[tuple[int, str]] = set()
    for (index, _), found in zip(lines, words, strict=True):
        text = " ".join(word for _, word in sorted(found))
        if found and (index, text) not in seen:
            seen.add((index, text))
            group = groups[index]
            segments.append(OcrSegment(text, group.band, *(round(v, 4) for v in group.box)))
    return tuple(segments)
