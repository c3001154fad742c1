"""Hostile PDFs written byte by byte: small files that are costly to parse, render or read.

Each builder writes a complete PDF (objects, cross-reference table, trailer) in well under a second:

* :func:`rectangle_bomb`: pages that draw a form XObject nested a few levels deep, each level drawing the
  one below it many times, so that a few kilobytes draw a million rectangles per page;
* :func:`huge_image_deck`: pages whose footer band shows a gigapixel greyscale image, stored compressed
  (a flat colour compresses about a thousandfold);
* :func:`self_drawing_form`: pages drawing a form XObject that draws itself.

Every page also writes a line of text (Helvetica), so that a deck has text to read.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from pathlib import Path

FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"


def stream(dictionary: bytes, data: bytes) -> bytes:
    return b"<< " + dictionary + b" /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def write_pdf(path: Path, objects: Sequence[bytes]) -> Path:
    """A PDF of ``objects`` (object 1 is the catalog), numbered from 1 in order."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(out))
    return path


def text_line(text: str, x: float = 50, y: float = 300, size: float = 24) -> bytes:
    return b"BT /F1 %g Tf %g %g Td (%s) Tj ET\n" % (size, x, y, text.encode("latin-1"))


def _deck(path: Path, pages: Sequence[tuple[tuple[float, float], bytes, bytes]], shared: Sequence[bytes] = ()
          ) -> Path:
    """A deck of ``pages`` (size in points, content stream, extra resources such as ``/XObject << ... >>``).

    Objects: 1 catalog, 2 page tree, 3 font, then ``shared`` (objects the resources refer to, from 4 on),
    then each page and its content stream."""
    first_page = 4 + len(shared)
    kids = b" ".join(b"%d 0 R" % (first_page + 2 * i) for i in range(len(pages)))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(pages)), FONT, *shared]
    for i, ((width, height), content, resources) in enumerate(pages):
        number = first_page + 2 * i
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] /Resources << /Font << /F1 3 0 R >> %s >>"
                       b" /Contents %d 0 R >>" % (width, height, resources, number + 1))
        objects.append(stream(b"/Filter /FlateDecode", zlib.compress(content)))
    return write_pdf(path, objects)


def rectangle_bomb(path: Path, pages: int = 3, fanout: Sequence[int] = (10_000, 100), in_order: bool = False
                   ) -> Path:
    """``pages`` slides, each drawing the product of ``fanout`` rectangles (a million by default) through form
    XObjects nested ``len(fanout)`` deep: the innermost draws ``fanout[0]`` rectangles, each level above draws
    the one below ``fanout[i]`` times. Every form has a font, as forms copied from slide masters do, and the
    innermost shows an empty string, so that text readers look inside all of them.

    Unless ``in_order``, each page writes its two words out of reading order (the right one first): pdfium
    reorders them, so the deck reader also reads the page with pypdf."""
    shared: list[bytes] = []
    for level, count in enumerate(fanout):
        if level == 0:
            body = b"BT /F1 1 Tf () Tj ET\n" + b"0 0 1 1 re f\n" * count
            resources = b"/Resources << /Font << /F1 3 0 R >> >>"
        else:
            body = b"/X%d Do\n" % (level - 1) * count
            resources = b"/Resources << /Font << /F1 3 0 R >> /XObject << /X%d %d 0 R >> >>" % (level - 1, 3 + level)
        shared.append(stream(b"/Type /XObject /Subtype /Form /BBox [0 0 720 405] " + resources
                             + b" /Filter /FlateDecode", zlib.compress(body)))
    top = len(fanout) - 1
    xobjects = b"/XObject << /X%d %d 0 R >>" % (top, 4 + top)
    words = text_line("Rectangles", 50) + text_line("drawn", 300)
    if not in_order:
        words = text_line("drawn", 300) + text_line("Rectangles", 50)
    slides = [((720.0, 405.0), words + b"q /X%d Do Q\n" % top, xobjects) for _ in range(pages)]
    return _deck(path, slides, shared)


def self_drawing_form(path: Path, pages: int = 2) -> Path:
    """Slides that draw a form XObject which draws a rectangle and then itself (readers cut the cycle)."""
    form = stream(b"/Type /XObject /Subtype /Form /BBox [0 0 720 405] /Resources << /XObject << /X0 4 0 R >> >>",
                  b"0 0 10 10 re f\n/X0 Do\n")
    slides = [((720.0, 405.0), text_line(f"Loop page {chr(64 + n)}") + b"/X0 Do\n", b"/XObject << /X0 4 0 R >>")
              for n in range(1, pages + 1)]
    return _deck(path, slides, [form])


def flat_deflate(value: int, length: int) -> bytes:
    """A zlib stream of ``length`` bytes all equal to ``value``, built without compressing them all: after a
    full flush the compressor starts afresh, so one compressed mebibyte repeats as often as needed."""
    block = 1 << 20
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    whole = compressor.compress(bytes([value]) * block) + compressor.flush(zlib.Z_FULL_FLUSH)
    rest = compressor.compress(bytes([value]) * (length % block)) + compressor.flush(zlib.Z_FINISH)
    base = 65521  # Adler-32 of a run of one byte value, in closed form
    low = (1 + length * value) % base
    high = (length + value * length * (length + 1) // 2) % base
    return b"\x78\xda" + whole * (length // block) + rest + ((high << 16) | low).to_bytes(4, "big")


def huge_image_deck(path: Path, pages: int = 3, side: int = 46000) -> Path:
    """``pages`` slides (720 x 405 pt) whose footer band shows a ``side`` x ``side`` grey image (the same image
    object on every page), light grey, stored with /FlateDecode (about a thousandth of its pixels in bytes).
    """
    image = stream(b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                   b"/BitsPerComponent 8 /Filter /FlateDecode" % (side, side), flat_deflate(0xEE, side * side))
    slides = [((720.0, 405.0), text_line("A large picture") + b"q 720 0 0 60 0 0 cm /Im0 Do Q\n",
               b"/XObject << /Im0 4 0 R >>") for _ in range(pages)]
    return _deck(path, slides, [image])
