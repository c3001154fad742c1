"""Cited while it streams: inline handles beside the placement passes, in process, in the CLI and in the app.

``python -m bench.inline_citing`` runs a ``LocalChatServer`` on 127.0.0.1 that plays a hosted model paced per
call: the first token after ``--ttft`` seconds (1.0), then ``--rate`` words per second (20); a reply that
does not stream (placement, keyword, summary) comes whole after the same ``ttft + words / rate``. The writer
looks the topic up once (a tool call), then writes an answer of ``--words`` (90 and 300 words). Three modes:

* **placement** (``citation.mode: placement``, ``placement_mode: iris``): the writer answers, then the placement
  model writes the answer again with ids inserted (both passes at once), then keywords (batched) and summaries;
* **places** (``citation.placement_mode: places``): as placement, but the placement model replies only with
  the sentence numbers and source ids (a small JSON object) and the pipeline inserts the markers;
* **inline** (``citation.mode: inline``): the writer puts a handle behind every third sentence while it
  streams; keywords and summaries start when a handle appears.

Each mode and length is measured in three places (medians of ``--runs``):

* **in process**: ``ChatPipeline`` called in this process (after one untimed turn): seconds from the call to the
  first answer word (``on_delta``) and to the first chip (a final marker in a partial render; otherwise the
  cited answer), from the writer's last word to the cited answer returned;
* **CLI**: ``citation-studio ask --stream`` as a new process per turn, its stdout timed as it arrives
  (``bench.timed_ask.cli_ask``): seconds from the process start to the first answer byte and to the first
  whole marker printed (the CLI prints markers with the cited answer), from the draft's last byte to the
  cited answer's last byte;
* **app** (unless ``--no-app``): one app server per mode (``tests/e2e/harness.running_app``) in headless
  Chromium, one untimed question first, then the timed ones in the same conversation
  (``bench.timed_ask.app_ask``): seconds from the click on Ask to the first answer word shown and to the first
  chip shown; whether that chip showed before the writer's stream had ended; from the writer's last word
  (the server's last chunk) to the stored answer's chips drawn and the app idle again.

The output tokens of a turn are counted where they are sent: the server's handler adds up the completion
tokens of every reply (about four characters a token, as the server's usage field reports them).

A last measurement is the CLI's start: the writer answering at once (no lookup), first token after ``--ttft``,
the seconds from the process start to the first answer byte.

Prints Markdown tables and one PASS/MISSED line per goal and mode; with ``--check`` exits 1 when a mode of
``--check-modes`` (default: inline) misses a goal.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.timed_ask import app_ask, app_env, cli_ask, config_dir
from citation_core.chat.chat_pipeline import ChatPipeline
from citation_core.chat.view import ViewPosition
from citation_core.contract import strip_markers
from citation_core.llm.config import load_config
from citation_core.material.library import load_material
from citation_core.testing.server import ChatRequest, LocalChatServer, Reply

ROOT = Path(__file__).resolve().parents[1]
SENTENCE = "Merge sort splits the list into halves and merges them again."  # 11 words
FIRST_WORD = SENTENCE.split()[0]  # not in QUESTION
QUESTION = "How does merging work?"
MODES: dict[str, dict[str, str]] = {"placement": {"mode": "placement", "placement_mode": "iris"},
                                    "places": {"mode": "placement", "placement_mode": "places"},
                                    "inline": {"mode": "inline"}}
PLACES = ("in process", "CLI", "app")
GOAL_AFTER_LAST_WORD = 2.5  # seconds from the writer's last word to the complete cited answer, CLI and app
GOAL_CLI_FIRST_WORD = 2.5  # seconds from the CLI's start to the first answer word, first token after 1 s


def answer(words: int, handles: list[str]) -> str:
    """About ``words`` words of sentences; with ``handles``, one behind every third sentence."""
    count = max(1, round(words / len(SENTENCE.split())))
    out = []
    for i in range(count):
        cite = handles[(i // 3) % len(handles)] if handles and i % 3 == 2 else ""
        out.append(SENTENCE + cite)
    return " ".join(out)


class PacedModel:
    """The server's handler: every call paced as a hosted model would be. ``words``, ``ttft`` and ``rate`` may
    change between turns; ``lookup=False`` makes the writer answer at once instead of calling a tool first.
    ``sent_tokens`` counts the completion tokens of every reply (about four characters a token)."""

    def __init__(self, words: int, ttft: float, rate: float, lookup: bool = True) -> None:
        self.words, self.ttft, self.rate, self.lookup = words, ttft, rate, lookup
        self._lock = threading.Lock()
        self._tokens = 0

    @property
    def sent_tokens(self) -> int:
        with self._lock:
            return self._tokens

    def paced(self, body: ChatRequest, content: str = "", **extra: Any) -> Reply:
        calls = extra.get("tool_calls") or []
        chars = len(content) + sum(len(c["function"]["name"]) + len(c["function"]["arguments"]) for c in calls)
        with self._lock:
            self._tokens += (chars + 3) // 4
        if body.get("stream"):
            return Reply(content=content, first_token_delay=self.ttft, token_rate=self.rate, **extra)
        size = len(content.split()) + len(json.dumps(calls or "").split())
        return Reply(content=content, delay=self.ttft + size / self.rate, **extra)

    def __call__(self, body: ChatRequest) -> Reply:
        first = body["messages"][0]["content"]
        if body.task == "writer":
            tools = [m for m in body["messages"] if m.get("role") == "tool"]
            if not tools and self.lookup:
                return self.paced(body, tool_calls=[{"id": "c1", "type": "function", "function": {
                    "name": "lecture_retrieval", "arguments": json.dumps({"query": "merge sort merging halves"})}}])
            handles = [r["cite"] for m in tools for r in json.loads(m["content"]) if "cite" in r]
            return self.paced(body, answer(self.words, handles))
        if body.task == "placement":
            ids = [e["id"] for e in json.loads(first.split("Paragraphs:\n", 1)[1].split("\n\nAnswer:")[0])]
            text = first.split("\n\nAnswer:\n", 1)[1].strip() if "\n\nAnswer:\n" in first else ""
            parts = text.split(". ")
            placed = ". ".join(p + (ids[(i // 3) % len(ids)] if ids and i % 3 == 2 else "")
                               for i, p in enumerate(parts))
            return self.paced(body, placed)
        if body.task == "placement_places":  # ids for every third sentence: a small JSON object
            ids = [e["id"] for e in json.loads(first.split("Paragraphs:\n", 1)[1].split("\n\nSentences:")[0])]
            units = json.loads(first.split("Sentences:\n", 1)[1].strip())
            places = {str(u["n"]): [ids[(i // 3) % len(ids)]] for i, u in enumerate(units) if ids and i % 3 == 2}
            return self.paced(body, json.dumps(places))
        if body.task == "keywords_batched":
            count = len(json.loads(first.split("Paragraphs (JSON array):\n", 1)[1]))
            return self.paced(body, json.dumps([f"Merge step {i + 1}" for i in range(count)]))
        if body.task == "keyword":
            return self.paced(body, "Merge sort")
        return self.paced(body, "Merge sort merges two sorted halves in linear time.")


@dataclass(frozen=True)
class Turn:
    """One timed turn in one place (seconds)."""

    first_word: float  # from the start (call, process start, click on Ask) to the first answer word shown
    first_chip: float  # from the same start to the first chip (or marker) shown
    after_last_word: float  # from the writer's last word to the complete cited answer
    output_tokens: int  # completion tokens of every call of the turn
    chip_while_streaming: bool | None = None  # (app) the first chip showed before the writer's stream ended


@dataclass
class Served:
    """A paced model on a local server, for the turns of one mode."""

    model: PacedModel
    server: LocalChatServer
    folder: Path

    def writer_end(self, since: float) -> float:
        """When the server sent the last chunk of the writer's last reply begun after ``since``."""
        return max(r.finished for r in self.server.requests if r.task == "writer" and r.started >= since)


@contextmanager
def served(ttft: float, rate: float, folder: Path, lookup: bool = True) -> Iterator[Served]:
    model = PacedModel(90, ttft, rate, lookup)
    with LocalChatServer(model) as server:
        yield Served(model, server, folder)


def in_process(s: Served, mode: str, words: int) -> Turn:
    s.model.words = words
    cfg = load_config(config_dir(s.server.base_url, s.folder / "config", MODES[mode]), override="local")
    chat = ChatPipeline(cfg, load_material(ROOT / "sample_decks"))
    marks: dict[str, float] = {}
    tokens = s.model.sent_tokens
    start = time.monotonic()

    def delta(_: str) -> None:
        marks.setdefault("first_word", time.monotonic() - start)
        marks["last_word"] = time.monotonic() - start

    def partial(text: str) -> None:
        if "first_chip" not in marks and strip_markers(text) != text:
            marks["first_chip"] = time.monotonic() - start

    result = chat(QUESTION, ViewPosition(101, page=6), on_delta=delta, on_partial=partial)
    done = time.monotonic() - start
    if strip_markers(result.answer) == result.answer:
        raise SystemExit(f"in process, {mode}, {words} words: the answer was not cited")
    return Turn(marks["first_word"], marks.get("first_chip", done), done - marks["last_word"],
                s.model.sent_tokens - tokens)


def in_cli(s: Served, mode: str, words: int, run: int) -> Turn:
    s.model.words = words
    tokens = s.model.sent_tokens
    out = cli_ask(s.server.base_url, s.folder / f"cli-{words}-{run}", QUESTION, citation=MODES[mode])
    cited_at = out.text.rfind("\n\n" + SENTENCE.split()[0])  # the draft, a blank line, the cited answer
    marker = out.first_marker()
    if cited_at < 1 or marker is None:
        raise SystemExit(f"CLI, {mode}, {words} words: no cited answer after the draft in {out.text[-200:]!r}")
    return Turn(out.first_byte, marker, out.printed - out.at_char(cited_at - 1), s.model.sent_tokens - tokens)


def cli_first_word(s: Served, mode: str, run: int) -> float:
    """Seconds from the CLI's start to the first answer byte, the writer answering at once."""
    return cli_ask(s.server.base_url, s.folder / f"start-{run}", QUESTION, citation=MODES[mode],
                   first_byte_only=True).first_byte


def in_app(s: Served, page: Any, words: int) -> Turn:
    s.model.words = words
    tokens = s.model.sent_tokens
    asked = time.monotonic()
    turn = app_ask(page, QUESTION, FIRST_WORD)
    end = s.writer_end(asked) + time.time() - time.monotonic()  # on the page's clock
    return Turn(turn.first_word - turn.asked, turn.first_chip - turn.asked, turn.idle - end,
                s.model.sent_tokens - tokens, turn.first_chip < end)


def app_turns(args: argparse.Namespace, mode: str, sizes: list[int], folder: Path, browser: Any,
              ) -> dict[int, list[Turn]]:
    """A fresh app server for ``mode``: one untimed question, then ``--runs`` turns of each length."""
    from tests.e2e.harness import open_ask, running_app

    out: dict[int, list[Turn]] = {w: [] for w in sizes}
    with served(args.ttft, args.rate, folder) as s, \
            running_app(app_env(s.server.base_url, folder, MODES[mode]), timeout=120) as url:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        open_ask(page, url)
        s.model.words, s.model.ttft, s.model.rate = 40, 0.0, 1000.0  # the server's first question, untimed
        app_ask(page, QUESTION, FIRST_WORD)
        s.model.ttft, s.model.rate = args.ttft, args.rate
        for _ in range(args.runs):
            for w in sizes:
                out[w].append(in_app(s, page, w))
        page.close()
    return out


def median(turns: list[Turn]) -> Turn:
    shown = [t.chip_while_streaming for t in turns]
    return Turn(statistics.median(t.first_word for t in turns), statistics.median(t.first_chip for t in turns),
                statistics.median(t.after_last_word for t in turns),
                round(statistics.median(t.output_tokens for t in turns)),
                None if None in shown else all(shown))


def measure(args: argparse.Namespace, sizes: list[int], tmp: Path) -> tuple[dict[tuple[str, str, int], Turn],
                                                                          dict[str, float]]:
    runs: dict[tuple[str, str, int], list[Turn]] = {}
    starts: dict[str, float] = {}
    with served(0.0, 1000.0, tmp / "warm") as s:  # untimed: the SDK's import and the course's indexes, once
        s.model.words = 40
        in_process(s, "inline", 40)
        cli_ask(s.server.base_url, s.folder / "cli", QUESTION, first_byte_only=True)
    for mode in MODES:
        with served(args.ttft, args.rate, tmp / f"{mode}-process") as s:
            for _ in range(args.runs):
                for w in sizes:
                    runs.setdefault(("in process", mode, w), []).append(in_process(s, mode, w))
        with served(args.ttft, args.rate, tmp / f"{mode}-cli") as s:
            for run in range(args.runs):
                for w in sizes:
                    runs.setdefault(("CLI", mode, w), []).append(in_cli(s, mode, w, run))
        with served(args.ttft, args.rate, tmp / f"{mode}-start", lookup=False) as s:
            starts[mode] = statistics.median(cli_first_word(s, mode, run) for run in range(args.runs))
    if not args.no_app:
        from playwright.sync_api import sync_playwright

        from tests.e2e.harness import launch

        with sync_playwright() as playwright:
            browser = launch(playwright)
            try:
                for mode in MODES:
                    for w, turns in app_turns(args, mode, sizes, tmp / f"{mode}-app", browser).items():
                        runs[("app", mode, w)] = turns
            finally:
                browser.close()
    return {key: median(turns) for key, turns in runs.items()}, starts


def table(title: str, rows: Mapping[tuple[str, str, int], Turn], sizes: list[int],
          cell: Callable[[Turn], str]) -> str:
    places = [p for p in PLACES if any(key[0] == p for key in rows)]
    lines = [f"| words | mode | {title}: " + " | ".join(places) + " |", "|---:|---|" + "---:|" * len(places)]
    for w in sizes:
        for mode in MODES:
            cells = [cell(rows[(p, mode, w)]) if (p, mode, w) in rows else "—" for p in places]
            lines.append(f"| {w} | {mode} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def goals(rows: Mapping[tuple[str, str, int], Turn], starts: Mapping[str, float], sizes: list[int],
          ) -> list[tuple[str, str, bool | None, str]]:
    """(goal, mode, met, figures) per goal and mode; met is None when the goal was not measured."""
    out: list[tuple[str, str, bool | None, str]] = []
    for mode in MODES:
        cells = {(p, w): rows[(p, mode, w)].after_last_word for p in ("CLI", "app") for w in sizes
                 if (p, mode, w) in rows}
        figures = ", ".join(f"{p} {w} words {s:.2f} s" for (p, w), s in cells.items())
        met = all(s <= GOAL_AFTER_LAST_WORD for s in cells.values()) and len(cells) == 2 * len(sizes)
        out.append((f"last word → cited answer ≤ {GOAL_AFTER_LAST_WORD:g} s in the CLI and the app", mode,
                    met if cells else None, figures + ("" if len(cells) == 2 * len(sizes) else ", app not measured")))
    for mode in MODES:
        shown = [(w, rows[("app", mode, w)]) for w in sizes if ("app", mode, w) in rows]
        figures = ", ".join(f"{w} words: first chip {t.first_chip:.2f} s after Ask, "
                            + ("while" if t.chip_while_streaming else "after") + " the writer streamed"
                            for w, t in shown)
        out.append(("app: the first chip shows while the answer is still streaming", mode,
                    all(t.chip_while_streaming for _, t in shown) if shown else None, figures or "not measured"))
    for mode in MODES:
        out.append((f"CLI: first answer word ≤ {GOAL_CLI_FIRST_WORD:g} s after the start (writer answering at once)",
                    mode, starts[mode] <= GOAL_CLI_FIRST_WORD, f"{starts[mode]:.2f} s"))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ttft", type=float, default=1.0)
    parser.add_argument("--rate", type=float, default=20.0)
    parser.add_argument("--words", default="90,300")
    parser.add_argument("--runs", type=int, default=1, help="turns per mode, length and place; medians")
    parser.add_argument("--no-app", action="store_true", help="leave the app out")
    parser.add_argument("--check", action="store_true", help="exit 1 when a mode of --check-modes misses a goal")
    parser.add_argument("--check-modes", default="inline", help="modes --check holds to the goals (inline)")
    args = parser.parse_args(argv)
    sizes = [int(w) for w in args.words.split(",")]
    checked = [m.strip() for m in args.check_modes.split(",") if m.strip()]
    unknown = [m for m in checked if m not in MODES]
    if args.runs < 1 or unknown:
        parser.error(f"--check-modes: unknown mode {unknown[0]!r}" if unknown else "--runs: expected 1 or more")
    with tempfile.TemporaryDirectory() as tmp:
        rows, starts = measure(args, sizes, Path(tmp))
    print(f"first token after {args.ttft:g} s, {args.rate:g} words/s; median of {args.runs} run(s)\n")
    print(table("first word s", rows, sizes, lambda t: f"{t.first_word:.2f}") + "\n")
    print(table("first chip s", rows, sizes, lambda t: f"{t.first_chip:.2f}" + (
        "" if t.chip_while_streaming is None else " (streaming)" if t.chip_while_streaming else " (after)")) + "\n")
    print(table("last word → cited answer s", rows, sizes, lambda t: f"{t.after_last_word:.2f}") + "\n")
    print(table("output tokens", rows, sizes, lambda t: f"{t.output_tokens}") + "\n")
    print("| mode | CLI: first answer word s, writer answering at once |\n|---|---:|")
    for mode, seconds in starts.items():
        print(f"| {mode} | {seconds:.2f} |")
    print()
    missed = False
    for goal, mode, met, figures in goals(rows, starts, sizes):
        word = "NOT MEASURED" if met is None else "PASS" if met else "MISSED"
        print(f"{word} {mode}: {goal} ({figures})")
        missed |= met is False and mode in checked
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
