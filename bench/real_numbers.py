"""How well the printed slide numbers are read from the rendering of real decks printed by HTML slide tools
(``python -m bench.real_numbers``).

Decks: every ``tests/material_real/decks_html/<stem>.numbers.yml`` with its ``<stem>.pdf`` beside it; the
yml lists, per PDF page, the number a reader sees on the rendered page (null where none is visible). Each
deck's pages are read with ``ocr.read_pages`` (rendering and Tesseract only, never the text layer), from
an empty cache folder so that nothing stored earlier is used, and turned into per-page numbers with
``deck._image_numbers``, the deck-wide convention the product applies to what was read. Every page is
read (no early stop after the first pages).

Per deck: pages, numbered pages (the yml's non-null entries), right (read = printed), wrong (a number read
that differs from the printed one, or read on a page that prints none), missed (printed, nothing read),
and the reading speed in pages per second (wall time of ``read_pages``). Exit status 0 when every deck
could be read, 2 when Tesseract is unavailable or a deck is missing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from citation_core.material import ocr
from citation_core.material.deck import _image_numbers

ROOT = Path(__file__).resolve().parents[1]
DECKS = ROOT / "tests" / "material_real" / "decks_html"


@dataclass(frozen=True)
class Row:
    deck: str
    pages: int
    numbered: int
    right: int
    wrong: list[int]  # 1-based pages
    missed: list[int]
    seconds: float


def measure(truth_file: Path) -> Row:
    truth = yaml.safe_load(truth_file.read_text(encoding="utf-8"))
    printed: list[str | None] = truth["printed"]
    pdf = truth_file.with_name(truth_file.name.removesuffix(".numbers.yml") + ".pdf")
    data = pdf.read_bytes()
    start = time.perf_counter()
    pages = ocr.read_pages(pdf, data)
    seconds = time.perf_counter() - start
    read = _image_numbers(pages)
    if len(read) != len(printed):
        raise ValueError(f"{truth_file.name}: {len(printed)} pages listed, the PDF has {len(read)}")
    right = sum(1 for p, r in zip(printed, read, strict=True) if p is not None and r == p)
    wrong = [i for i, (p, r) in enumerate(zip(printed, read, strict=True), start=1) if r is not None and r != p]
    missed = [i for i, (p, r) in enumerate(zip(printed, read, strict=True), start=1) if p is not None and r is None]
    return Row(pdf.name, len(printed), sum(p is not None for p in printed), right, wrong, missed, seconds)


def pages_text(pages: list[int]) -> str:
    """``3 (4, 9, 12)``: how many, and the first pages."""
    if not pages:
        return "0"
    more = ", …" if len(pages) > 12 else ""
    return f"{len(pages)} ({', '.join(map(str, pages[:12]))}{more})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("truth", nargs="*", type=Path, help="*.numbers.yml files (default: all in decks_html)")
    args = parser.parse_args(argv)
    files: list[Path] = args.truth or sorted(DECKS.glob("*.numbers.yml"))
    if not files:
        print("no *.numbers.yml found", file=sys.stderr)
        return 2
    reason = ocr.ocr_unavailable()
    if reason is not None:
        print(f"cannot read the pages: {reason}", file=sys.stderr)
        return 2
    before = os.environ.get(ocr.CACHE_ENV)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            os.environ[ocr.CACHE_ENV] = tmp
            rows = [measure(path) for path in files]
    except FileNotFoundError as err:
        print(f"missing deck: {err}", file=sys.stderr)
        return 2
    finally:
        if before is None:
            os.environ.pop(ocr.CACHE_ENV, None)
        else:
            os.environ[ocr.CACHE_ENV] = before

    print(f"Printed numbers read from the rendering (Tesseract {ocr.engine_version()})\n")
    print("| deck | pages | numbered | right | wrong (pages) | missed (pages) | pages/s |")
    print("|---|---:|---:|---:|---|---:|---:|")
    for row in rows:
        print(f"| {row.deck} | {row.pages} | {row.numbered} | {row.right} | {pages_text(row.wrong)} "
              f"| {pages_text(row.missed)} | {row.pages / row.seconds:.1f} |")
    pages = sum(row.pages for row in rows)
    print(f"| all decks | {pages} | {sum(row.numbered for row in rows)} | {sum(row.right for row in rows)} "
          f"| {sum(len(row.wrong) for row in rows)} | {sum(len(row.missed) for row in rows)} "
          f"| {pages / sum(row.seconds for row in rows):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
