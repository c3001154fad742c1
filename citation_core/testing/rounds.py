"""How many LLM round trips does one citation pass cost? (``citation-studio bench``, ``make bench``)

The pipeline runs over real HTTP against a ``LocalChatServer`` on 127.0.0.1 that answers every
chat-completions request after the same fixed delay D. Wall time divided by D is then the number of
sequential "rounds" of model calls: the placement call is one round, the summaries (all in parallel)
one more, and the keyword task either N rounds (``sequential``: each call sees the keywords before
it) or one (``batched``), run alongside the summaries. So sequential needs about N + 1 rounds and
batched about 2.

For every N (used citations) the run builds N distinct lecture pages and an answer of N sentences,
each sentence sharing two rare words with exactly one page, so the server's placement reply cites
all N pages. The script prints a Markdown table and exits non-zero when batched at N = 20 needs more
than 2.5 rounds, or when a run did not cite all N pages without failures.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass

from ..contract import parse, strip_markers
from ..llm.config import KeywordStrategy, ModelConfig, PassOrder
from ..pipeline import CitationPipeline
from ..sources import FaqSource, PageChunk, Sources
from .cooperative import cooperative_handler
from .server import LocalChatServer

STRATEGIES: tuple[KeywordStrategy, ...] = ("sequential", "batched")
BATCHED_LIMIT = 2.5  # rounds allowed for batched at N = 20
TURN_LIMIT = 2.5  # rounds allowed for a whole turn, both passes at once, batched keywords, at D >= 1 s


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


def run_once(n: int, strategy: KeywordStrategy, delay: float) -> Row:
    answer, pages = build_case(n)
    with LocalChatServer(cooperative_handler(delay=delay)) as srv:
        model = ModelConfig(id="bench", type="openai_chat", model="bench-model", base_url=srv.base_url,
                            timeout=60.0, max_retries=0)
        pipeline = CitationPipeline(model, keyword_strategy=strategy)
        t0 = time.perf_counter()
        result = pipeline.run_pass(answer, pages)
        wall = time.perf_counter() - t0
        in_flight = srv.max_overlap()
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
               int(usage["prompt_tokens"]), int(usage["completion_tokens"]), ", ".join(problems))


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
    with LocalChatServer(cooperative_handler(delay=delay)) as srv:
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


def table(rows: list[Row], delay: float) -> str:
    lines = [
        f"| N | strategy | LLM calls | max in flight | wall (s) | rounds = wall / {delay:g} s | expected rounds "
        "| prompt tokens | completion tokens | prompt + completion |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.n} | {r.strategy} | {r.calls} | {r.max_in_flight} | {r.wall:.2f} | {r.rounds:.2f} "
            f"| {expected_rounds(r.n, r.strategy)} | {r.prompt_tokens} | {r.completion_tokens} "
            f"| {r.prompt_tokens + r.completion_tokens} |"
        )
    return "\n".join(lines)


def parse_ns(text: str) -> list[int]:
    try:
        ns = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated whole numbers, got {text!r}") from None
    if not ns or any(n < 1 for n in ns):
        raise argparse.ArgumentTypeError(f"expected numbers >= 1, got {text!r}")
    return ns


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="citation-studio bench",
                                     description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.2, help="seconds the server waits before every reply")
    parser.add_argument("--n", type=parse_ns, default=[1, 5, 10, 20], help="used citations, e.g. 1,5,10,20")
    parser.add_argument("--turn-delays", default="0.2,1.0",
                        help="delays for the whole-turn comparison (FAQ + lecture passes), e.g. 0.2,1.0; empty: skip")
    args = parser.parse_args(argv)
    delay: float = args.delay
    if delay <= 0:
        parser.error("--delay must be > 0")
    run_once(1, "sequential", min(delay, 0.05))  # warm-up: imports, first connections
    rows: list[Row] = []
    for n in args.n:
        for strategy in STRATEGIES:
            row = run_once(n, strategy, delay)
            rows.append(row)
            print(f"N={n:>3} {strategy:<10} {row.rounds:6.2f} rounds", file=sys.stderr, flush=True)
    print(table(rows, delay))
    turns: list[TurnRow] = []
    for d in [float(x) for x in args.turn_delays.split(",") if x.strip()]:
        for order in ("faq_then_lecture", "parallel"):
            for strategy in STRATEGIES:
                turns.append(run_turn(order, strategy, d))  # type: ignore[arg-type]
                print(f"turn D={d:g} {order:<16} {strategy:<10} {turns[-1].rounds:6.2f} rounds", file=sys.stderr,
                      flush=True)
    if turns:
        print()
        print(turn_table(turns))

    status = 0
    for r in rows:
        if r.problem:
            print(f"FAIL: N={r.n} {r.strategy}: {r.problem}", file=sys.stderr)
            status = 1
    limit = [r for r in rows if r.n == 20 and r.strategy == "batched"]
    for r in limit:
        if r.rounds > BATCHED_LIMIT:
            print(f"FAIL: batched at N=20 took {r.rounds:.2f} rounds (limit {BATCHED_LIMIT})", file=sys.stderr)
            status = 1
    if not limit:
        print("note: N=20 not measured, the batched limit was not checked", file=sys.stderr)
    for t in turns:
        if t.problem:
            print(f"FAIL: turn {t.order} {t.strategy}: {t.problem}", file=sys.stderr)
            status = 1
        if t.order == "parallel" and t.strategy == "batched" and t.delay >= 1.0 and t.rounds > TURN_LIMIT:
            print(f"FAIL: a parallel batched turn took {t.rounds:.2f} rounds (limit {TURN_LIMIT})", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
