"""Hostile lecture material at growing sizes: how the time grows (``python -m bench.hostile_material``).

Every case is run at sizes n, 2n, 4n, ... and the table shows the seconds and the ratio to the size
before: about 2 is linear growth, 4 quadratic, 8 cubic. Cases:

* transcripts (``load_transcript`` end to end, written to a temporary file): a voice span ``<v``
  followed by a long run of spaces or tabs and no ``>`` (WebVTT and SRT), long runs of ``<``, ``<v``,
  ``{\\``, voice classes, a digit run in a timing line, spaces around ``-->``, many cues;
* the cue-text patterns used before (``_VOICE``, ``_TAG``, ``_ASS_OVERRIDE``, ``\\d+:\\d+``), measured
  only up to sizes where they still end in reasonable time, for comparison;
* the other patterns in ``citation_core/material``: the printed-number clues of a deck page, the
  language code of a manifest, the paragraph split of a page, an uploaded file name;
* YAML nested n deep (the one-line "nested too deeply" error);
* ``--deck``: a deck of 250 ... 2000 pages, loaded (slow: builds the PDFs; the printed-number chain
  is quadratic in the pages that carry a number, see the note it prints).

Exits non-zero when a case of today's code grows faster than quadratic over the last doubling
(ratio above 5 while taking more than 2 ms; shorter runs are within timer noise).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from citation_core.errors import MaterialError
from citation_core.material.chunks import _PARAGRAPH
from citation_core.material.course import _LANGUAGE, load_course
from citation_core.material.deck import _clues, load_deck
from citation_core.material.transcript import load_transcript
from citation_core.material.uploads import display_name

VTT_HEAD = "WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n"
SRT_HEAD = "1\n00:00:01,000 --> 00:00:04,000\n"

# the cue-text patterns before the linear scan (kept here only to measure against)
OLD_VOICE = re.compile(r"<v(?:\.[\w-]+)*\s+([^>]*?)\s*>")
OLD_TAG = re.compile(r"<[^>]*>")
OLD_OVERRIDE = re.compile(r"\{\\[^}]*\}")
OLD_LOOKS_LIKE_TIME = re.compile(r"\d+:\d+")


def best_of(fn: Callable[[], object], repeat: int = 7, budget: float = 2.0) -> float:
    """The fastest of a few runs (fewer when one run is slow)."""
    times: list[float] = []
    while len(times) < repeat:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        if sum(times) > budget:
            break
    return min(times)


def transcript_case(folder: Path, name: str, text: str) -> Callable[[], object]:
    path = folder / name
    path.write_text(text, encoding="utf-8")

    def run() -> object:
        try:
            return load_transcript(path)
        except MaterialError as err:
            return err

    return run


def old_plain(line: str) -> str:
    line = OLD_VOICE.sub(lambda m: f"{m.group(1)}: " if m.group(1) else "", line)
    return OLD_OVERRIDE.sub("", OLD_TAG.sub("", line))


def yaml_case(folder: Path, depth: int) -> Callable[[], object]:
    root = folder / f"deep{depth}"
    root.mkdir(exist_ok=True)
    (root / "course.yml").write_text("[" * depth + "]" * depth, encoding="utf-8")

    def run() -> object:
        try:
            return load_course(root)
        except MaterialError as err:
            return err

    return run


def many_cues(n: int) -> str:
    cues = [f"{i + 1}\n{_srt_time(i)} --> {_srt_time(i + 1)}\n<v Ann>cue {i} <i>text</i>\n" for i in range(n)]
    return "\n".join(cues)


def _srt_time(second: int) -> str:
    return f"{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d},000"


def series(sizes: list[int], make: Callable[[int], Callable[[], object]]) -> list[tuple[int, float]]:
    """(n, seconds) for each size; ``make(n)`` prepares the input and returns what is timed."""
    return [(n, best_of(make(n))) for n in sizes]


def transcript_series(
    folder: Path, sizes: list[int], make_text: Callable[[int], str], name: str
) -> list[tuple[int, float]]:
    return series(sizes, lambda n: transcript_case(folder, name, make_text(n)))


def print_table(title: str, results: list[tuple[str, list[tuple[int, float]]]]) -> None:
    print(f"\n### {title}\n")
    print("| case | n | seconds | ratio to n/2 |")
    print("|---|---:|---:|---:|")
    for label, rows in results:
        previous = None
        for n, seconds in rows:
            ratio = f"{seconds / previous:.1f}" if previous else "—"
            print(f"| {label} | {n:,} | {seconds:.4f} | {ratio} |")
            previous = max(seconds, 1e-6)


def worst_ratio(rows: list[tuple[int, float]]) -> float:
    (_, a), (_, b) = rows[-2], rows[-1]
    return b / max(a, 1e-6) if b > 0.002 else 1.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deck", action="store_true", help="also load decks of 250 ... 2000 pages")
    args = parser.parse_args(argv)
    sizes = [16_000, 32_000, 64_000, 128_000, 256_000]
    old_sizes = [250, 500, 1_000, 2_000]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        transcripts: list[tuple[str, Callable[[int], str], str]] = [
            ("vtt: `<v` + n spaces + `x`", lambda n: VTT_HEAD + "<v" + " " * n + "x", "t.vtt"),
            ("srt: `<v` + n tabs + `x`", lambda n: SRT_HEAD + "<v" + "\t" * n + "x\n", "t.srt"),
            ("vtt: `<v` + n spaces + `Bob` + n spaces + `>`",
             lambda n: VTT_HEAD + "<v" + " " * n + "Bob" + " " * n + ">hi", "t.vtt"),
            ("vtt: n × `<`", lambda n: VTT_HEAD + "<" * n, "t.vtt"),
            ("vtt: n/2 × `<v`", lambda n: VTT_HEAD + "<v" * (n // 2), "t.vtt"),
            ("vtt: n/2 × `{\\`", lambda n: VTT_HEAD + "{\\" * (n // 2), "t.vtt"),
            ("vtt: `<v` + n/2 × `.a`", lambda n: VTT_HEAD + "<v" + ".a" * (n // 2), "t.vtt"),
            ("srt: timing line of n digits + `: 2:3`",
             lambda n: "1\n00:00:00,000 --> 00:00:01,000\nx\n\n2\n" + "1" * n + ": 2:3\nx\n", "t.srt"),
            ("srt: n spaces around `-->`",
             lambda n: "1\n00:00:01,000" + " " * n + "-->" + " " * n + "00:00:02,000\nx\n", "t.srt"),
            ("vtt: n spaces then a timing line", lambda n: "WEBVTT\n\n" + " " * n + "00:01.000 --> 00:02.000\nx\n",
             "t.vtt"),
        ]
        new_results = [(label, transcript_series(folder, sizes, make_text, name))
                       for label, make_text, name in transcripts]
        new_results.append(("srt: n/40 cues with voice spans and tags",
                            transcript_series(folder, sizes, lambda n: many_cues(n // 40), "c.srt")))
        print_table("Transcripts, load_transcript end to end (now)", new_results)

        old_results = [
            ("old `_VOICE` on `<v` + n spaces + `x`",
             series(old_sizes, lambda n: lambda: old_plain("<v" + " " * n + "x"))),
            ("old `_VOICE` on `<v` + n tabs + `x`",
             series(old_sizes, lambda n: lambda: old_plain("<v" + "\t" * n + "x"))),
            ("old `_TAG` on n × `<`", series([s * 8 for s in old_sizes], lambda n: lambda: old_plain("<" * n))),
            ("old `_ASS_OVERRIDE` on n/2 × `{\\`",
             series([s * 8 for s in old_sizes], lambda n: lambda: old_plain("{\\" * (n // 2)))),
            ("old `\\d+:\\d+` on n digits + `: 2:3`",
             series([s * 8 for s in old_sizes], lambda n: lambda: OLD_LOOKS_LIKE_TIME.search("1" * n + ": 2:3"))),
        ]
        print_table("The cue-text patterns used before (for comparison)", old_results)

        other_results = [
            ("deck clues: n spaces between `slide` and `x`",
             series(sizes, lambda n: lambda: _clues("slide" + " " * n + "x"))),
            ("deck clues: `1 /` + n spaces + `x`", series(sizes, lambda n: lambda: _clues("1 /" + " " * n + "x"))),
            ("deck clues: n/2 × `1 `", series(sizes, lambda n: lambda: _clues("1 " * (n // 2) + "x"))),
            ("deck clues: n/6 × `slide `", series(sizes, lambda n: lambda: _clues("slide " * (n // 6) + "x"))),
            ("language code: `en` + n/3 × `-ab`",
             series(sizes, lambda n: lambda: _LANGUAGE.fullmatch("en" + "-ab" * (n // 3) + "!"))),
            ("paragraph split: `\\n` + n spaces",
             series(sizes, lambda n: lambda: _PARAGRAPH.split(("\n" + " " * 50) * (n // 51) + "x"))),
            ("upload name: n/3 × `../`", series(sizes, lambda n: lambda: display_name("../" * (n // 3) + "x.pdf"))),
            ("upload name: n dots", series(sizes, lambda n: lambda: display_name("." * n))),
            ("course.yml nested n deep", series([1_000, 2_000, 4_000, 8_000], lambda n: yaml_case(folder, n))),
        ]
        print_table("Other patterns in citation_core/material (now)", other_results)

        if args.deck:
            from tests.material_fixtures import make_pdf

            def deck_case(n: int) -> Callable[[], object]:
                pdf = make_pdf(folder / f"deck{n}.pdf", [[f"Topic {i}", "text", f"{i} / {n}"] for i in range(1, n + 1)])
                return lambda: load_deck(pdf, cache=False)  # the number detection on every load, not a cached read

            deck_rows = [("deck of n pages printing `i / n`", series([250, 500, 1_000, 2_000], deck_case))]
            print_table("Deck loading (not changed)", deck_rows)
            print("\nnote: the printed-number chain compares every numbered page with every earlier one "
                  "(quadratic); a 2,000-page deck loads in seconds.")

    too_fast = [(label, worst_ratio(rows)) for label, rows in new_results + other_results if worst_ratio(rows) > 5]
    for label, ratio in too_fast:
        print(f"super-linear: {label}: ×{ratio:.1f} from the last doubling", file=sys.stderr)
    return 1 if too_fast else 0


if __name__ == "__main__":
    sys.exit(main())
