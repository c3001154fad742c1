"""Time and peak memory of ``citation-studio audit`` and ``cite`` on long answers, side by side
(``python -m bench.hostile_audit``).

The sources are every page chunk, transcript segment and FAQ of the sample course (``sample_decks/``).
The answer is made of sentences of those sources (a later part of each in every round), about 65
characters of prose each, every one followed by a final-form marker citing its source (a marker every
~100 characters), up to n = 25,000 … 199,000 characters (markers included). ``cite`` gets the same
answer with its markers removed. Every command runs once in a fresh process; reported: wall seconds and
peak resident memory of that process. With n doubling, a time ratio of about 2 means linear, about 4
quadratic.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from citation_core.contract import FinalMarker, SourceRef, strip_markers
from citation_core.sources import FaqSource, PageChunk, Source, Sources

ROOT = Path(__file__).resolve().parents[1]
LENGTHS = (25_000, 50_000, 100_000, 199_000)


def course_sources() -> Sources:
    from citation_core.material.library import load_material

    return load_material(ROOT / "sample_decks").sources()


def sources_json(sources: Sources) -> dict[str, Any]:
    pages, segments = [], []
    for s in sources.lecture:
        if isinstance(s, PageChunk):
            pages.append({"uuid": s.uuid, "lecture_unit_id": s.lecture_unit_id, "page_number": s.page_number,
                          "display_page_number": s.display_page_number, "text": s.text})
        else:
            segments.append({"uuid": s.uuid, "lecture_unit_id": s.lecture_unit_id, "start": s.start, "end": s.end,
                             "page_number": s.page_number, "text": s.text})
    return {"lecture": {"pages": pages, "transcriptions": segments},
            "faqs": [{"id": f.id, "question": f.question, "answer": f.answer} for f in sources.faqs]}


def _ref(source: Source) -> SourceRef:
    if isinstance(source, FaqSource):
        return SourceRef.of_faq(source.id)
    if isinstance(source, PageChunk):
        return SourceRef.of_page(source.lecture_unit_id, source.page_number)
    return SourceRef.of_span(source.lecture_unit_id, source.start, source.end)


def _sentence(text: str, turn: int) -> str:
    """About 65 characters of ``text`` (whole words, one line), ending with a period; from a later word in
    every ``turn``, so that the sentences of a long answer differ."""
    words = " ".join(text.split()).split(" ")
    out = ""
    for word in words[(turn * 4) % max(1, len(words) - 3) :]:
        if len(out) + len(word) > 65 and out:
            break
        out = f"{out} {word}" if out else word
    return out.rstrip(".!?:;,") + "."


def answer_of(sources: Sources, n: int) -> str:
    """Sentences of ``sources`` in turn, each behind its own final-form marker, ``n`` characters in all."""
    every = [s for s in (*sources.lecture, *sources.faqs)
             if (s.answer if isinstance(s, FaqSource) else s.text).strip()]
    parts: list[str] = []
    size, i = 0, 0
    while size < n:
        source = every[i % len(every)]
        text = source.answer if isinstance(source, FaqSource) else source.text
        marker = FinalMarker(_ref(source), "Keyword", "What the source says.").format()
        piece = _sentence(text, i // len(every)) + marker + " "
        parts.append(piece)
        size += len(piece)
        i += 1
    answer = "".join(parts)
    cut = answer.rfind("] ", 0, n) + 1  # end at a marker
    return answer[:cut]


def run(argv: Sequence[str], cwd: Path) -> dict[str, float]:
    """``argv`` in a fresh process: wall seconds and its peak resident memory (MiB)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        raise RuntimeError(f"{' '.join(argv[3:5])} failed: {err.strip()[-300:]}")
    return {"seconds": seconds, "peak_mb": usage.ru_maxrss / 1024}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", default=",".join(map(str, LENGTHS)), help="answer lengths in characters")
    parser.add_argument("--code", default=str(ROOT), help="folder whose citation_core is measured (default: this one)")
    parser.add_argument("--no-cite", action="store_true", help="time audit only")
    args = parser.parse_args(argv)
    lengths = [int(x) for x in args.lengths.split(",")]
    folder = Path(tempfile.mkdtemp(prefix="hostile-audit-"))
    sources = course_sources()
    (folder / "sources.json").write_text(json.dumps(sources_json(sources)), encoding="utf-8")
    print("| answer chars | markers | audit s | audit MiB | ratio | cite s (markers removed) | cite MiB |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    previous = None
    for n in lengths:
        answer = answer_of(sources, n)
        (folder / "answer.md").write_text(answer, encoding="utf-8")
        (folder / "plain.md").write_text(strip_markers(answer), encoding="utf-8")
        base = [sys.executable, "-m", "citation_core.cli.main"]
        au = run([*base, "audit", "--sources", str(folder / "sources.json"), "--answer", str(folder / "answer.md")],
                 Path(args.code))
        ci = None if args.no_cite else run(
            [*base, "cite", "--sources", str(folder / "sources.json"), "--answer", str(folder / "plain.md")],
            Path(args.code))
        ratio = f"{au['seconds'] / previous:.1f}" if previous else ""
        previous = au["seconds"]
        cite_cols = f"{ci['seconds']:.2f} | {ci['peak_mb']:.0f}" if ci else "– | –"
        print(f"| {len(answer):,} | {answer.count('[cite:'):,} | {au['seconds']:.2f} | {au['peak_mb']:.0f} | "
              f"{ratio} | {cite_cols} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
