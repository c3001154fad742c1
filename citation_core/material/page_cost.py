"""What reading a deck's pages would cost, counted from the PDF's objects before any page is parsed.

pdfium parses a page whole when it loads it (every path, text piece and image becomes an object in memory,
a few hundred bytes each), and pypdf's text reading walks every operator of the page in Python. A form
XObject is drawn in full at every ``Do`` that names it, so a few kilobytes of nested forms (each drawing the
one below a hundred times) draw millions of shapes: minutes of parsing and gigabytes of memory for a file
that passes any limit in bytes.

:func:`page_costs` counts what each page draws as pdfium and pypdf would meet it (:class:`Cost`: operators,
content bytes, image pixels): the page's content streams, every form XObject as often as it is drawn (nested
forms multiplied out, a form that draws itself counted once, as both readers cut such cycles), the
appearance streams of its annotations, the glyph procedures of its Type 3 fonts, its tiling patterns and
soft masks, and the images drawn with their masks. Each stream is decoded and counted once per deck (pypdf
bounds what one stream may decode to), so the count costs a fraction of reading a normal page and stops as
soon as a limit is passed. :func:`check_deck` refuses a page or a deck past :data:`LIMITS` before any page
is parsed, :func:`check_stream_order` the pages left to pypdf past theirs; the deck reader itself refuses a
deck whose text pages hold more than :data:`MAX_DECK_CHARS` characters.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pypdf.errors import PyPdfError
from pypdf.generic import ArrayObject, DictionaryObject, NameObject, StreamObject

from ..errors import MaterialError

__all__ = ["LIMITS", "MAX_DECK_CHARS", "Cost", "DeckLimits", "check_deck", "check_stream_order", "page_costs"]


@dataclass(frozen=True)
class Cost:
    """What a page (or a stream) draws, forms multiplied out: its operators (each path, text piece, image and
    state change: pdfium keeps an object of a few hundred bytes for each), the bytes of its content (at most
    one character of text each: pdfium's text page keeps about 200 bytes per character), and the pixels of
    its images (pdfium may hold a whole image, a byte or more per pixel, to draw it even small)."""

    operators: int = 0
    size: int = 0
    pixels: int = 0  # of the images drawn (each image once per content stream, with its masks)

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.operators + other.operators, self.size + other.size, self.pixels + other.pixels)

    def __mul__(self, times: int) -> Cost:
        return Cost(self.operators * times, self.size * times, self.pixels * times)

    def past(self, limit: Cost) -> str | None:
        """What of this cost passes ``limit`` (as "more than ..."), None when it is within."""
        if self.operators > limit.operators:
            return f"more than {limit.operators:,} shapes, text pieces and other drawing operators{_FORMS}"
        if self.size > limit.size:
            return f"more than {limit.size / 1_000_000:g} MB of drawing instructions{_FORMS}"
        if self.pixels > limit.pixels:
            return f"images of more than {limit.pixels // 1_000_000:,} megapixels"
        return None


@dataclass(frozen=True)
class DeckLimits:
    page: Cost  # one page
    deck: Cost  # all pages together
    stream_order: Cost  # the pages pypdf reads (pdfium reorders their text): pypdf is ten times slower


# At the page limit pdfium holds a page in less than 400 MiB and reads it in a few seconds (images of 100
# megapixels: a few photos, a scan at 600 dpi); at the deck and the stream-order limits a deck is read in
# about 10 s. The costliest page of the sample and real decks draws 4,700 operators in 100 kB, the costliest
# deck 121,000 operators in 2.6 MB. The pixels of a whole deck are not limited: its pages are rendered one
# at a time.
_ANY = 1 << 62
LIMITS = DeckLimits(page=Cost(250_000, 1_500_000, 100_000_000),
                    deck=Cost(2_500_000, 40_000_000, _ANY),
                    stream_order=Cost(250_000, 3_000_000, _ANY))
# characters of text that pdfium's text pages may hold in a whole deck (counted as they are read; the
# sample and real decks hold 4,000 to 72,000)
MAX_DECK_CHARS = 2_000_000

# a PDF operator: one to three characters, starting with a letter (or ' and "), standing alone between
# delimiters; numbers, names (/F1), true/false/null and the words inside strings of more letters do not count
_OPERATOR = re.compile(rb"(?<![^\s\]\)>}])[A-Za-z'\"][A-Za-z0-9*'\"]{0,2}(?![^\s\[\]\(\)<>{}/%])")
_DRAW = re.compile(rb"/([^\s\[\]\(\)<>{}/%]+)\s*Do(?![^\s\[\]\(\)<>{}/%])")
_ESCAPE = re.compile(rb"#([0-9A-Fa-f]{2})")
# an inline image's dictionary (BI ... ID) and its width and height
_INLINE = re.compile(rb"(?<![^\s])BI(?![^\s/])(.{0,2000}?)(?<![^\s/\]>])ID(?![^\s])", re.DOTALL)
_INLINE_SIZE = re.compile(rb"/(W|Width|H|Height)\s+(\d{1,9})(?!\d)")
_SPACE = re.compile(rb"\s")
_CHUNK = 1 << 20  # bytes counted at a time (the count stops early once over the limit)
_STREAM_ERRORS: tuple[type[Exception], ...] = (PyPdfError, ValueError, KeyError, TypeError, AttributeError,
                                               IndexError, AssertionError, RecursionError, OverflowError,
                                               ZeroDivisionError, UnicodeError, NotImplementedError, EOFError,
                                               OSError)


class _TooCostly(Exception):
    """The count passed its limit: ``cost`` is what had been counted (at least past one measure)."""

    def __init__(self, cost: Cost) -> None:
        super().__init__()
        self.cost = cost


class _Counter:
    """Counts what content streams draw, each stream decoded and counted once, stopping past ``limit``."""

    def __init__(self, limit: Cost) -> None:
        self.limit = limit
        self.streams: dict[int, tuple[Cost, Counter[bytes]]] = {}  # id of a stream: its own cost, its draws
        self.forms: dict[tuple[int, int], Cost] = {}  # (form, resources it inherits): what one draw costs
        self.extras: dict[int, Cost] = {}  # resources: what their fonts, patterns and soft masks draw
        self.active: set[int] = set()  # forms being counted (a form drawing itself is counted once)

    def check(self, cost: Cost) -> Cost:
        if cost.past(self.limit) is not None:
            raise _TooCostly(cost)
        return cost

    def own(self, stream: StreamObject) -> tuple[Cost, Counter[bytes]]:
        """What ``stream`` itself writes and the names it draws (``/Name Do``), with how often."""
        key = id(stream)
        known = self.streams.get(key)
        if known is None:
            try:
                data = stream.get_data()
            except PyPdfError as err:
                if "limit" not in str(err).lower():
                    data = b""
                else:  # pypdf refused to decode it: more than it would read
                    raise _TooCostly(Cost(size=self.limit.size + 1)) from err
            except _STREAM_ERRORS:
                data = b""
            self.check(Cost(size=len(data)))
            own = self.check(Cost(self.operators(data), len(data), _inline_pixels(data)))
            known = (own, Counter(_ESCAPE.sub(lambda m: bytes([int(m[1], 16)]), name) for name in _DRAW.findall(data)))
            self.streams[key] = known
        return known

    def operators(self, data: bytes) -> int:
        count, start = 0, 0
        while start < len(data):
            end = _boundary(data, start + _CHUNK)
            count += len(_OPERATOR.findall(data, start, end))
            if count > self.limit.operators:
                raise _TooCostly(Cost(operators=count))
            start = end
        return count

    def content(self, stream: StreamObject, resources: DictionaryObject | None) -> Cost:
        """What a content stream draws: its own operators, the forms it draws (as often as it draws them), and
        what its resources' fonts, patterns and soft masks draw."""
        own, draws = self.own(stream)
        total = self.check(own + self.extra(resources))
        xobjects = _dictionary(resources, "/XObject") if resources is not None else None
        if xobjects is None:
            return total
        for name, times in draws.items():
            target = _resolve(xobjects.get(NameObject("/" + name.decode("latin-1"))))
            kind = _resolve(target.get("/Subtype")) if isinstance(target, StreamObject) else None
            if kind == "/Form":
                total = self.check(total + self.form(target, resources) * times)
            elif kind == "/Image":  # once: pdfium keeps a decoded image while it draws the page
                total = self.check(total + Cost(pixels=_image_pixels(target)))
        return total

    def form(self, form: StreamObject, inherited: DictionaryObject | None) -> Cost:
        """What one draw of a form XObject costs (with its own resources, else those of who draws it)."""
        resources = _dictionary(form, "/Resources")
        key = (id(form), id(inherited) if resources is None else 0)
        known = self.forms.get(key)
        if known is not None:
            return known
        if id(form) in self.active:
            return Cost()
        self.active.add(id(form))
        try:
            known = self.content(form, resources if resources is not None else inherited)
        finally:
            self.active.discard(id(form))
        self.forms[key] = known
        return known

    def extra(self, resources: DictionaryObject | None) -> Cost:
        """What the Type 3 glyphs, tiling patterns and soft masks of ``resources`` draw (each once)."""
        if resources is None:
            return Cost()
        key = id(resources)
        known = self.extras.get(key)
        if known is not None:
            return known
        self.extras[key] = Cost()  # resources reached again while counting them
        total = Cost()
        for font in _values(_dictionary(resources, "/Font")):
            if isinstance(font, DictionaryObject) and _resolve(font.get("/Subtype")) == "/Type3":
                inner = _dictionary(font, "/Resources") or resources
                for glyph in _values(_dictionary(font, "/CharProcs")):
                    if isinstance(glyph, StreamObject):
                        total = self.check(total + self.form(glyph, inner))
        for pattern in _values(_dictionary(resources, "/Pattern")):
            if isinstance(pattern, StreamObject):
                total = self.check(total + self.form(pattern, resources))
        for state in _values(_dictionary(resources, "/ExtGState")):
            mask = _dictionary(state, "/SMask") if isinstance(state, DictionaryObject) else None
            group = _resolve(mask.get("/G")) if mask is not None else None
            if isinstance(group, StreamObject):
                total = self.check(total + self.form(group, resources))
        self.extras[key] = total
        return total


def page_costs(pages: Sequence[Any], limit: Cost = LIMITS.page) -> list[Cost | None]:
    """What each page (a pypdf page object) draws; None for a page past ``limit`` (counting stopped there)."""
    counter = _Counter(limit)
    costs: list[Cost | None] = []
    for page in pages:
        try:
            costs.append(_page_cost(counter, page))
        except _TooCostly:
            costs.append(None)
            counter = _Counter(limit)  # what was counted half-way is not kept
    return costs


def check_deck(name: str, pages: Sequence[Any], limits: DeckLimits = LIMITS) -> list[Cost]:
    """What each page draws; MaterialError (one line naming the file, and the page) as soon as a page or the
    deck draws more than ``limits`` allow."""
    counter = _Counter(limits.page)
    costs: list[Cost] = []
    total = Cost()
    for number, page in enumerate(pages, start=1):
        try:
            costs.append(_page_cost(counter, page))
        except _TooCostly as err:
            raise MaterialError(f"{name}: page {number} draws {err.cost.past(limits.page)}{_REFUSED}") from None
        total += costs[-1]
        if (past := total.past(limits.deck)) is not None:
            raise MaterialError(f"{name}: its first {number} pages draw {past}{_REFUSED}")
    return costs


def check_stream_order(name: str, costs: Sequence[Cost], pages: Sequence[int], limits: DeckLimits = LIMITS) -> None:
    """MaterialError when the pages (1-based) that pypdf is to read draw more together than ``limits`` allow."""
    total = sum((costs[page - 1] for page in pages), Cost())
    if (past := total.past(limits.stream_order)) is not None:
        shown = ", ".join(str(page) for page in pages[:5]) + (", ..." if len(pages) > 5 else "")
        raise MaterialError(f"{name}: pages {shown}, whose text is read in the order it is written, draw {past}"
                            f"{_REFUSED}")


_FORMS = " (forms drawn inside forms counted each time they are drawn)"
_REFUSED = ": too costly to read, refused"


def _page_cost(counter: _Counter, page: Any) -> Cost:
    try:
        resources = _dictionary(page, "/Resources")
        contents = _resolve(page.get("/Contents"))
        annotations = _resolve(page.get("/Annots"))
    except _STREAM_ERRORS:
        return Cost()
    total = Cost()
    for stream in _streams(contents):
        total = counter.check(total + counter.content(stream, resources))
    if isinstance(annotations, ArrayObject):
        for annotation in annotations:
            total = counter.check(total + _annotation_cost(counter, _resolve(annotation), resources))
    return total


def _annotation_cost(counter: _Counter, annotation: Any, resources: DictionaryObject | None) -> Cost:
    """What an annotation's normal appearance draws (one stream, or one per state), and the annotation."""
    appearance = _dictionary(annotation, "/AP") if isinstance(annotation, DictionaryObject) else None
    normal = _resolve(appearance.get("/N")) if appearance is not None else None
    states = [normal] if isinstance(normal, StreamObject) else list(_values(normal))
    return sum((counter.form(state, resources) for state in states if isinstance(state, StreamObject)), Cost(1, 0))


def _streams(contents: Any) -> Iterable[StreamObject]:
    if isinstance(contents, StreamObject):
        yield contents
    elif isinstance(contents, ArrayObject):
        for item in contents:
            stream = _resolve(item)
            if isinstance(stream, StreamObject):
                yield stream


def _resolve(value: Any) -> Any:
    try:
        return value.get_object() if value is not None else None
    except _STREAM_ERRORS:
        return None


def _dictionary(holder: Any, key: str) -> DictionaryObject | None:
    try:
        value = _resolve(holder.get(key))
    except _STREAM_ERRORS:
        return None
    return value if isinstance(value, DictionaryObject) else None


def _values(dictionary: DictionaryObject | None) -> Iterable[Any]:
    if isinstance(dictionary, DictionaryObject):
        for value in dictionary.values():
            yield _resolve(value)


def _image_pixels(image: DictionaryObject) -> int:
    """Width times height of an image XObject, and of its soft mask and its mask image."""
    pixels = 0
    for part in (image, _resolve(image.get("/SMask")), _resolve(image.get("/Mask"))):
        if isinstance(part, DictionaryObject):
            width, height = _resolve(part.get("/Width")), _resolve(part.get("/Height"))
            if isinstance(width, int) and isinstance(height, int):
                pixels += max(0, width) * max(0, height)
    return pixels


def _inline_pixels(data: bytes) -> int:
    """Width times height of the inline images (``BI /W 20 /H 20 ... ID``) of a content stream."""
    pixels = 0
    for match in _INLINE.finditer(data):
        sizes = {key[:1]: int(value) for key, value in _INLINE_SIZE.findall(match[1])}
        pixels += sizes.get(b"W", 0) * sizes.get(b"H", 0)
    return pixels


def _boundary(data: bytes, position: int) -> int:
    """The first whitespace at or after ``position`` (so that no operator is cut in two), else the end."""
    found = _SPACE.search(data, position)
    return found.start() if found is not None else len(data)
