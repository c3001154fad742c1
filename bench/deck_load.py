"""How long loading a deck takes: page text through pypdf (the former path) beside pdfium (the new path),
and a cold load (parsed, then stored) beside a load from the deck cache, in one run
(``python -m bench.deck_load``).

Decks: the real decks in ``tests/material_real/decks`` and the sample course's decks, or the
PDFs named on the command line. Every variant loads with ``read_images=False``: the page images (OCR)
are cached by ``ocr.py`` on their own and are no part of what is compared here. Each variant runs
``--runs`` times per deck, the variants taking turns so that machine load falls on all alike; the
tables give medians of the process's CPU time (steady on a shared machine) and of the wall time. The
cold load starts each time from an empty cache folder; the cached load reads the entry it wrote.

Exit status 1 when a variant gives another printed number, source or title than the pypdf path.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from citation_core.material import deck_cache
from citation_core.material.deck import _parse, load_deck
from citation_core.material.models import Deck

ROOT = Path(__file__).resolve().parents[1]
REAL_DECKS = ROOT / "tests" / "material_real" / "decks"
SAMPLE_DECKS = ROOT / "sample_decks" / "decks"
VARIANTS = ("pypdf", "pdfium", "cold", "cached")


@dataclass(frozen=True)
class Row:
    deck: str
    pages: int
    by_pypdf: list[int]  # pages the new path still reads with pypdf
    differing: list[str]  # variants whose numbers, sources or titles differ from the pypdf path
    cpu: dict[str, float]  # median CPU milliseconds per variant
    wall: dict[str, float]  # median wall milliseconds per variant


def seen(deck: Deck) -> list[tuple[str | None, str, str]]:
    return [(p.display_page_number, p.display_source, p.title) for p in deck.pages]


def timed(load: Callable[[], Deck]) -> tuple[tuple[float, float], Deck]:
    """(CPU seconds, wall seconds) of one load, and the deck."""
    c0, t0 = time.process_time(), time.perf_counter()
    deck = load()
    return (time.process_time() - c0, time.perf_counter() - t0), deck


def measure(path: Path, runs: int, cache_root: Path) -> Row:
    warm = cache_root / "warm"
    os.environ[deck_cache.CACHE_ENV] = str(warm)
    reference = load_deck(path, text_engine="pypdf", cache=False, read_images=False)
    load_deck(path, read_images=False)  # the entry the cached loads read
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in VARIANTS}
    differing: list[str] = []
    for run in range(runs):
        os.environ[deck_cache.CACHE_ENV] = str(warm)
        variants: dict[str, Callable[[], Deck]] = {
            "pypdf": lambda: load_deck(path, text_engine="pypdf", cache=False, read_images=False),
            "pdfium": lambda: load_deck(path, cache=False, read_images=False),
            "cached": lambda: load_deck(path, read_images=False),
        }
        for name, load in variants.items():
            seconds, deck = timed(load)
            times[name].append(seconds)
            if seen(deck) != seen(reference):
                differing.append(name)
        cold = cache_root / f"cold{run}"
        os.environ[deck_cache.CACHE_ENV] = str(cold)
        seconds, deck = timed(lambda: load_deck(path, read_images=False))
        times["cold"].append(seconds)
        if seen(deck) != seen(reference):
            differing.append("cold")
        shutil.rmtree(cold, ignore_errors=True)
    engines = _parse(path.name, path.read_bytes()).engines
    return Row(
        deck=path.name,
        pages=len(reference.pages),
        by_pypdf=[i for i, engine in enumerate(engines, start=1) if engine == "pypdf"],
        differing=sorted(set(differing)),
        cpu={name: statistics.median(c for c, _ in values) * 1000 for name, values in times.items()},
        wall={name: statistics.median(w for _, w in values) * 1000 for name, values in times.items()},
    )


def print_table(rows: list[Row], clock: str) -> None:
    print("| deck | pages | pages left to pypdf | pypdf | pdfium | pypdf / pdfium "
          "| cold | cached | cold / cached | pypdf / cached |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    times = [row.cpu if clock == "cpu" else row.wall for row in rows]
    total = {name: sum(ms[name] for ms in times) for name in VARIANTS}
    lines = [(row.deck, row.pages, ", ".join(map(str, row.by_pypdf)) or "none", ms)
             for row, ms in zip(rows, times, strict=True)]
    for name, pages, left, ms in [*lines, ("all decks", sum(row.pages for row in rows), "", total)]:
        print(f"| {name} | {pages} | {left} | {ms['pypdf']:.0f} | {ms['pdfium']:.0f} "
              f"| {ms['pypdf'] / ms['pdfium']:.1f}x | {ms['cold']:.0f} | {ms['cached']:.1f} "
              f"| {ms['cold'] / ms['cached']:.0f}x | {ms['pypdf'] / ms['cached']:.0f}x |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("decks", nargs="*", type=Path, help="PDFs to load (default: real and sample decks)")
    parser.add_argument("--runs", type=int, default=7, help="loads per deck and variant (median)")
    args = parser.parse_args(argv)
    decks: list[Path] = args.decks or [
        *sorted(REAL_DECKS.glob("*.pdf")), *sorted(SAMPLE_DECKS.glob("*.pdf"))]
    if not decks:
        print("no decks found", file=sys.stderr)
        return 2
    before = os.environ.get(deck_cache.CACHE_ENV)
    with tempfile.TemporaryDirectory() as tmp:
        load_deck(decks[0], cache=False, read_images=False)  # imports pypdfium2 before anything is timed
        rows = [measure(path, args.runs, Path(tmp) / str(i)) for i, path in enumerate(decks)]
    if before is None:
        os.environ.pop(deck_cache.CACHE_ENV, None)
    else:
        os.environ[deck_cache.CACHE_ENV] = before

    for clock in ("cpu", "wall"):
        print(f"\n{'CPU' if clock == 'cpu' else 'Wall'} time, median of {args.runs} loads (ms)\n")
        print_table(rows, clock)
    bad = [f"{row.deck}: {', '.join(row.differing)}" for row in rows if row.differing]
    for line in bad:
        print(f"printed numbers or titles differ from pypdf's: {line}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
