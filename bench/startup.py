"""What a small command costs: ``citation-studio cite`` on a tiny input, beside the same command with the
modules it used to load on every start (the openai SDK, retrieval, PDF and transcript code), in one run
(``python -m bench.startup``). Medians of several runs; wall time and peak memory of the process."""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 7
EAGER = "import openai, bm25s, numpy, pypdf, webvtt; "


def measure(code: str, args: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one ``python -c code args`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True)
    wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, max(peak, before) / 1024


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        sources, answer = Path(tmp) / "s.json", Path(tmp) / "a.md"
        sources.write_text(json.dumps({"lecture": {"pages": [{"uuid": "p", "lecture_unit_id": 1, "page_number": 1,
                                                              "text": "Merge sort splits the list in halves."}]}}))
        answer.write_text("Merge sort splits the list in halves.\n")
        args = ["cite", "--sources", str(sources), "--answer", str(answer)]
        run = "import sys; from citation_core.cli.main import main; sys.exit(main(sys.argv[1:]))"
        rows = {}
        # alternate the two so that machine load falls on both alike; peak memory is per process, so the
        # eager variant runs in separate processes measured after the lean ones (ru_maxrss only grows)
        lean = [measure(run, args) for _ in range(RUNS)]
        eager = [measure(EAGER + run, args) for _ in range(RUNS)]
        rows["cite (now)"] = (statistics.median(w for w, _ in lean), max(m for _, m in lean))
        rows["cite with the former eager imports"] = (statistics.median(w for w, _ in eager),
                                                      max(m for _, m in eager))
    print("| command | wall (s, median) | peak memory (MiB) |")
    print("|---|---:|---:|")
    for name, (wall, mem) in rows.items():
        print(f"| {name} | {wall:.2f} | {mem:.0f} |")
    now, before = rows["cite (now)"][0], rows["cite with the former eager imports"][0]
    print(f"\nratio former / now: {before / now:.1f}x", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
