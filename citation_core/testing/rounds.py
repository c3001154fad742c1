"""How many LLM round trips does one citation pass cost? (``citation-studio bench``, ``make bench``)

The pipeline runs over real HTTP against a ``LocalChatServer`` on 127.0.0.1, in a process of its own as a
real endpoint is (``ServedApart``), that answers every chat-completions request after the same fixed delay
D. Wall time divided by D is then the number of sequential "rounds" of model calls: the placement call is
one round, the summaries (all in parallel) one more, and the keyword task either N rounds (``sequential``:
each call sees the keywords before it) or one (``batched``), run alongside the summaries. So sequential
needs about N + 1 rounds and batched about 2.

For every N (used citations) the run builds N distinct lecture pages and an answer of N sentences,
each sentence sharing two rare words with exactly one page, so the server's placement reply cites
all N pages. Besides the rounds, each pass reports how far apart its enrichment requests (the N
summaries and the first keyword call, sent at once) reached the server. A whole chat turn (FAQ and
lecture passes) is measured in the seed's order and with both passes at once.

The cases at D < 1 s run one at a time. At D >= 1 s the sequential-keyword cases, chains of 1 s waits
that use the CPU a few ms per round, run side by side, each in a process of its own, while the batched
cases run one at a time in this one (``--one-at-a-time``: everything in turn, about twice as long).

The script prints Markdown tables and exits non-zero when batched at N = 20 and D = 0.2 s needs more
than ``BATCHED_LIMIT`` rounds, when a whole turn with both passes at once and batched keywords needs
more than ``TURN_LIMIT`` at D >= 1 s, or when a run did not cite everything without failures.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import multiprocessing
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from ..contract import parse, strip_markers
from ..llm.config import KeywordStrategy, ModelConfig, PassOrder
from ..pipeline import CitationPipeline
from ..sources import FaqSource, PageChunk, Sources
from .cooperative import cooperative_handler
from .server import LocalChatServer, RecordedRequest, max_overlap

STRATEGIES: tuple[KeywordStrategy, ...] = ("sequential", "batched")
BATCHED_LIMIT = 2.3  # rounds allowed for batched at N = 20, D = 0.2 s
TURN_LIMIT = 2.5  # rounds allowed for a whole turn, both passes at once, batched keywords, at D >= 1 s
SIDE_BY_SIDE_FROM = 1.0  # sequential-keyword cases at this delay and above run side by side
ORDERS: tuple[PassOrder, ...] = ("faq_then_lecture", "parallel")


# --- the material: N pages, an answer with N sentences -------------------------------------------------

def build_case(n: int) -> tuple[str, list[PageChunk]]:
    """N distinct pages and an answer whose k-th sentence is supported by page k only."""
    pages = [
        PageChunk(
            f"bench-{k}", 42, k,
            f"Concept{k}\nConcept{k} is defined on this slide, together with example{k} and a short "
            f"discussion of when lemma{k} applies.",
            display_page_number=str(k),
        )
        for k in range(1, n + 1)
    ]
    answer = " ".join(f"Concept{k} is illustrated by example{k}." for k in range(1, n + 1))
    return answer, pages


# --- the server, apart ----------------------------------------------------------------------------------

class ServedApart:
    """The cooperative server (``cooperative_handler(delay=D)``) in a process of its own, as a real endpoint is.

    Served from a thread of this process, its request handling (HTTP parsing, the reply, JSON) took the GIL
    from the pass it answers, right when the pass sends its fan-out and reads the replies. Times are
    ``time.monotonic()``, the same clock in both processes.
    """

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.base_url = ""

    def __enter__(self) -> ServedApart:
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_serve_apart, args=(self.delay, child), daemon=True,
                                        name="citation-studio bench server")
        self._process.start()
        child.close()
        if not self._conn.poll(60):
            self._process.kill()
            raise RuntimeError("the bench server did not start within 60 s")
        self.base_url = self._conn.recv()
        return self

    @property
    def requests(self) -> list[RecordedRequest]:
        """The requests answered so far, in finish order (as ``LocalChatServer.requests``)."""
        self._conn.send("requests")
        found: list[RecordedRequest] = self._conn.recv()
        return found

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(OSError):  # the server process has ended already
            self._conn.send("stop")
        self._process.join(timeout=10)
        if self._process.is_alive():
            self._process.kill()
        self._conn.close()


def _serve_apart(delay: float, conn: Any) -> None:
    with LocalChatServer(cooperative_handler(delay=delay)) as srv:
        conn.send(srv.base_url)
        while conn.recv() == "requests":
            conn.send(srv.requests)


# --- one measured run -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Row:
    n: int
    strategy: KeywordStrategy
    calls: int
    wall: float
    rounds: float
    max_in_flight: int
    prompt_tokens: int
    completion_tokens: int
    problem: str  # "" when the run cited all N pages, rewrote them and had no failure
    delay: float = 0.2
    spread: float = 0.0  # seconds between the first and the last of the N + 1 enrichment requests sent at once


def run_once(n: int, strategy: KeywordStrategy, delay: float, apart: bool = True) -> Row:
    answer, pages = build_case(n)
    served = ServedApart(delay) if apart else LocalChatServer(cooperative_handler(delay=delay))
    with served as srv:
        model = ModelConfig(id="bench", type="openai_chat", model="bench-model", base_url=srv.base_url,
                            timeout=60.0, max_retries=0)
        pipeline = CitationPipeline(model, keyword_strategy=strategy)
        t0 = time.perf_counter()
        result = pipeline.run_pass(answer, pages)
        wall = time.perf_counter() - t0
        answered = srv.requests
    in_flight = max_overlap(answered)
    arrivals = sorted(r.started for r in answered if r.task != "placement")[: n + 1]
    usage = result.trace.usage()
    keywords = [m.keyword or "" for m in parse(result.answer, "client")]
    problems = []
    if len(result.used_seqs) != n or not result.rewritten:
        problems.append(f"cited {len(result.used_seqs)} of {n}")
    if result.trace.failures:
        problems.append("; ".join(f"{f.kind}: {f.message}" for f in result.trace.failures))
    if strip_markers(result.answer) != answer:
        problems.append("answer text changed")
    if len(keywords) != n or not all(keywords) or len({k.lower() for k in keywords}) != n:
        problems.append("keywords missing or not unique")
    return Row(n, strategy, int(usage["calls"]), wall, wall / delay, in_flight,
               int(usage["prompt_tokens"]), int(usage["completion_tokens"]), ", ".join(problems), delay,
               arrivals[-1] - arrivals[0] if arrivals else 0.0)


def build_turn(lecture: int, faqs: int) -> tuple[str, Sources]:
    """A chat turn's answer: ``lecture`` sentences each supported by one page, ``faqs`` by one FAQ."""
    answer, pages = build_case(lecture)
    entries = tuple(FaqSource(900 + k, f"Question{k} about rule{k}?", f"Rule{k} says policy{k} holds for everyone.")
                    for k in range(1, faqs + 1))
    answer += " " + " ".join(f"Rule{k} means policy{k} holds." for k in range(1, faqs + 1))
    return answer, Sources(tuple(pages), entries)


@dataclass(frozen=True)
class TurnRow:
    order: PassOrder
    strategy: KeywordStrategy
    delay: float
    rounds: float
    problem: str


def run_turn(order: PassOrder, strategy: KeywordStrategy, delay: float, lecture: int = 5, faqs: int = 3) -> TurnRow:
    answer, sources = build_turn(lecture, faqs)
    with ServedApart(delay) as srv:
        model = ModelConfig(id="bench", type="openai_chat", model="bench-model", base_url=srv.base_url,
                            timeout=60.0, max_retries=0)
        pipeline = CitationPipeline(model, keyword_strategy=strategy, pass_order=order)
        t0 = time.perf_counter()
        result = pipeline(answer, sources)
        wall = time.perf_counter() - t0
    kinds = [m.type for m in parse(result.answer, "client")]
    problems = []
    if kinds.count("L") != lecture or kinds.count("F") != faqs:
        problems.append(f"cited {kinds.count('L')} of {lecture} pages and {kinds.count('F')} of {faqs} FAQs")
    if result.failures:
        problems.append("; ".join(f"{f.kind}: {f.message}" for f in result.failures))
    if strip_markers(result.answer) != answer:
        problems.append("answer text changed")
    return TurnRow(order, strategy, delay, wall / delay, ", ".join(problems))


def turn_table(rows: list[TurnRow]) -> str:
    lines = ["| chat turn (5 lecture + 3 FAQ citations) | keywords | D (s) | rounds |", "|---|---|---:|---:|"]
    lines += [f"| {r.order} | {r.strategy} | {r.delay:g} | {r.rounds:.2f} |" for r in rows]
    return "\n".join(lines)


def expected_rounds(n: int, strategy: KeywordStrategy) -> str:
    return f"{n + 1}" if strategy == "sequential" else "2"


def table(rows: list[Row]) -> str:
    lines = [
        "| D (s) | N | strategy | LLM calls | max in flight | enrichment requests sent within (ms) | wall (s) "
        "| rounds = wall / D | expected rounds | prompt tokens | completion tokens | prompt + completion |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.delay:g} | {r.n} | {r.strategy} | {r.calls} | {r.max_in_flight} | {r.spread * 1000:.0f} "
            f"| {r.wall:.2f} | {r.rounds:.2f} | {expected_rounds(r.n, r.strategy)} | {r.prompt_tokens} "
            f"| {r.completion_tokens} | {r.prompt_tokens + r.completion_tokens} |"
        )
    return "\n".join(lines)


def compare_where(k: int) -> dict[str, list[Row]]:
    """``k`` runs of batched N = 20 at D = 0.2 s with the server in a process of its own and in this one,
    taking turns."""
    runs: dict[str, list[Row]] = {"apart": [], "here": []}
    for _ in range(k):
        runs["apart"].append(run_once(20, "batched", 0.2, apart=True))
        runs["here"].append(run_once(20, "batched", 0.2, apart=False))
    return runs


def where_table(runs: dict[str, list[Row]]) -> str:
    names = {"apart": "in a process of its own (measured above)", "here": "in a thread of this process"}
    lines = ["| N = 20, batched, D = 0.2 s: the server | runs | rounds: median (best–worst) "
             "| enrichment requests sent within (median, ms) |", "|---|---:|---:|---:|"]
    for where, rows in runs.items():
        rounds = sorted(r.rounds for r in rows)
        spread = statistics.median(r.spread for r in rows) * 1000
        lines.append(f"| {names[where]} | {len(rows)} | {statistics.median(rounds):.2f} "
                     f"({rounds[0]:.2f}–{rounds[-1]:.2f}) | {spread:.0f} |")
    return "\n".join(lines)


def parse_ns(text: str) -> list[int]:
    try:
        ns = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated whole numbers, got {text!r}") from None
    if not ns or any(n < 1 for n in ns):
        raise argparse.ArgumentTypeError(f"expected numbers >= 1, got {text!r}")
    return ns


def parse_delays(text: str) -> list[float]:
    try:
        delays = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated seconds, got {text!r}") from None
    if any(d <= 0 for d in delays):
        raise argparse.ArgumentTypeError(f"expected delays > 0, got {text!r}")
    return delays


def _warm_up() -> None:
    run_once(1, "sequential", 0.05)  # imports and first connections, outside every measurement


def _warm_up_then_wait(ready: Any) -> None:
    _warm_up()
    ready.wait()  # every process is warm: the measurements start together


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="citation-studio bench",
                                     description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--delays", type=parse_delays, default=[0.2, 1.0],
                        help="seconds the server waits before every reply, one pass (default 0.2,1.0)")
    parser.add_argument("--delay", type=float, default=None, help="one delay only (same as --delays D)")
    parser.add_argument("--n", type=parse_ns, default=[1, 5, 10, 20], help="used citations, e.g. 1,5,10,20")
    parser.add_argument("--turn-delays", default="0.2,1.0",
                        help="delays for the whole-turn comparison (FAQ + lecture passes), e.g. 0.2,1.0; empty: skip")
    parser.add_argument("--one-at-a-time", action="store_true",
                        help="run the sequential-keyword cases at D >= 1 s in turn too (slower)")
    parser.add_argument("--compare", type=int, default=5, metavar="K",
                        help="runs of batched N = 20 at D = 0.2 s with the server apart and in this process, "
                             "taking turns (default 5; 0: skip)")
    args = parser.parse_args(argv)
    if args.compare < 0:
        parser.error("--compare must be >= 0")
    if args.delay is not None:
        if args.delay <= 0:
            parser.error("--delay must be > 0")
        args.delays = [args.delay]
    turn_delays = parse_delays(args.turn_delays)
    t_start = time.perf_counter()
    _warm_up()

    def later(delay: float, strategy: KeywordStrategy) -> bool:
        return strategy == "sequential" and delay >= SIDE_BY_SIDE_FROM and not args.one_at_a_time

    rows: dict[tuple[float, int, str], Row] = {}
    turns: dict[tuple[float, str, str], TurnRow] = {}

    def measure(delays: list[float], turn_delays: list[float]) -> None:
        for delay in delays:
            for n in args.n:
                for strategy in STRATEGIES:
                    if not later(delay, strategy):
                        row = rows[(delay, n, strategy)] = run_once(n, strategy, delay)
                        print(f"D={delay:g} N={n:>3} {strategy:<10} {row.rounds:6.2f} rounds", file=sys.stderr,
                              flush=True)
        for d in turn_delays:
            for order in ORDERS:
                for strategy in STRATEGIES:
                    if not later(d, strategy):
                        turn = turns[(d, order, strategy)] = run_turn(order, strategy, d)
                        print(f"turn D={d:g} {order:<16} {strategy:<10} {turn.rounds:6.2f} rounds", file=sys.stderr,
                              flush=True)

    # first the short delays, alone; then the long ones, the sequential chains side by side in processes
    # of their own while the batched cases run here
    measure([d for d in args.delays if d < SIDE_BY_SIDE_FROM], [d for d in turn_delays if d < SIDE_BY_SIDE_FROM])
    slow_passes = [(d, n) for d in args.delays for n in args.n if later(d, "sequential")]
    slow_turns = [(d, order) for d in turn_delays for order in ORDERS if later(d, "sequential")]
    jobs: list[Callable[[], Row | TurnRow]] = [functools.partial(run_once, n, "sequential", d) for d, n in slow_passes]
    jobs += [functools.partial(run_turn, order, "sequential", d) for d, order in slow_turns]
    long_delays = [d for d in args.delays if d >= SIDE_BY_SIDE_FROM]
    long_turn_delays = [d for d in turn_delays if d >= SIDE_BY_SIDE_FROM]
    if not jobs:
        measure(long_delays, long_turn_delays)
        done: list[Row | TurnRow] = []
    else:
        print(f"{len(jobs)} sequential-keyword cases at D >= {SIDE_BY_SIDE_FROM:g} s start side by side",
              file=sys.stderr, flush=True)
        context = multiprocessing.get_context("spawn")
        ready = context.Barrier(len(jobs) + 1)
        with ProcessPoolExecutor(max_workers=len(jobs), mp_context=context, initializer=_warm_up_then_wait,
                                 initargs=(ready,)) as pool:
            futures = [pool.submit(job) for job in jobs]
            ready.wait(timeout=300)
            measure(long_delays, long_turn_delays)
            done = [f.result() for f in futures]
    for (d, n), one_pass in zip(slow_passes, done[: len(slow_passes)], strict=True):
        assert isinstance(one_pass, Row)
        rows[(d, n, "sequential")] = one_pass
    for (d, order), whole_turn in zip(slow_turns, done[len(slow_passes):], strict=True):
        assert isinstance(whole_turn, TurnRow)
        turns[(d, order, "sequential")] = whole_turn

    ordered = [rows[(d, n, s)] for d in args.delays for n in args.n for s in STRATEGIES]
    print(table(ordered))
    turn_rows = [turns[(d, o, s)] for d in turn_delays for o in ORDERS for s in STRATEGIES]
    if turn_rows:
        print()
        print(turn_table(turn_rows))
    if args.compare:
        print()
        print(where_table(compare_where(args.compare)))
    print(f"\n(run time {time.perf_counter() - t_start:.0f} s)", file=sys.stderr)

    status = 0
    for r in ordered:
        if r.problem:
            print(f"FAIL: D={r.delay:g} N={r.n} {r.strategy}: {r.problem}", file=sys.stderr)
            status = 1
    limit = [r for r in ordered if r.n == 20 and r.strategy == "batched" and r.delay == 0.2]
    for r in limit:
        if r.rounds > BATCHED_LIMIT:
            print(f"FAIL: batched at N=20, D=0.2 s took {r.rounds:.2f} rounds (limit {BATCHED_LIMIT})", file=sys.stderr)
            status = 1
    if not limit:
        print("note: N=20 at D=0.2 s not measured, the batched limit was not checked", file=sys.stderr)
    for t in turn_rows:
        if t.problem:
            print(f"FAIL: turn {t.order} {t.strategy}: {t.problem}", file=sys.stderr)
            status = 1
        if t.order == "parallel" and t.strategy == "batched" and t.delay >= 1.0 and t.rounds > TURN_LIMIT:
            print(f"FAIL: a parallel batched turn took {t.rounds:.2f} rounds (limit {TURN_LIMIT})", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
