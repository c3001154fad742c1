"""Load a slide deck (PDF): page text, title and the printed slide number of every page.

Printed numbers (DESIGN 3) come from, in order: a manifest override, the PDF's own
``/PageLabels`` (only when the catalog really has them), a number printed in the page text,
a number read from the rendered corners and footer of the pages (OCR, only when nothing before
numbers the deck), else none. Nothing is guessed: a number is only taken from the text or the
images when the whole deck agrees on how it prints its numbers.

The page text comes from pdfium's text page (pypdfium2, 20-30 times faster than pypdf), except on a page
where pdfium's text does not follow the order of the page's content stream: pdfium sorts text that
shares a line by its x position, so a large title set beside the first bullet would come after it and
the page's title (its first line) would change. Such a page, a page where pdfium finds no text, and
every page of a file pdfium cannot open or counts differently are read by pypdf, in stream order, as
before. What was parsed is kept on disk by content (``deck_cache.py``), so a deck is parsed once.

Before any page is parsed, what the pages draw is counted from the PDF's objects (``page_cost.py``: operators
with forms multiplied out, content bytes, image pixels), and a deck that would take minutes or gigabytes to
read (a few kilobytes of nested forms can draw millions of shapes) is refused with one line.
"""

from __future__ import annotations

import ctypes
import functools
import io
import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pypdf

from ..errors import MaterialError
from . import deck_cache, ocr, page_cost
from .deck_cache import ParsedDeck, TextEngine
from .models import Deck, DeckPage, DisplaySource
from .page_geometry import shown_pdf_page
from .pdf_errors import DECRYPT_ERRORS as _DECRYPT_ERRORS
from .pdf_errors import PDF_ERRORS
from .pdfium import PDFIUM_LOCK, shown_box

__all__ = ["Progress", "load_deck", "needs_reading", "render_page_png"]

Progress = Callable[[int, int], None]  # (pages read, pages in all) while the page images are read

# "12 / 40" or "12/40" at the end of a line (a footer run together with other text counts).
_FRACTION = re.compile(r"(?:^|\s)(\d{1,4})\s*/\s*(\d{1,4})$")
# "Folie 12", "Slide 12", "Page 3 of 10" at the end of a line.
_KEYWORD = re.compile(
    r"(?:^|[\s|·–—-])(?:folie|slide|seite|page|diapositive|diapositiva|dia)\s+(\d{1,4})"
    r"(?:\s*(?:/|of|von|de|di|sur)\s*\d{1,4})?$",
    re.IGNORECASE,
)
_LONE = re.compile(r"\d{1,4}")
_BULLETS = "•●○◦■□▪▫‣⁃►▶➢✓–-*"
_TITLE_MAX = 120

# pdfium is not thread-safe: the calls made here (text pages, thumbnails) take turns


@dataclass(frozen=True)
class _PageClues:
    """Printed-number clues found in one page's text."""

    last_line: str | None
    lone: int | None
    fractions: tuple[tuple[int, int], ...]
    keywords: tuple[int, ...]


def load_deck(path: Path, overrides: Mapping[int, str | None] | None = None, *,
              progress: Progress | None = None, read_images: bool = True,
              text_engine: TextEngine = "pdfium", cache: bool = True) -> Deck:
    """Read a PDF deck. ``overrides`` maps a 1-based page number to its printed number (or None).

    When neither the overrides, ``/PageLabels`` nor the page text number the deck, the corners and
    footer of the rendered pages are read (OCR, cached per file content; ``read_images=False`` skips
    it) and ``progress(done, total)`` is called after each page read.

    The page text and titles and the ``/PageLabels`` are parsed once per file content and kept on disk
    (``deck_cache``; ``cache=False`` neither reads nor writes it). ``text_engine="pypdf"`` reads every
    page with pypdf, the former way (for comparisons; it bypasses the cache).

    Raises MaterialError (naming the file, and the page where relevant) for a missing file,
    a non-PDF, an encrypted, corrupt or truncated PDF, a PDF without any extractable text, or one too
    costly to read (see ``page_cost``).
    """
    name = path.name
    data = _read(path)
    cached = cache and text_engine == "pdfium"
    digest = ocr.content_digest(data)
    parsed = deck_cache.load(digest) if cached else None
    if parsed is not None and _page_count(data) not in (None, len(parsed.texts)):
        parsed = None  # an entry that disagrees with the file it claims to describe is not trusted
    if parsed is None:
        parsed = _parse(name, data, text_engine)
        if cached:
            deck_cache.store(digest, parsed, name)

    texts = parsed.texts
    unreadable = dict(parsed.page_problems)
    warnings = [f"{name}: page {i}: its text cannot be read ({unreadable[i]}); the page is kept without text"
                if i in unreadable else f"{name}: page {i}: no extractable text (image-only page?)"
                for i, text in enumerate(texts, start=1) if not text]
    if parsed.labels_problem is not None:
        warnings.append(f"{name}: {parsed.labels_problem}")
    images = _ImageReader(path, data, progress) if read_images else None
    numbers = _display_numbers(texts, parsed.labels, dict(overrides or {}), name, warnings, images)
    pages = tuple(
        DeckPage(
            page_number=i,
            display_page_number=number,
            display_source=source,
            text=text,
            title=title,
        )
        for i, (text, title, (number, source)) in enumerate(zip(texts, parsed.titles, numbers, strict=True), start=1)
    )
    return Deck(path=path, pages=pages, warnings=tuple(warnings))


def _page_count(data: bytes) -> int | None:
    """The number of pages pdfium counts in the PDF (milliseconds: only the page tree is read); None when it
    cannot open it."""
    import pypdfium2

    with PDFIUM_LOCK:
        try:
            document = pypdfium2.PdfDocument(data)
        except pypdfium2.PdfiumError:
            return None
        try:
            return len(document)
        finally:
            document.close()


def _parse(name: str, data: bytes, text_engine: TextEngine = "pdfium") -> ParsedDeck:
    """The text, title and text engine of every page, and the /PageLabels (MaterialError when unreadable)."""
    reader = _reader(name, data)
    try:
        page_objects = list(reader.pages)
    except PDF_ERRORS as err:
        raise MaterialError(f"{name}: corrupt PDF: cannot read its page tree ({err})") from err
    if not page_objects:
        raise MaterialError(f"{name}: the PDF has no pages (corrupt or truncated?)")

    # what the pages draw, forms multiplied out: a deck that would take minutes or gigabytes to read is refused
    # before any page is parsed
    costs = page_cost.check_deck(name, page_objects)
    fast = _pdfium_texts(name, data, len(page_objects)) if text_engine == "pdfium" else None
    page_cost.check_stream_order(name, costs, [index for index in range(1, len(page_objects) + 1)
                                               if fast is None or fast[index - 1] is None])
    texts: list[str] = []
    engines: list[TextEngine] = []
    problems: list[tuple[int, str]] = []
    for index, page in enumerate(page_objects, start=1):
        known = fast[index - 1] if fast is not None else None
        if known is not None:
            texts.append(known)
            engines.append("pdfium")
            continue
        try:
            texts.append(_normalize(page.extract_text()))
        except PDF_ERRORS as err:  # a bad page never breaks its deck: it stays, without text
            texts.append("")
            problems.append((index, " ".join(f"{type(err).__name__}: {err}".split())[:200]))
        engines.append("pypdf")

    if not any(texts):
        raise MaterialError(
            f"{name}: no extractable text on any of its {len(texts)} pages (scanned or image-only PDF?)"
        )
    labels, problem = _page_labels(reader, len(texts))
    return ParsedDeck(
        texts=tuple(texts),
        titles=tuple(_title(text) for text in texts),
        engines=tuple(engines),
        labels=tuple(labels) if labels is not None else None,
        labels_problem=problem,
        page_problems=tuple(problems),
    )


def render_page_png(path: Path, page_number: int, width: int = 320) -> bytes:
    """Render one page (1-based) as a PNG image ``width`` pixels wide: its visible box as shown
    (``page_geometry``)."""
    name = path.name
    if width < 1:
        raise MaterialError(f"{name}: thumbnail width must be positive, got {width}")
    _check_file(path)
    import pypdfium2

    try:
        with shown_pdf_page(path, page_number, "cannot open the PDF for rendering") as (page, geometry):
            image = page.render(scale=geometry.scale_for_width(width)).to_pil()
    except pypdfium2.PdfiumError as err:
        raise MaterialError(f"{name}: page {page_number}: cannot render ({err})") from err
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


# --- opening -------------------------------------------------------------------------------


def _check_file(path: Path) -> None:
    if not path.exists():
        raise MaterialError(f"{path.name}: file not found ({path})")
    if not path.is_file():
        raise MaterialError(f"{path.name}: not a file ({path})")


def needs_reading(path: Path) -> bool:
    """Whether loading this deck would still read page images (it was never loaded with this content).

    False when the images cannot be read at all (no Tesseract) or the file cannot be read.
    """
    if ocr.ocr_unavailable() is not None:
        return False
    try:
        return not ocr.recorded(ocr.file_digest(path))
    except OSError:
        return False


class _ImageReader:
    """Reads the page images of one deck on demand (only when the deck needs it), remembers the decision."""

    def __init__(self, path: Path, data: bytes, progress: Progress | None) -> None:
        self.path, self.data, self.progress = path, data, progress

    def not_needed(self) -> None:
        if ocr.ocr_unavailable() is None:
            ocr.remember_not_needed(ocr.content_digest(self.data))

    def read(self, warnings: list[str]) -> list[tuple[ocr.OcrSegment, ...]] | None:
        reason = ocr.ocr_unavailable()
        if reason is not None:
            warnings.append(f"{self.path.name}: printed numbers drawn on the pages cannot be read: {reason}")
            return None
        try:
            return ocr.read_pages(self.path, self.data, self.progress, _looks_numbered)
        except (RuntimeError, OSError, ValueError) as err:  # a page that cannot be rendered or read
            warnings.append(f"{self.path.name}: printed numbers drawn on the pages cannot be read ({err})")
            return None


def _read(path: Path) -> bytes:
    """The file's bytes, once they look like a PDF."""
    name = path.name
    _check_file(path)
    data = path.read_bytes()
    if not data:
        raise MaterialError(f"{name}: empty file, not a PDF")
    if b"%PDF-" not in data[:1024]:
        raise MaterialError(f"{name}: not a PDF file (no %PDF header)")
    return data


def _reader(name: str, data: bytes) -> pypdf.PdfReader:
    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
    except PDF_ERRORS as err:
        raise MaterialError(f"{name}: corrupt or truncated PDF ({err})") from err
    if reader.is_encrypted:
        try:
            opened = reader.decrypt("")
        except _DECRYPT_ERRORS as err:
            raise MaterialError(f"{name}: encrypted PDF that cannot be opened ({err})") from err
        if opened == pypdf.PasswordType.NOT_DECRYPTED:
            raise MaterialError(f"{name}: encrypted PDF: a password is required to open it")
    return reader


def _pdfium_texts(name: str, data: bytes, count: int) -> list[str | None] | None:
    """Each page's text as pdfium reads it, None for a page left to pypdf (pdfium reorders its text or
    finds none); None for the whole file when pdfium cannot open or read it or counts other than ``count``
    pages. MaterialError when the pages hold more than ``page_cost.MAX_DECK_CHARS`` characters of text
    (told as each text page is built, before its characters are gone through one by one)."""
    import pypdfium2

    calls = _pdfium_calls()
    chars = 0

    with PDFIUM_LOCK:
        try:
            document = pypdfium2.PdfDocument(data)
        except pypdfium2.PdfiumError:
            return None
        try:
            if len(document) != count:
                return None
            texts: list[str | None] = []
            for index in range(count):
                page = document[index]
                try:
                    textpage = page.get_textpage()
                    try:
                        chars += calls.char_count(ctypes.cast(textpage.raw, ctypes.c_void_p).value)
                        if chars > page_cost.MAX_DECK_CHARS:
                            raise MaterialError(
                                f"{name}: its first {index + 1} pages hold more than {page_cost.MAX_DECK_CHARS:,} "
                                "characters of text: too costly to read, refused")
                        text = _normalize(_spaced_text(textpage, page.get_rotation()).replace("\ufffe", ""))
                        texts.append(text if text and _in_stream_order(page, textpage) else None)
                    finally:
                        textpage.close()
                finally:
                    page.close()
            return texts
        except (pypdfium2.PdfiumError, ValueError, OSError):
            return None
        finally:
            document.close()


SPACE_EM = 0.25  # the width of a space, in font sizes, where pdfium added one between two text objects


def _spaced_text(textpage: Any, rotation: int = 0) -> str:
    """The page's text as pdfium reads it, its spaces and line breaks where they stand on the page.

    - pdfium keeps one space where the PDF has several (the columns of a table, the indent and the comment
      of a pseudo-code line), so "1  if p < r        // at least two" would read as a sentence. A space is
      repeated as often as its own width fits between it and the next character, as pypdf's text has it;
      a space pdfium added between two text objects far apart (table cells) stands for the gap as well.
    - pdfium breaks the line before and after a raised or lowered character ("O(n³)" as "O(n", "3", ")").
      A break it added between two characters that share a line on the page (their boxes overlap in
      height, the second to the right of the first) is taken out, leaving a space where they stand apart.

    Left, right and height are as the page is shown (``rotation``, clockwise degrees; ``pdfium.shown_box``).
    """
    calls = _pdfium_calls()
    address = ctypes.cast(textpage.raw, ctypes.c_void_p).value
    # pdfium marks a hyphen at a line break as 2 (its text API as U+FFFE)
    chars = [chr(calls.unicode(address, index)).replace("\x02", "\ufffe")
             for index in range(calls.char_count(address))]

    def box(index: int) -> tuple[float, float, float, float]:
        return shown_box(textpage.get_charbox(index), rotation)

    for index in range(1, len(chars) - 1):
        if chars[index] == " " and chars[index + 1] not in " \r\n":
            left, _, right, _ = box(index)
            width = right - left
            if width > 0:  # how many more spaces fit between this one and the next character
                more = int((box(index + 1)[0] - right) / width + 0.3)
                chars[index] = " " * (1 + max(0, more))
            elif calls.generated(address, index):  # a space pdfium put between two text objects
                width = SPACE_EM * calls.font_size(address, index - 1)
                gap = box(index + 1)[0] - box(index - 1)[2]
                if width > 0 and gap > 2 * width:  # the columns of a table
                    chars[index] = " " * round(gap / width)
        elif (chars[index] == "\r" and index + 2 < len(chars) and chars[index + 1] == "\n"
              and calls.generated(address, index) and not chars[index - 1].isspace()
              and not chars[index + 2].isspace()):
            joiner = _same_line(box(index - 1), box(index + 2))
            if joiner is not None:
                chars[index], chars[index + 1] = joiner, ""
    return "".join(chars)


def _same_line(before: tuple[float, ...], after: tuple[float, ...]) -> str | None:
    """"" or " " when the character boxed ``after`` (left, bottom, right, top) continues the line of the one
    boxed ``before`` (touching it, or a space apart); None when it starts another line."""
    left_b, bottom_b, right_b, top_b = before
    left_a, bottom_a, _, top_a = after
    height = min(top_b - bottom_b, top_a - bottom_a)
    if height <= 0 or min(top_b, top_a) - max(bottom_b, bottom_a) <= 0 or left_a < right_b - 0.2 * height:
        return None
    gap = left_a - right_b
    if gap > 3 * height:  # a column further right, not the rest of this line
        return None
    return " " if gap > 0.2 * max(top_b - bottom_b, top_a - bottom_a) else ""


def _in_stream_order(page: Any, textpage: Any) -> bool:
    """Whether every character of pdfium's text comes from the same or a later text object of the page's
    content stream (form XObjects in place) than the character before it.

    pdfium joins text objects that share a line and sorts them by x position; pypdf keeps the stream
    order. Only where pdfium moved nothing do both put the same lines in the same order.
    """
    calls = _pdfium_calls()
    page_address = ctypes.cast(page.raw, ctypes.c_void_p).value
    order: dict[int, int] = {}
    stack: list[tuple[int | None, int, int]] = [(None, calls.page_count(page_address), 0)]
    while stack:  # depth first, in stream order
        form, count, index = stack.pop()
        if index >= count:
            continue
        stack.append((form, count, index + 1))
        item = calls.page_object(page_address, index) if form is None else calls.form_object(form, index)
        if item is None:
            continue
        kind = calls.kind(item)
        if kind == calls.TEXT:
            order[item] = len(order)
        elif kind == calls.FORM:
            stack.append((item, calls.form_count(item), 0))

    text_address = ctypes.cast(textpage.raw, ctypes.c_void_p).value
    last = -1
    for index in range(calls.char_count(text_address)):
        key = calls.char_object(text_address, index)
        if key is None:  # a space or line break pdfium added
            continue
        position = order.get(key)
        if position is None or position < last:  # not found among the page's objects: cannot tell
            return False
        last = position
    return True


@dataclass(frozen=True)
class _PdfiumCalls:
    """The pdfium functions the order check calls, taking and giving handles as plain addresses (ints): the
    same C functions, without a pointer object built and cast for each of a page's thousands of objects and
    characters."""

    page_count: Callable[[int | None], int]
    page_object: Callable[[int | None, int], int | None]
    form_count: Callable[[int], int]
    form_object: Callable[[int, int], int | None]
    kind: Callable[[int], int]
    char_count: Callable[[int | None], int]
    char_object: Callable[[int | None, int], int | None]
    unicode: Callable[[int | None, int], int]
    generated: Callable[[int | None, int], int]
    font_size: Callable[[int | None, int], float]
    TEXT: int
    FORM: int


@functools.cache
def _pdfium_calls() -> _PdfiumCalls:
    import pypdfium2.raw as pdfium_c

    handle, number = ctypes.c_void_p, ctypes.c_int

    def plain(function: Any, result: Any, *arguments: Any) -> Any:
        return ctypes.CFUNCTYPE(result, *arguments)(ctypes.cast(function, ctypes.c_void_p).value or 0)

    return _PdfiumCalls(
        page_count=plain(pdfium_c.FPDFPage_CountObjects, number, handle),
        page_object=plain(pdfium_c.FPDFPage_GetObject, handle, handle, number),
        form_count=plain(pdfium_c.FPDFFormObj_CountObjects, number, handle),
        form_object=plain(pdfium_c.FPDFFormObj_GetObject, handle, handle, ctypes.c_ulong),
        kind=plain(pdfium_c.FPDFPageObj_GetType, number, handle),
        char_count=plain(pdfium_c.FPDFText_CountChars, number, handle),
        char_object=plain(pdfium_c.FPDFText_GetTextObject, handle, handle, number),
        unicode=plain(pdfium_c.FPDFText_GetUnicode, ctypes.c_uint, handle, number),
        generated=plain(pdfium_c.FPDFText_IsGenerated, number, handle, number),
        font_size=plain(pdfium_c.FPDFText_GetFontSize, ctypes.c_double, handle, number),
        TEXT=pdfium_c.FPDF_PAGEOBJ_TEXT,
        FORM=pdfium_c.FPDF_PAGEOBJ_FORM,
    )


_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _normalize(text: str) -> str:
    """Line ends made plain, NULs removed, and a lone surrogate (a PowerPoint export's broken text layer) an
    unknown character: text that cannot be encoded never reaches the cache, an index or a page."""
    text = _LONE_SURROGATE.sub("\ufffd", text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", ""))
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.split("\n") if line.strip()]


def _page_labels(reader: pypdf.PdfReader, count: int) -> tuple[list[str | None] | None, str | None]:
    """The /PageLabels of the PDF, or None when the catalog has none (pypdf would say 1..N); and why they
    were ignored, if they were."""
    try:
        if "/PageLabels" not in reader.root_object:
            return None, None
        labels = list(reader.page_labels)
    except PDF_ERRORS as err:  # a broken label tree: ignore it, say so
        return None, f"unreadable /PageLabels ignored ({err})"
    if len(labels) != count:
        return None, "/PageLabels do not cover every page; ignored"
    return [label.strip() or None for label in labels], None


# --- printed numbers -----------------------------------------------------------------------


# What may follow a printed number without being part of it: invisible characters (format, unassigned,
# private-use, control, separators), the unknown character, and one stray glyph of no word (DeckTape's
# reveal.js decks read "5 / 43 \u0e00")
_INVISIBLE = frozenset({"Cf", "Cn", "Co", "Cs", "Cc", "Zs", "Zl", "Zp"})


def _without_stray_tail(line: str) -> str:
    """The line without the invisible characters and the one stray glyph after its last word or number."""
    def strip_invisible(text: str) -> str:
        end = len(text)
        while end and (unicodedata.category(text[end - 1]) in _INVISIBLE or text[end - 1] in "\ufffd\ufffe"):
            end -= 1
        return text[:end]

    line = strip_invisible(line)
    head, _, last = line.rpartition(" ")
    if head and len(last) == 1 and not last.isascii() and not last.isalnum():
        line = strip_invisible(head)
    elif head and len(last) == 1 and unicodedata.category(last) == "Lo" and not head[-1:].isalpha():
        line = strip_invisible(head)  # one letter of another script after a number: a glyph, not a word
    return line


def _clues(text: str) -> _PageClues:
    lines = [cleaned for line in _lines(text) if (cleaned := _without_stray_tail(line))]
    last = lines[-1] if lines else None
    fractions: list[tuple[int, int]] = []
    keywords: list[int] = []
    for line in lines:
        if match := _FRACTION.search(line):
            fractions.append((int(match.group(1)), int(match.group(2))))
        if match := _KEYWORD.search(line):
            keywords.append(int(match.group(1)))
    lone = int(last) if last is not None and _LONE.fullmatch(last) else None
    return _PageClues(last, lone, tuple(fractions), tuple(keywords))


def _display_numbers(
    texts: Sequence[str],
    labels: Sequence[str | None] | None,
    overrides: dict[int, str | None],
    name: str,
    warnings: list[str],
    images: _ImageReader | None = None,
) -> list[tuple[str | None, DisplaySource]]:
    count = len(texts)
    for page_number in sorted(p for p in overrides if not 1 <= p <= count):
        warnings.append(f"{name}: display number override for page {page_number} ignored: the deck has {count} pages")
    clues = [_clues(text) for text in texts]
    text_numbers = _text_numbers(clues, count)
    label_shown = _labels_shown(clues, labels, texts)
    image_numbers: list[str | None] = [None] * count
    if images is not None:
        numbered = labels is not None or any(n is not None for n in text_numbers)
        if numbered or all(p in overrides for p in range(1, count + 1)):
            images.not_needed()
        else:
            segments = images.read(warnings)
            if segments is not None:
                image_numbers = _image_numbers(segments)

    result: list[tuple[str | None, DisplaySource]] = []
    for index in range(count):
        page_number = index + 1
        if page_number in overrides:
            result.append((overrides[page_number], "manifest"))
        elif labels is not None and labels[index] is not None:
            shown = label_shown[index] if label_shown is not None else True
            result.append((labels[index], "page_labels") if shown else (None, "none"))
        elif text_numbers[index] is not None:
            result.append((text_numbers[index], "text"))
        elif image_numbers[index] is not None:
            result.append((image_numbers[index], "ocr"))
        else:
            result.append((None, "none"))

    if labels is not None and label_shown is None:
        disagree = [
            i + 1 for i in range(count) if text_numbers[i] is not None and labels[i] not in (None, text_numbers[i])
        ]
        if disagree:
            warnings.append(
                f"{name}: /PageLabels differ from the numbers printed on {len(disagree)} "
                f"pages (first: page {disagree[0]}); using /PageLabels"
            )
    return result


def _labels_shown(
    clues: Sequence[_PageClues], labels: Sequence[str | None] | None, texts: Sequence[str]
) -> list[bool] | None:
    """Whether each page's label is visibly printed, when the deck evidently prints its labels.

    None when the deck does not print its labels in the text at all (then the labels are
    trusted as they are): a reader cannot check them, and the PDF's own labels are the
    author's word.
    """
    if labels is None:
        return None
    shown = [label is not None and _printed(label, clue) for label, clue in zip(labels, clues, strict=True)]
    pages_with_text = sum(1 for text in texts if text)
    if sum(shown) * 2 < pages_with_text:
        return None
    return shown


def _printed(label: str, clue: _PageClues) -> bool:
    if clue.last_line == label:
        return True
    if label.isdigit():
        number = int(label)
        return number in clue.keywords or any(n == number for n, _ in clue.fractions)
    return False


def _text_numbers(clues: Sequence[_PageClues], count: int) -> list[str | None]:
    """Printed numbers found in the text, by the first deck-wide consistent convention.

    A convention counts only when it numbers at least half of the pages with text (and at
    least two) and its numbers change somewhere: one number on every page is no counter.
    """
    pages_with_text = sum(1 for clue in clues if clue.last_line is not None)
    needed = max(2, math.ceil(pages_with_text / 2))
    for numbers in (
        _chain_numbers(_fraction_candidates(clues)),
        _chain_numbers([clue.keywords for clue in clues]),
        _chain_numbers([(clue.lone,) if clue.lone is not None else () for clue in clues]),
    ):
        found = [n for n in numbers if n is not None]
        if len(found) >= needed and len(set(found)) > 1:
            return [str(n) if n is not None else None for n in numbers]
    return [None] * count


def _fraction_candidates(clues: Sequence[_PageClues]) -> list[tuple[int, ...]]:
    """The N of "N / TOTAL" on each page, only for the TOTAL that most pages show."""
    totals = Counter(t for clue in clues for t in {t for n, t in clue.fractions if n <= t})
    if not totals:
        return [() for _ in clues]
    total = totals.most_common(1)[0][0]
    return [tuple(n for n, t in clue.fractions if t == total and n <= t) for clue in clues]


def _chain_numbers(candidates: Sequence[Sequence[int]]) -> list[int | None]:
    """Keep the longest run of pages whose numbers behave like a slide counter.

    Along the run, numbers never decrease and never grow faster than the page index (overlay
    pages repeat a number; a counter cannot skip ahead of the pages). Numbers off the run
    (plot ticks, years, references) are dropped.
    """
    nodes = [(i, n) for i, options in enumerate(candidates) for n in sorted(set(options))]
    best: list[int] = [1] * len(nodes)
    back: list[int] = [-1] * len(nodes)
    for j, (page_j, number_j) in enumerate(nodes):
        for i in range(j):
            page_i, number_i = nodes[i]
            fits = page_i < page_j and number_i <= number_j <= number_i + (page_j - page_i)
            if fits and best[i] + 1 > best[j]:
                best[j], back[j] = best[i] + 1, i
    numbers: list[int | None] = [None] * len(candidates)
    if not nodes:
        return numbers
    node = max(range(len(nodes)), key=lambda k: (best[k], -k))
    while node != -1:
        page, number = nodes[node]
        numbers[page] = number
        node = back[node]
    return numbers


# --- printed numbers read from the page images --------------------------------------------

# a group read from an image: "12 / 40", "Folie 12" or a lone "12", with stray marks around it
_IMAGE_STRAY = "|[](){}'\"`.,:;_~"
# a thin slash between two numbers that OCR took for a bar or a bracket: "12 | 40", "12 [40"
_SLASH_READ_AS = re.compile(r"(\d)\s*[|\[\](){}]\s*(\d)")
# ... and a 1 or a 0 taken for a letter or a mark, inside a word of digits: "4l", "5]", "7\\", "1O"
_DIGIT_LOOKALIKES = str.maketrans({"l": "1", "I": "1", "|": "1", "]": "1", "\\": "1", "!": "1", "O": "0", "o": "0"})
_DIGIT_WORD = re.compile(r"[\dlI|\]\\!Oo]+")


@dataclass(frozen=True)
class _ImageClue:
    page: int  # 0-based
    kind: str  # "fraction", "keyword", "lone"
    number: int
    total: int | None
    place: tuple[str, int, int]  # band, third of the page width (0..2), height in hundredths of the page


def _image_texts(read: str) -> list[str]:
    """What OCR read in a group, as read and with the usual misreadings of digits undone.

    A thin slash between two numbers read as a bar or a bracket becomes a slash again ("12 | 40"); a word
    of digits with a look-alike in it ("4l", "5]", "1O") becomes digits. Both readings are given when
    they differ ("5]" may be a 5 and a stray mark): the deck-wide rules keep the one that fits.
    """
    text = _SLASH_READ_AS.sub(r"\1 / \2", " ".join(read.split()))
    words = [w.translate(_DIGIT_LOOKALIKES) if _DIGIT_WORD.fullmatch(w) and any(c.isdigit() for c in w) else w
             for w in text.split()]
    return list(dict.fromkeys(t.strip(_IMAGE_STRAY + " ") for t in (" ".join(words), text)))


def _image_clues(index: int, segments: Sequence[ocr.OcrSegment]) -> list[_ImageClue]:
    clues: list[_ImageClue] = []
    for segment in segments:
        centre_x, centre_y = (segment.x0 + segment.x1) / 2, (segment.y0 + segment.y1) / 2
        place = (segment.band, min(2, int(centre_x * 3)), round(centre_y * 100))
        for text in _image_texts(segment.text):
            if match := _FRACTION.search(text):
                clues.append(_ImageClue(index, "fraction", int(match.group(1)), int(match.group(2)), place))
            elif match := _KEYWORD.search(text):
                clues.append(_ImageClue(index, "keyword", int(match.group(1)), None, place))
            elif _LONE.fullmatch(text):
                clues.append(_ImageClue(index, "lone", int(text), None, place))
    return clues


def _looks_numbered(pages: Sequence[Sequence[ocr.OcrSegment]]) -> bool:
    """Whether the first pages of a long deck show a convention on a quarter of them (read the rest)."""
    return any(n is not None for n in _image_numbers(pages, minimum=max(2, len(pages) // 4)))


def _image_numbers(pages: Sequence[Sequence[ocr.OcrSegment]], minimum: int | None = None) -> list[str | None]:
    """Printed numbers read from the corners and footer, by the best deck-wide consistent convention.

    Stricter than the text: a convention is one kind ("N / TOTAL" with one TOTAL, "Folie N", a lone
    "N") at one place of the page (band, third of the width, height within 1 % of the page), and a
    number never exceeds its page's position in the deck. Among the conventions that number at least
    half of the pages with at least two different numbers, the one numbering the most pages wins.
    """
    count = len(pages)
    clues = [clue for index, segments in enumerate(pages) for clue in _image_clues(index, segments)]
    needed = minimum if minimum is not None else max(2, math.ceil(count / 2))
    groups: dict[tuple[str, str, int], list[_ImageClue]] = defaultdict(list)
    for clue in clues:
        if clue.number <= clue.page + 1 and (clue.total is None or clue.number <= clue.total):
            groups[(clue.kind, clue.place[0], clue.place[1])].append(clue)
    best: tuple[int, int, list[int | None]] | None = None
    order = {"fraction": 0, "keyword": 1, "lone": 2}
    for (kind, _band, _third), members in groups.items():
        for height in sorted({c.place[2] for c in members}):
            near = [c for c in members if abs(c.place[2] - height) <= 1]
            if kind == "fraction":
                total = Counter(c.total for c in near).most_common(1)[0][0]
                near = [c for c in near if c.total == total]
            candidates: list[list[int]] = [[] for _ in range(count)]
            for c in near:
                candidates[c.page].append(c.number)
            numbers = _chain_numbers(candidates)
            found = [n for n in numbers if n is not None]
            if len(found) < needed or len(set(found)) < 2:
                continue
            score = (len(found), -order[kind])
            if best is None or score > best[:2]:
                best = (*score, numbers)
    if best is None:
        return [None] * count
    return [str(n) if n is not None else None for n in best[2]]


# --- title ---------------------------------------------------------------------------------


def _title(text: str) -> str:
    """The first line that reads like words (not a page number, a logo letter or a bullet)."""
    for line in _lines(text):
        candidate = line.lstrip(_BULLETS + " ")
        cut = min((candidate.find(b) for b in _BULLETS[:10] if b in candidate), default=-1)
        if cut > 0 and _meaningful(candidate[:cut]):
            candidate = candidate[:cut]
        candidate = " ".join(candidate.split())
        if _meaningful(candidate):
            return candidate[:_TITLE_MAX]
    return ""


def _meaningful(line: str) -> bool:
    return sum(1 for ch in line if ch.isalpha()) >= 2
