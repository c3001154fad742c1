"""What a small command costs: ``citation-studio cite`` on a tiny input, in one run beside the same command
with the modules it used to load (``python -m bench.startup``).

Each variant is a fresh ``python -c`` process; the variants take turns, so that machine load falls on all
alike. Reported: the median wall time and the largest peak memory (max RSS) of each variant's processes.
The earlier states are reproduced by importing, before the command runs, what it loaded then:

* before the keyword extractor changed: Python YAKE (with networkx and numpy), bm25s for its stop-word
  lists (numpy again) and stopwordsiso through its package (importlib.metadata);
* before that, also the modules every start loaded: the openai SDK, pypdf and webvtt.

The command still loads its own keyword extractor as well, so the earlier states come out a little
heavier than they were (by about 3 MiB).

A variant whose modules are not installed is left out. Exit status 1 when ``cite`` now misses its goal
(``GOAL_SECONDS``, ``GOAL_MIB``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 7
GOAL_SECONDS = 0.4
GOAL_MIB = 30.0
RUN = "import sys; from citation_core.cli.main import main; sys.exit(main(sys.argv[1:]))"
VARIANTS = {
    "cite (now)": (),
    "cite loading Python YAKE, networkx, numpy, bm25s (before)": ("yake", "bm25s", "stopwordsiso"),
    "cite with the former eager imports (also openai, pypdf, webvtt)": ("yake", "bm25s", "stopwordsiso", "openai",
                                                                        "pypdf", "webvtt"),
}


def measure(code: str, args: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one ``python -c code args`` process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{code!r} failed")
    return wall, usage.ru_maxrss / 1024


def main() -> int:
    variants = {name: mods for name, mods in VARIANTS.items()
                if all(importlib.util.find_spec(m) is not None for m in mods)}
    with tempfile.TemporaryDirectory() as tmp:
        sources, answer = Path(tmp) / "s.json", Path(tmp) / "a.md"
        sources.write_text(json.dumps({"lecture": {"pages": [{"uuid": "p", "lecture_unit_id": 1, "page_number": 1,
                                                              "text": "Merge sort splits the list in halves."}]}}))
        answer.write_text("Merge sort splits the list in halves.\n")
        args = ["cite", "--sources", str(sources), "--answer", str(answer)]
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
        for _ in range(RUNS):
            for name, mods in variants.items():
                samples[name].append(measure("".join(f"import {m}; " for m in mods) + RUN, args))
    rows = {name: (statistics.median(w for w, _ in s), max(m for _, m in s)) for name, s in samples.items()}
    print("| command | wall (s, median) | peak memory (MiB) |")
    print("|---|---:|---:|")
    for name, (wall, mem) in rows.items():
        print(f"| {name} | {wall:.2f} | {mem:.0f} |")
    for name in list(variants)[1:] if len(variants) > 1 else []:
        print(f"{name}: {rows[name][0] / rows['cite (now)'][0]:.1f}x the time, "
              f"{rows[name][1] / rows['cite (now)'][1]:.1f}x the memory of now", file=sys.stderr)
    for name in VARIANTS:
        if name not in variants:
            print(f"left out (modules not installed): {name}", file=sys.stderr)
    wall, mem = rows["cite (now)"]
    ok = wall <= GOAL_SECONDS and mem <= GOAL_MIB
    print(f"goal: cite <= {GOAL_SECONDS} s and <= {GOAL_MIB:.0f} MiB -> {wall:.2f} s, {mem:.1f} MiB -> "
          f"{'PASS' if ok else 'FAIL'}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
