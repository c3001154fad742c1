"""Time and peak memory of ``citation-studio deck`` on hostile PDFs, this checkout beside the one before the
deck reading was bounded (``python -m bench.hostile_pdf``).

Decks (written by ``tests/hostile/hostile_pdfs.py`` into a temporary folder):

* ``bomb``: 3 pages, each drawing 10,000 rectangles through a form drawn 100 times (a million a page, 2 kB
  on disk), the words of each page out of reading order so that pypdf reads the page too;
* ``image``: 3 pages showing one 46,000 x 46,000 grey image behind the footer band (2 MB on disk), no
  printed numbers in the text, so the page images are read;
* ``image 100 Mpx``: the same with a 10,000 x 10,000 image (within the page limit: read, not refused).

Every run is a fresh process with empty caches; the table shows its exit code, wall time, peak resident
memory and the first line it wrote to stderr. The "before" checkout is the parent of the commit that
stopped rendering the OCR bands in pdfium's grey mode (``--before REV`` for another; ``--no-before`` to
measure this checkout alone). The before runs take about two minutes.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.hostile.hostile_pdfs import huge_image_deck, rectangle_bomb  # noqa: E402

PROBE = ("import resource, subprocess, sys\n"
         "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
         "line = (done.stderr.strip().splitlines() or [''])[0]\n"
         "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, line, sep='\\t')\n")

DECKS: dict[str, Callable[[Path], Path]] = {
    "bomb": lambda folder: rectangle_bomb(folder / "bomb.pdf"),
    "image": lambda folder: huge_image_deck(folder / "image.pdf"),
    "image 100 Mpx": lambda folder: huge_image_deck(folder / "image_100mpx.pdf", side=10_000),
}


def before_revision() -> str:
    found = subprocess.run(["git", "log", "--format=%H", "-S", "grayscale=True", "--", "citation_core/material/ocr.py"],
                           capture_output=True, text=True, cwd=ROOT, check=True).stdout.split()
    return subprocess.run(["git", "rev-parse", f"{found[0]}~1"], capture_output=True, text=True, cwd=ROOT,
                          check=True).stdout.strip()


def checkout(revision: str, folder: Path) -> Path:
    archive = folder / "before.tar"
    subprocess.run(["git", "archive", "-o", str(archive), revision], cwd=ROOT, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(folder / "before", filter="data")
    return folder / "before"


def measure(tree: Path, deck: Path, caches: Path) -> tuple[int, float, float, str]:
    """Exit code, seconds, peak MiB and first stderr line of ``deck`` run from ``tree`` with empty caches."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(caches), "CITATION_STUDIO_OCR_CACHE": str(caches / "ocr"),
           "CITATION_STUDIO_DECK_CACHE": str(caches / "decks")}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PROBE, sys.executable, "-m", "citation_core.cli.main", "deck",
                           str(deck)], capture_output=True, text=True, cwd=tree, env=env, check=True)
    seconds = time.perf_counter() - start
    code, peak_kib, line = done.stdout.rstrip("\n").split("\t", 2)
    return int(code), seconds, int(peak_kib) / 1024, line


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=None, help="git revision to compare with")
    parser.add_argument("--no-before", action="store_true", help="measure this checkout only")
    parser.add_argument("--decks", nargs="*", choices=list(DECKS), default=list(DECKS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        trees = {"now": ROOT}
        if not args.no_before:
            revision = args.before or before_revision()
            trees[f"before ({revision[:12]})"] = checkout(revision, folder)
        print(f"{'deck':<14} {'size':>9}  {'checkout':<22} {'exit':>4} {'seconds':>8} {'peak MiB':>9}  stderr")
        for name in args.decks:
            deck = DECKS[name](folder)
            for label, tree in trees.items():
                caches = folder / f"caches-{name}-{label}".replace(" ", "_")
                code, seconds, peak, line = measure(tree, deck, caches)
                print(f"{name:<14} {deck.stat().st_size:>9,}  {label:<22} {code:>4} {seconds:>8.1f} {peak:>9.0f}  "
                      f"{line[:110]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
