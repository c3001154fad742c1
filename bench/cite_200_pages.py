"""A 200-page cite, meaning on beside off, in one run (``python -m bench.cite_200_pages``).

The input is built the same way every time, from the real English decks of ``tests/material_real/decks`` and
the sample course's English decks (name order): the first 200 pages that say anything (a statement:
``text.statements``) become the sources (one unit, pages 1 to 200), and the answer has one sentence per page,
restating it (the page's longest statement: its bullet, with the slide's title when the bullet is short; the
title of a section slide). Some of these real pages are read as another language than English (a title page, a
table of contents), so a sentence that no page's terms support is also compared by the multilingual encoder,
as in the app.

Each run is a fresh process, meaning on and off taking turns (``CITATION_STUDIO_EMBEDDINGS=off``); the tables
give medians of ``--runs``:

* **cite, first time**: ``citation_core.cite`` on that input, the process's CPU seconds for the call alone, with
  the models already loaded (as the app holds them) and nothing kept from an earlier cite (the vector cache
  emptied);
* **cite, again**: the same in the next fresh process, which may read what the first one kept on disk (the
  statement vectors of these sources);
* **model load**: reading the static model and the multilingual encoder before it (once per process);
* **citation-studio cite**: the command on the same files, the whole process (start-up and model load
  included), nothing kept from an earlier cite.

Every run must give the same cited answer as the others with the same setting; its SHA-256 and citation
count are printed, so that a change to the code can be checked to cite exactly what it cited before. Exit
status 1 when runs disagree. The children run with one hash seed (``PYTHONHASHSEED=0``): where two sources
score the same, the order in which a set's terms are summed still decides which of them leads, and that order
follows the seed. Goal: the cite with meaning on under 1.5 s of CPU.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from .semantic_cost import measure

ROOT = Path(__file__).resolve().parents[1]
DECKS = [*sorted((ROOT / "tests" / "material_real" / "decks").glob("en_*.pdf")),
         ROOT / "sample_decks" / "decks" / "hash_tables.pdf", ROOT / "sample_decks" / "decks" / "merge_sort.pdf"]
PAGES = 200
MAX_WORDS = 30  # a restating sentence is cut after this many words
GOAL_SECONDS = 1.5

CHILD = """
import json, sys, time
from pathlib import Path
from citation_core import Sources, cite
from citation_core.text.encoder import sentence_encoder
from citation_core.text.similarity import semantic_model
sources = Sources.load(Path(sys.argv[1]))
answer = Path(sys.argv[2]).read_text(encoding="utf-8")
t0 = time.process_time()
semantic_model(), sentence_encoder()
t1 = time.process_time()
result = cite(answer, sources)
t2 = time.process_time()
print(json.dumps({"load": t1 - t0, "cite": t2 - t1, "answer": result.answer, "citations": len(result.citations)}))
"""


def restated(statement: str) -> str:
    """One answer sentence restating a page by its statement ("<title>: <bullet>"): the bullet, with the title
    before it when the bullet alone is short; at most ``MAX_WORDS`` words, ending in a full stop."""
    _, sep, body = statement.partition(": ")
    text = body if sep and len(body.split()) >= 8 else statement
    words = text.split()[:MAX_WORDS]
    sentence = " ".join(words).rstrip(" .,;:")
    return sentence[:1].upper() + sentence[1:] + "."


def build_input(folder: Path) -> tuple[Path, Path]:
    """The sources file and the answer file of the 200-page cite, written into ``folder``."""
    from citation_core.material.deck import load_deck
    from citation_core.text.statements import statements

    pages: list[dict[str, object]] = []
    sentences: list[str] = []
    for path in DECKS:
        for page in load_deck(path, read_images=False).pages:
            said = statements(page.text)
            if not said or len(pages) == PAGES:
                continue
            pages.append({"uuid": f"p{len(pages) + 1}", "lecture_unit_id": 1, "page_number": len(pages) + 1,
                          "display_page_number": str(len(pages) + 1), "text": page.text})
            sentences.append(restated(max(said, key=len)))
    if len(pages) < PAGES:
        raise SystemExit(f"only {len(pages)} pages with a statement in {len(DECKS)} decks, {PAGES} needed")
    sources, answer = folder / "sources.json", folder / "answer.md"
    sources.write_text(json.dumps({"lecture": {"pages": pages}}), encoding="utf-8")
    answer.write_text(" ".join(sentences), encoding="utf-8")
    return sources, answer


def child(sources: Path, answer: Path, env: dict[str, str]) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", CHILD, str(sources), str(answer)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip()[-500:])
    out: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def digest(answer: object) -> str:
    return hashlib.sha256(str(answer).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="also write the cited answers (meaning on and off) here")
    parser.add_argument("--write-input", type=Path, metavar="FOLDER",
                        help="only write the input (sources.json, answer.md) into FOLDER, measure nothing")
    args = parser.parse_args(argv)
    if args.write_input:
        args.write_input.mkdir(parents=True, exist_ok=True)
        for path in build_input(args.write_input):
            print(path)
        return 0
    folder = Path(tempfile.mkdtemp(prefix="cite-200-"))
    try:
        return measure_all(folder, args.runs, args.keep)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def measure_all(folder: Path, runs_wanted: int, keep: Path | None) -> int:
    """Build the input in ``folder``, measure, print the tables; the exit status."""
    base = {k: v for k, v in os.environ.items() if k != "CITATION_STUDIO_EMBEDDINGS"}
    base["PYTHONHASHSEED"] = "0"
    base["CITATION_STUDIO_DECK_CACHE"] = str(folder / "cache")  # decks parsed, and vectors made, afresh
    os.environ["CITATION_STUDIO_DECK_CACHE"] = base["CITATION_STUDIO_DECK_CACHE"]
    sources, answer = build_input(folder)
    settings = {"on": base, "off": {**base, "CITATION_STUDIO_EMBEDDINGS": "off"}}
    runs: dict[str, list[dict[str, object]]] = {"on": [], "off": []}
    again: dict[str, list[float]] = {"on": [], "off": []}
    whole: dict[str, list[float]] = {"on": [], "off": []}
    cli = [sys.executable, "-m", "citation_core.cli.main", "cite", "--sources", str(sources), "--answer", str(answer)]
    kept = folder / "cache" / "vectors"
    for _ in range(runs_wanted):
        for name, env in settings.items():  # taking turns, so that the machine's load falls on both alike
            shutil.rmtree(kept, ignore_errors=True)
            runs[name].append(child(sources, answer, env))
            second = child(sources, answer, env)
            if digest(second["answer"]) != digest(runs[name][-1]["answer"]):
                print(f"FAIL: meaning {name}: citing again from what the first cite kept cited differently",
                      file=sys.stderr)
                return 1
            again[name].append(float(str(second["cite"])))
            shutil.rmtree(kept, ignore_errors=True)
            whole[name].append(measure(cli, env)[0])
    status = 0
    print(f"200 pages, {len(answer.read_text(encoding='utf-8'))} characters of answer; medians of {runs_wanted} "
          "fresh processes")
    print()
    print("| CPU s | meaning on | meaning off | on / off |")
    print("|---|---:|---:|---:|")
    med = {name: {part: statistics.median(float(str(r[part])) for r in rs) for part in ("cite", "load")}
           for name, rs in runs.items()}
    cli_med = {name: statistics.median(w) for name, w in whole.items()}
    again_med = {name: statistics.median(a) for name, a in again.items()}
    for label, on, off in (("cite, first time (models loaded)", med["on"]["cite"], med["off"]["cite"]),
                           ("cite, again on the same sources", again_med["on"], again_med["off"]),
                           ("model load, once per process", med["on"]["load"], med["off"]["load"]),
                           ("citation-studio cite, whole process", cli_med["on"], cli_med["off"])):
        ratio = f"{on / off:.1f}×" if off >= 0.01 else "–"
        print(f"| {label} | {on:.2f} | {off:.2f} | {ratio} |")
    print()
    for name, rs in runs.items():
        digests = {digest(r["answer"]) for r in rs}
        counts = {r["citations"] for r in rs}
        print(f"meaning {name}: {sorted(counts)} citations, cited answer {', '.join(sorted(digests))}")
        if len(digests) != 1:
            print(f"FAIL: runs with meaning {name} cited differently", file=sys.stderr)
            status = 1
        if keep:
            keep.mkdir(parents=True, exist_ok=True)
            (keep / f"cited_{name}.md").write_text(str(rs[0]["answer"]), encoding="utf-8")
    for label, seconds in (("first time", med["on"]["cite"]), ("again", again_med["on"])):
        verdict = "PASS" if seconds < GOAL_SECONDS else "MISSED"
        print(f"goal: cite ({label}) with meaning on < {GOAL_SECONDS} s of CPU → {seconds:.2f} s → {verdict}")
    return status


if __name__ == "__main__":
    sys.exit(main())
