"""Printed slide numbers read from the rendering (Tesseract): how many are right and how fast, with the
reading of another revision side by side (``python -m bench.ocr_numbers [--baseline REV]``).

Decks, each with the number a reader sees on every page:

* ``generated``: the decks of ``tests/material_decks`` with large, dark numbers (``build_decks``);
* ``faint dev`` / ``faint held-out``: small, thin, light numbers as slide tools print them
  (``build_faint_decks``), the development and the held-out set;
* ``real html``: real decks printed by HTML slide tools, ``tests/material_real/decks_html/*.numbers.yml``.
  Their numbers are also in the text layer, which the reading never sees.

Each deck is read with ``ocr.read_pages`` from an empty cache folder and turned into per-page numbers by
``deck._image_numbers`` (the deck-wide rules); every page is read. With ``--baseline REV`` the same decks
are read by that revision too (a ``git worktree`` of it in a temporary folder), in a process of its own
beside a process of the working tree, the two taking turns deck by deck ``--runs`` times so that machine
load falls on both alike; speed is the median over the runs of pages per second of wall time.

Columns: numbered pages; right (read = printed); wrong (a number that differs, or one on a page that
prints none); missed; pages per second. Exit status 0, or 2 when Tesseract or git is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REAL_HTML = ROOT / "tests" / "material_real" / "decks_html"
SETS = ("generated", "faint dev", "faint held-out", "real html")


def build(folder: Path) -> list[dict[str, Any]]:
    """Every deck of every set, written into ``folder``: set, name, path, and the printed number per page."""
    import yaml

    sys.path.insert(0, str(ROOT))
    from tests.material_decks import build_decks, build_faint_decks

    decks: list[dict[str, Any]] = []
    for name, built in (("generated", build_decks(folder / "generated")),
                        ("faint dev", build_faint_decks(folder / "dev", "dev")),
                        ("faint held-out", build_faint_decks(folder / "heldout", "heldout"))):
        decks.extend({"set": name, "name": d.name, "path": str(d.path), "printed": list(d.expected)} for d in built)
    for truth in sorted(REAL_HTML.glob("*.numbers.yml")):
        pdf = truth.with_name(truth.name.removesuffix(".numbers.yml") + ".pdf")
        printed = yaml.safe_load(truth.read_text(encoding="utf-8"))["printed"]
        decks.append({"set": "real html", "name": pdf.stem, "path": str(pdf), "printed": printed})
    return decks


def worker() -> None:
    """Read decks named on stdin (one JSON path per line) with the citation_core found first on sys.path;
    answer one JSON line per deck: the numbers read and the seconds it took."""
    from citation_core.material import ocr
    from citation_core.material.deck import _image_numbers

    for line in sys.stdin:
        path = Path(json.loads(line))
        with tempfile.TemporaryDirectory() as cache:
            os.environ[ocr.CACHE_ENV] = cache
            start = time.perf_counter()
            pages = ocr.read_pages(path, path.read_bytes())
            seconds = time.perf_counter() - start
        print(json.dumps({"read": _image_numbers(pages), "seconds": seconds, "module": ocr.__file__}), flush=True)


class Reader:
    """A worker process reading with the citation_core of ``tree``."""

    def __init__(self, tree: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker"], cwd=tree, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.tree = tree

    def read(self, path: str) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(path) + "\n")
        self.proc.stdin.flush()
        answer: dict[str, Any] = json.loads(self.proc.stdout.readline())
        if not Path(answer["module"]).resolve().is_relative_to(self.tree.resolve()):
            raise SystemExit(f"the reader for {self.tree} imported {answer['module']}")
        return answer

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def score(printed: list[str | None], read: list[str | None]) -> tuple[int, int, int, int]:
    numbered = sum(p is not None for p in printed)
    right = sum(1 for p, r in zip(printed, read, strict=True) if p is not None and r == p)
    wrong = sum(1 for p, r in zip(printed, read, strict=True) if r is not None and r != p)
    missed = sum(1 for p, r in zip(printed, read, strict=True) if p is not None and r is None)
    return numbered, right, wrong, missed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", help="a git revision to read the same decks with, side by side")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--per-deck", action="store_true", help="a row per deck, not only per set")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker()
        return 0
    sys.path.insert(0, str(ROOT))
    from citation_core.material import ocr

    if (reason := ocr.ocr_unavailable()) is not None:
        print(f"cannot read the pages: {reason}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        decks = build(Path(tmp) / "decks")
        trees = {"this tree": ROOT}
        if args.baseline:
            base = Path(tmp) / "baseline"
            done = subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), args.baseline],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                print(f"cannot check out {args.baseline}: {done.stderr.strip()}", file=sys.stderr)
                return 2
            trees[f"baseline {args.baseline}"] = base
        try:
            readers = {label: Reader(tree) for label, tree in trees.items()}
            results: dict[str, dict[str, list[dict[str, Any]]]] = {label: {} for label in trees}
            for _ in range(args.runs):
                for deck in decks:
                    for label, reader in readers.items():
                        results[label].setdefault(deck["name"], []).append(reader.read(deck["path"]))
            for reader in readers.values():
                reader.close()
        finally:
            if args.baseline:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(Path(tmp) / "baseline")],
                               capture_output=True, check=False)
        print(f"Printed numbers read from the rendering (Tesseract {ocr.engine_version()}), "
              f"median of {args.runs} run(s)\n")
        print("| decks | reader | pages | numbered | right | wrong | missed | pages/s |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for set_name in (*SETS, "all"):
            chosen = [d for d in decks if set_name in ("all", d["set"])]
            rows = [(d["name"], [d]) for d in chosen] if args.per_deck and set_name != "all" else []
            for name, group in [*rows, (f"**{set_name}**", chosen)]:
                for label in trees:
                    pages = sum(len(d["printed"]) for d in group)
                    totals = [0, 0, 0, 0]
                    for d in group:
                        read = results[label][d["name"]][0]["read"]
                        totals = [a + b for a, b in zip(totals, score(d["printed"], read), strict=True)]
                    seconds = [sum(results[label][d["name"]][run]["seconds"] for d in group)
                               for run in range(args.runs)]
                    print(f"| {name} | {label} | {pages} | {totals[0]} | {totals[1]} | {totals[2]} | {totals[3]} "
                          f"| {pages / statistics.median(seconds):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
