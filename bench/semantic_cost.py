"""What meaning costs, side by side in one run (``python -m bench.semantic_cost``).

Each row runs in fresh processes (the median of ``--runs``), with semantic matching on and off
(``CITATION_STUDIO_EMBEDDINGS=off``): CPU seconds (user + system, children included) and peak memory
(max RSS) of

* ``citation-studio cite`` on a tiny input (one slide, one sentence): start-up, model load and one pass;
* loading the embedding model and embedding one sentence, our way (the fp16 table with safetensors and
  the tokenizer with tokenizers) beside wordllama's own loader (``WordLlama.load``), where installed.

Goals (README "Meaning"): ``cite`` on a tiny input at most 0.8 s of CPU and 90 MiB with meaning on.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

OUR_LOAD = """
from citation_core.text.similarity import semantic_model
m = semantic_model(); assert m is not None
m.embed(["Why should the table size be prime?"])
"""
WORDLLAMA_LOAD = """
from pathlib import Path
import wordllama
root = Path(wordllama.__file__).parent
from wordllama.tokenizers import tokenizer_from_file
from wordllama.inference import WordLlamaInference
from safetensors import safe_open
with safe_open(str(root / "weights/l2_supercat_256.safetensors"), framework="np") as f:
    table = f.get_tensor("embedding.weight")
wl = WordLlamaInference(table, tokenizer_from_file("l2_supercat_tokenizer_config.json"))
wl.embed(["Why should the table size be prime?"])
"""


def measure(argv: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    """CPU seconds and peak RSS (MiB) of one child process (its own rusage, from wait4)."""
    with tempfile.TemporaryFile() as err:
        child = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            err.seek(0)
            raise RuntimeError(f"{argv[:3]} failed: {err.read().decode(errors='replace').strip()[-300:]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


TINY_ANSWER = "Pick a prime number of slots that lies far from any power of two."


def tiny_sources(folder: Path) -> Path:
    """The tiny input's sources (one slide) as ``cite --sources`` reads them, written into ``folder``."""
    sources = folder / "sources.json"
    sources.write_text(json.dumps({"lecture": {"pages": [
        {"uuid": "a", "lecture_unit_id": 201, "page_number": 4, "display_page_number": "4",
         "text": "Division method\n• h(k) = k mod m\n• Choose m prime, not close to a power of 2"}]}}),
        encoding="utf-8")
    return sources


def median_of(runs: int, argv: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    results = [measure(argv, env) for _ in range(runs)]
    return statistics.median(r[0] for r in results), statistics.median(r[1] for r in results)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="semantic-cost-"))
    sources = tiny_sources(folder)
    answer = folder / "answer.md"
    answer.write_text(TINY_ANSWER, encoding="utf-8")
    cite = [sys.executable, "-m", "citation_core.cli.main", "cite", "--sources", str(sources), "--answer", str(answer)]
    base = {k: v for k, v in os.environ.items() if k != "CITATION_STUDIO_EMBEDDINGS"}
    rows = [
        ("cite, tiny input, meaning on", median_of(args.runs, cite, base)),
        ("cite, tiny input, meaning off", median_of(args.runs, cite, {**base, "CITATION_STUDIO_EMBEDDINGS": "off"})),
        ("load the model + embed one sentence (ours: safetensors + tokenizers)",
         median_of(args.runs, [sys.executable, "-c", OUR_LOAD], base)),
    ]
    try:
        rows.append(("load the model + embed one sentence (the wordllama package's own code)",
                     median_of(args.runs, [sys.executable, "-c", WORDLLAMA_LOAD], base)))
    except RuntimeError as exc:
        print(f"wordllama's loader not measured: {exc}", file=sys.stderr)
    rows.append(("python -c pass (the interpreter alone)", median_of(args.runs, [sys.executable, "-c", "pass"], base)))
    print(f"| fresh process (median of {args.runs}) | CPU s | peak RSS MiB |")
    print("|---|---:|---:|")
    for name, (cpu, rss) in rows:
        print(f"| {name} | {cpu:.2f} | {rss:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
