"""What multilingual meaning costs, side by side with meaning off, in one run (``python -m bench.meaning_cost``).

Every row runs in fresh processes (the median of ``--runs``), with meaning on and off
(``CITATION_STUDIO_EMBEDDINGS=off``): CPU seconds (user + system) and peak memory (max RSS) of

* ``citation-studio cite`` on a tiny input (one slide, one sentence), in the slide's language and in another
  (only the second needs the encoder);
* placing a 200-sentence answer in another language than its 200 pages (``place_citations``), the first time
  on these pages (the statement vectors an earlier run kept are removed before each run);
* a 40-page deck's statement vectors, made once (the vector cache empty) and read back (the cache filled);
* the first question after a course is loaded, with the encoder already loaded (as the app loads it in the
  background at start): the CPU of that one turn.

Goals (issue "Finds the answer in any language"): cite on a tiny input at most 1.5 s of CPU and 250 MiB; 200
pages with a 200-sentence answer at most 3 s; the first ask after a course is loaded at most 1 s; a 40-page
deck's vectors at most 1 s, once per version.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from .semantic_cost import TINY_ANSWER, measure, tiny_sources

ROOT = Path(__file__).resolve().parents[1]

PLACE_200 = """
import random, time, resource
from citation_core.llm.offline import place_citations
random.seed(7)
topics = ["hash table", "merge sort", "binary tree", "graph search", "dynamic programming", "heap", "stack",
          "queue", "linked list", "recursion"]
pages, sentences = [], []
for i in range(200):
    t = topics[i % len(topics)]
    pages.append({"id": f"[cite:L:1:{i + 1}:::k:s]", "content": f"Slide {i}: {t}\\n- The {t} stores item {i} "
                  f"in a slot chosen by its key\\n- Each operation on the {t} takes time proportional to {i % 7 + 1}"
                  f" steps\\n- Students implement the {t} in exercise {i}"})
    sentences.append(f"Die Struktur {i} legt Element {i} in einem Platz ab, der von seinem Schlüssel abhängt.")
answer = " ".join(sentences)
t0 = time.process_time()
place_citations(answer, pages)
print(time.process_time() - t0)
"""

DECK_VECTORS = """
import sys, time
from pathlib import Path
from citation_core.material.deck import load_deck
from citation_core.retrieval import LectureIndex
from citation_core.sources import PageChunk
from citation_core.text.encoder import sentence_encoder
deck = load_deck(Path(sys.argv[1]), read_images=False)
chunks = [PageChunk(f"p{p.page_number}", 1, p.page_number, p.text) for p in deck.pages]
sentence_encoder()  # the model's own load is not the deck's cost
t0 = time.process_time()
LectureIndex(chunks).prepare()
print(time.process_time() - t0)
"""

FIRST_ASK = """
import time
from pathlib import Path
from citation_core.chat.chat_pipeline import ChatPipeline
from citation_core.chat.view import ViewPosition
from citation_core.llm.config import load_config
from citation_core.material.library import load_material
from citation_core.text.encoder import sentence_encoder
sentence_encoder()
material = load_material(Path("sample_decks"))
chat = ChatPipeline(load_config(Path("."), override=""), material)
t0 = time.process_time()
chat("Wie werden die beiden sortierten Hälften zusammengeführt?", ViewPosition(101, page=1), language="de")
print(time.process_time() - t0)
"""


def inner(argv: Sequence[str], env: dict[str, str]) -> float:
    """The CPU seconds a child prints for its own measured part."""
    import subprocess

    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip()[-300:])
    return float(done.stdout.strip().splitlines()[-1])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="meaning-cost-"))
    sources = tiny_sources(folder)
    same, other = folder / "same.md", folder / "other.md"
    same.write_text(TINY_ANSWER, encoding="utf-8")
    other.write_text("Man wählt eine Primzahl als Tabellengröße, weit weg von jeder Zweierpotenz.", encoding="utf-8")
    base = {k: v for k, v in os.environ.items() if k != "CITATION_STUDIO_EMBEDDINGS"}
    base["CITATION_STUDIO_DECK_CACHE"] = str(folder / "cache")
    off = {**base, "CITATION_STUDIO_EMBEDDINGS": "off"}
    deck = ROOT / "tests" / "material_real" / "decks" / "en_nlp_rag.pdf"  # 43 pages

    def cite(answer: Path) -> list[str]:
        return [sys.executable, "-m", "citation_core.cli.main", "cite", "--sources", str(sources),
                "--answer", str(answer)]

    def med(runs: list[tuple[float, float]]) -> tuple[float, float]:
        return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)

    print(f"| fresh process (median of {args.runs}) | meaning on: CPU s | peak MiB | meaning off: CPU s | peak MiB |")
    print("|---|---:|---:|---:|---:|")
    for name, answer in (("cite, tiny input, same language", same), ("cite, tiny input, other language", other)):
        on = med([measure(cite(answer), base) for _ in range(args.runs)])
        no = med([measure(cite(answer), off) for _ in range(args.runs)])
        print(f"| {name} | {on[0]:.2f} | {on[1]:.0f} | {no[0]:.2f} | {no[1]:.0f} |")
    print()
    print(f"| measured part only (median of {args.runs}) | meaning on: CPU s | meaning off: CPU s |")
    print("|---|---:|---:|")
    rows = [("200 pages, a 200-sentence answer in another language", [sys.executable, "-c", PLACE_200]),
            ("first question after the course is loaded (encoder loaded)", [sys.executable, "-c", FIRST_ASK])]
    kept = folder / "cache" / "vectors" / "placement"  # what an earlier placement kept: each run cites afresh

    def first(command: list[str], env: dict[str, str]) -> float:
        shutil.rmtree(kept, ignore_errors=True)
        return inner(command, env)

    for name, command in rows:
        on_s = statistics.median(first(command, base) for _ in range(args.runs))
        off_s = statistics.median(first(command, off) for _ in range(args.runs))
        print(f"| {name} | {on_s:.2f} | {off_s:.2f} |")
    vectors = [sys.executable, "-c", DECK_VECTORS, str(deck)]
    cold = []
    for _ in range(args.runs):
        for entry in (folder / "cache" / "vectors").glob("*.npy"):
            entry.unlink()
        cold.append(inner(vectors, base))
    warm = statistics.median(inner(vectors, base) for _ in range(args.runs))
    print(f"| a 43-page deck's statement vectors, made (cache empty) | {statistics.median(cold):.2f} | – |")
    print(f"| the same, read back (cache filled) | {warm:.2f} | – |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
