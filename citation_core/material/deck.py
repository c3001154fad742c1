"""Load a slide deck (PDF): page text, title and the printed slide number of every page.

Printed numbers (DESIGN 3) come from, in order: a manifest override, the PDF's own
``/PageLabels`` (only when the catalog really has them), a number printed in the page text,
a number read from the rendered corners and footer of the pages (OCR, only when nothing before
numbers the deck), else none. Nothing is guessed: a number is only taken from the text or the
images when the whole deck agrees on how it prints its numbers.
"""

from __future__ import annotations

import io
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pypdf
import pypdfium2
from pypdf.errors import PyPdfError

from ..errors import MaterialError
from . import ocr
from .models import Deck, DeckPage, DisplaySource

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

# What pypdf raises on damaged files: its own errors, and plain Python errors from malformed objects
# (a wrong type where a dictionary was expected, an index out of range, a stream that never ends).
PDF_ERRORS: tuple[type[Exception], ...] = (
    PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, AssertionError,
    RecursionError, OverflowError, ZeroDivisionError, UnicodeError, NotImplementedError, EOFError, OSError,
)
_DECRYPT_ERRORS: tuple[type[Exception], ...] = (*PDF_ERRORS, ImportError)  # ImportError: no crypto library


@dataclass(frozen=True)
class _PageClues:
    """Printed-number clues found in one page's text."""

    last_line: str | None
    lone: int | None
    fractions: tuple[tuple[int, int], ...]
    keywords: tuple[int, ...]


def load_deck(path: Path, overrides: Mapping[int, str | None] | None = None, *,
              progress: Progress | None = None, read_images: bool = True) -> Deck:
    """Read a PDF deck. ``overrides`` maps a 1-based page number to its printed number (or None).

    When neither the overrides, ``/PageLabels`` nor the page text number the deck, the corners and
    footer of the rendered pages are read (OCR, cached per file content; ``read_images=False`` skips
    it) and ``progress(done, total)`` is called after each page read.

    Raises MaterialError (naming the file, and the page where relevant) for a missing file,
    a non-PDF, an encrypted, corrupt or truncated PDF, or a PDF without any extractable text.
    """
    name = path.name
    data, reader = _open(path)
    try:
        page_objects = list(reader.pages)
    except PDF_ERRORS as err:
        raise MaterialError(f"{name}: corrupt PDF: cannot read its page tree ({err})") from err
    if not page_objects:
        raise MaterialError(f"{name}: the PDF has no pages (corrupt or truncated?)")

    texts: list[str] = []
    for index, page in enumerate(page_objects, start=1):
        try:
            texts.append(_normalize(page.extract_text()))
        except PDF_ERRORS as err:
            raise MaterialError(f"{name}: page {index}: cannot extract text ({err})") from err

    textless = [i for i, text in enumerate(texts, start=1) if not text]
    if len(textless) == len(texts):
        raise MaterialError(
            f"{name}: no extractable text on any of its {len(texts)} pages (scanned or image-only PDF?)"
        )
    warnings = [f"{name}: page {i}: no extractable text (image-only page?)" for i in textless]

    labels = _page_labels(reader, len(texts), name, warnings)
    images = _ImageReader(path, data, progress) if read_images else None
    numbers = _display_numbers(texts, labels, dict(overrides or {}), name, warnings, images)
    pages = tuple(
        DeckPage(
            page_number=i,
            display_page_number=number,
            display_source=source,
            text=text,
            title=_title(text),
        )
        for i, (text, (number, source)) in enumerate(zip(texts, numbers, strict=True), start=1)
    )
    return Deck(path=path, pages=pages, warnings=tuple(warnings))


def render_page_png(path: Path, page_number: int, width: int = 320) -> bytes:
    """Render one page (1-based) as a PNG image ``width`` pixels wide (for thumbnails)."""
    name = path.name
    if width < 1:
        raise MaterialError(f"{name}: thumbnail width must be positive, got {width}")
    _check_file(path)
    try:
        document = pypdfium2.PdfDocument(path)
    except pypdfium2.PdfiumError as err:
        raise MaterialError(f"{name}: cannot open the PDF for rendering ({err})") from err
    try:
        count = len(document)
        if not 1 <= page_number <= count:
            raise MaterialError(f"{name}: page {page_number} is out of range 1..{count}")
        page = document[page_number - 1]
        try:
            bitmap = page.render(scale=width / page.get_width())
            image = bitmap.to_pil()
            buffer = io.BytesIO()
            image.save(buffer, format="PNG")
            return buffer.getvalue()
        finally:
            page.close()
    except pypdfium2.PdfiumError as err:
        raise MaterialError(f"{name}: page {page_number}: cannot render ({err})") from err
    finally:
        document.close()


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


def _open(path: Path) -> tuple[bytes, pypdf.PdfReader]:
    name = path.name
    _check_file(path)
    data = path.read_bytes()
    if not data:
        raise MaterialError(f"{name}: empty file, not a PDF")
    if b"%PDF-" not in data[:1024]:
        raise MaterialError(f"{name}: not a PDF file (no %PDF header)")
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
    return data, reader


def _normalize(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.split("\n") if line.strip()]


def _page_labels(reader: pypdf.PdfReader, count: int, name: str, warnings: list[str]) -> list[str | None] | None:
    """The /PageLabels of the PDF, or None when the catalog has none (pypdf would say 1..N)."""
    try:
        if "/PageLabels" not in reader.root_object:
            return None
        labels = list(reader.page_labels)
    except PDF_ERRORS as err:  # a broken label tree: ignore it, say so
        warnings.append(f"{name}: unreadable /PageLabels ignored ({err})")
        return None
    if len(labels) != count:
        warnings.append(f"{name}: /PageLabels do not cover every page; ignored")
        return None
    return [label.strip() or None for label in labels]


# --- printed numbers -----------------------------------------------------------------------


def _clues(text: str) -> _PageClues:
    lines = _lines(text)
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


@dataclass(frozen=True)
class _ImageClue:
    page: int  # 0-based
    kind: str  # "fraction", "keyword", "lone"
    number: int
    total: int | None
    place: tuple[str, int, int]  # band, third of the page width (0..2), height in hundredths of the page


def _image_clues(index: int, segments: Sequence[ocr.OcrSegment]) -> list[_ImageClue]:
    clues: list[_ImageClue] = []
    for segment in segments:
        text = " ".join(segment.text.split()).strip(_IMAGE_STRAY + " ")
        centre_x, centre_y = (segment.x0 + segment.x1) / 2, (segment.y0 + segment.y1) / 2
        place = (segment.band, min(2, int(centre_x * 3)), round(centre_y * 100))
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
