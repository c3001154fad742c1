"""Time and peak memory of ``render_markdown`` on hostile answers of growing length, as ratios
(``python -m bench.hostile_render``).

Shapes: a run of ``[`` (every one opens a link label that never closes), a run of ``![``, a two-column
table of many rows, back-to-back marker candidates, and plain words. For each shape and each length
n = 25,000 … 200,000 characters (200,000 is ``MAX_ANSWER_CHARS``) one fresh process renders the text
once and reports its wall time and how much its peak resident memory grew. The ratio columns divide
by the row before: with n doubling, about 2 means linear, about 4 quadratic.

Then the cost of refusing an answer over the limit (1 MB and 2 MB), and, with ``--uncapped N ...``,
the renderer without the limit at those lengths (the behaviour before the limit: minutes and GB for
a few MB). ``--browser`` adds the chip renderer: the standalone preview (same JS and CSS as the app's
component) until its chips are ready in headless Chromium.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from citation_core.errors import InputError
from citation_core.lms import render
from citation_core.lms.render import MAX_ANSWER_CHARS, render_markdown

SHAPES: dict[str, Callable[[int], str]] = {
    "[ run": lambda n: "[" * n,
    "![ run": lambda n: "![" * (n // 2 + 1),
    "table": lambda n: "|a|b|\n|-|-|\n" + "|x|y|\n" * (n // 6 + 1),
    "markers": lambda n: "Sorted.[cite:L:12:3:::Split:Divides the list.] " * (n // 46 + 1),
    "words": lambda n: "merge sort splits the list " * (n // 27 + 1),
}
LENGTHS = (25_000, 50_000, 100_000, MAX_ANSWER_CHARS)


def text_of(shape: str, n: int) -> str:
    return SHAPES[shape](n)[:n]


def one(shape: str, n: int, uncapped: bool) -> dict[str, float]:
    """Render once in this process: seconds and the growth of the peak resident memory (MB)."""
    text = text_of(shape, n)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    if uncapped:
        render._MD.render(text, {})
    else:
        render_markdown(text)
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before  # KB on Linux
    return {"seconds": seconds, "peak_mb": peak / 1024}


def measured(shape: str, n: int, uncapped: bool = False) -> dict[str, float]:
    """``one`` in a fresh process, so that the peak memory is this render's alone."""
    args = [sys.executable, "-m", "bench.hostile_render", "--one", shape, str(n)] + (["--uncapped"] if uncapped else [])
    out = subprocess.run(args, capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parents[1])
    result: dict[str, float] = json.loads(out.stdout)
    return result


def ratio(now: float, before: float | None) -> str:
    if before is None:
        return "     "
    return f"{now / before:5.1f}" if before > 0.001 else "    -"


def table(lengths: tuple[int, ...], uncapped: bool) -> None:
    print(f"{'shape':<9} {'n':>9}  {'seconds':>8} {'ratio':>5}  {'peak MB':>8} {'ratio':>5}")
    for shape in SHAPES:
        prev: dict[str, float] | None = None
        for n in lengths:
            m = measured(shape, n, uncapped)
            seconds, peak = (prev["seconds"], prev["peak_mb"]) if prev else (None, None)
            print(f"{shape:<9} {n:>9,}  {m['seconds']:>8.3f} {ratio(m['seconds'], seconds)}  "
                  f"{m['peak_mb']:>8.1f} {ratio(m['peak_mb'], peak)}", flush=True)
            prev = m
        print()


def refusals() -> None:
    for n in (1_000_000, 2_000_000):
        text = "[" * n
        t0 = time.perf_counter()
        try:
            render_markdown(text)
        except InputError as err:
            print(f"{n:>9,} characters refused in {(time.perf_counter() - t0) * 1000:.3f} ms: {err}")


def browser(lengths: tuple[int, ...]) -> None:
    from playwright.sync_api import sync_playwright

    from citation_core.lms.chips import html_preview_document

    print(f"\nchip renderer in Chromium (preview page until its chips are ready)\n{'shape':<9} {'n':>9}  "
          f"{'seconds':>8} {'ratio':>5}")
    doc = Path("/tmp/hostile_render_preview.html")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        for shape in SHAPES:
            prev = None
            for n in lengths:
                doc.write_text(html_preview_document(text_of(shape, n), {}, {}), encoding="utf-8")
                page = chromium.new_page()
                t0 = time.perf_counter()
                page.goto(doc.as_uri())
                page.wait_for_function("window.__chipsReady === true", timeout=600_000)
                seconds = time.perf_counter() - t0
                page.close()
                print(f"{shape:<9} {n:>9,}  {seconds:>8.3f} {ratio(seconds, prev)}", flush=True)
                prev = seconds
        chromium.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--one", nargs=2, metavar=("SHAPE", "N"), help=argparse.SUPPRESS)
    p.add_argument("--uncapped", nargs="*", type=int, metavar="N",
                   help="also render without the limit at these lengths, e.g. 200000 1000000 2000000")
    p.add_argument("--browser", action="store_true", help="also time the chip renderer in headless Chromium")
    args = p.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]), args.uncapped is not None)))
        return 0
    print(f"render_markdown, MAX_ANSWER_CHARS = {MAX_ANSWER_CHARS:,}\n")
    table(LENGTHS, uncapped=False)
    refusals()
    if args.uncapped:
        print("\nwithout the limit (the behaviour before it)\n")
        table(tuple(args.uncapped), uncapped=True)
    if args.browser:
        browser(LENGTHS)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
