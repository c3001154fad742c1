"""Time to the first answer word and to the cited answer, with the writer's reply streamed and not.

``python -m bench.streaming`` runs a ``LocalChatServer`` on 127.0.0.1 that plays a hosted model: the
writer's first token after ``--ttft`` seconds (1.0), then ``--rate`` words per second (20) of a 120-word
answer; every citation call is answered at once. Side by side in one run:

* **streamed**: the server streams (server-sent events), as OpenAI-compatible servers do;
* **whole**: the same server answers the same request with one JSON completion when the writer's whole reply
  is ready (``Reply(stream=False)`` after the same ``ttft + words / rate``), as every answer came before
  streaming.

Measured each ``--runs`` (3) times, the median reported:

* **CLI**: ``citation-studio ask --stream`` as a new process (its start included): seconds until the first
  byte of the answer on stdout, and until the process has printed the cited answer and ended;
* **app** (unless ``--no-app``): the app (``tests/e2e/harness.running_app``, every role on the local server)
  in headless Chromium: seconds from the click on Ask until the first answer word shows in the reply, and
  until the cited answer (its chips) is drawn.

Targets (issue of the streaming work): the first word no later than TTFT + 1 s in the CLI and TTFT + 0.5 s
in the app; the cited answer no later than without streaming (within 10 %). Prints a Markdown table; exits 1
when a target is missed (``--no-check``: 0).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.timed_ask import app_ask, app_env, cli_ask, config_dir
from citation_core.testing.server import ChatRequest, LocalChatServer, Reply

__all__ = ["ANSWER", "QUESTION", "app_once", "citation_reply", "cli_once", "config_dir", "handler", "main"]
QUESTION = "How does the merge procedure combine two sorted halves?"
WORDS = ("Merge combines two sorted halves by repeatedly comparing the first remaining element of each half "
         "and copying the smaller one to the output. ").split()
ANSWER = " ".join((WORDS * 8)[:120])


def handler(ttft: float, rate: float, streamed: bool) -> Callable[[ChatRequest], Reply]:
    whole_after = ttft + len(ANSWER.split()) / rate

    def answer(request: ChatRequest) -> Reply:
        messages = request.get("messages") or [{}]
        if "tutor for the course" not in str(messages[0].get("content", "")):
            return citation_reply(request)
        if streamed:
            return Reply(content=ANSWER, first_token_delay=ttft, token_rate=rate)
        return Reply(content=ANSWER, delay=whole_after, stream=False)

    return answer


def citation_reply(request: ChatRequest) -> Reply:
    """Placement cites the first paragraph it was given behind the answer; keywords and summaries at once."""
    import json

    prompt = str((request.get("messages") or [{}])[0].get("content", ""))
    if "Paragraphs:" in prompt and "\n\nAnswer:\n" in prompt:
        ids = [e["id"] for e in json.loads(prompt.split("Paragraphs:\n", 1)[1].split("\n\nAnswer:")[0])]
        return Reply(content=prompt.split("\n\nAnswer:\n", 1)[1].strip() + (ids[0] if ids else ""))
    if "JSON array" in prompt:
        return Reply(content=json.dumps(["Merge"] * prompt.count('"seq"') or ["Merge"]))
    return Reply(content="Merge compares the heads of both halves.")


def cli_once(base_url: str, folder: Path) -> tuple[float, float]:
    """(first byte of the answer on stdout, the process ended), seconds after it was started."""
    run = cli_ask(base_url, folder, QUESTION)
    return run.first_byte, run.ended


def app_once(base_url: str, folder: Path, browser: Any) -> tuple[float, float, float, float]:
    """A fresh app server, two questions in one session: (first word, cited answer) of the first question
    (the server also sets the model's client up then) and of the second."""
    from tests.e2e.harness import open_ask, running_app

    times: list[float] = []
    with running_app(app_env(base_url, folder), timeout=120) as url:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        open_ask(page, url)
        for _ in range(2):
            turn = app_ask(page, QUESTION, ANSWER.split()[0])
            times += [turn.first_word - turn.asked, turn.cited - turn.asked]
        page.close()
    return times[0], times[1], times[2], times[3]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ttft", type=float, default=1.0)
    parser.add_argument("--rate", type=float, default=20.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-app", action="store_true")
    parser.add_argument("--no-check", action="store_true")
    args = parser.parse_args(argv)
    rows: dict[str, dict[str, float]] = {}
    browser = playwright = None
    if not args.no_app:
        from playwright.sync_api import sync_playwright

        from tests.e2e.harness import launch

        playwright = sync_playwright().start()
        browser = launch(playwright)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for mode in ("streamed", "whole"):
                with LocalChatServer(handler(args.ttft, args.rate, mode == "streamed")) as srv:
                    cli = [cli_once(srv.base_url, Path(tmp) / f"cli-{mode}-{i}") for i in range(args.runs)]
                    rows[mode] = {"cli_first": statistics.median(c[0] for c in cli),
                                  "cli_cited": statistics.median(c[1] for c in cli)}
                    if browser is not None:
                        app = [app_once(srv.base_url, Path(tmp) / f"app-{mode}-{i}", browser) for i in range(args.runs)]
                        rows[mode] |= {"app_first1": statistics.median(a[0] for a in app),
                                       "app_cited1": statistics.median(a[1] for a in app),
                                       "app_first": statistics.median(a[2] for a in app),
                                       "app_cited": statistics.median(a[3] for a in app)}
    finally:
        if browser is not None:
            browser.close()
        if playwright is not None:
            playwright.stop()
    labels = {"cli_first": "CLI: first answer word (s, process start included)", "cli_cited": "CLI: cited answer (s)",
              "app_first1": "app, a fresh server's first question: first answer word after Ask (s)",
              "app_cited1": "app, a fresh server's first question: cited answer after Ask (s)",
              "app_first": "app, the next question: first answer word after Ask (s)",
              "app_cited": "app, the next question: cited answer after Ask (s)"}
    print(f"TTFT {args.ttft:g} s, {args.rate:g} words/s, {len(ANSWER.split())} words; median of {args.runs}\n")
    print("| measure | streamed | whole reply | target |\n|---|---:|---:|---:|")
    targets = {"cli_first": args.ttft + 1.0, "app_first": args.ttft + 0.5}
    missed = []
    for key, label in labels.items():
        if key not in rows["streamed"]:
            continue
        s, w = rows["streamed"][key], rows["whole"][key]
        target = targets.get(key)
        shown = f"≤ {target:.1f}" if target else f"≤ {w * 1.1:.1f} (whole + 10 %)"
        print(f"| {label} | {s:.2f} | {w:.2f} | {shown} |")
        if (target is not None and s > target) or (target is None and s > w * 1.1):
            missed.append(label)
    if missed:
        print("missed: " + "; ".join(missed), file=sys.stderr)
    return 0 if args.no_check or not missed else 1


if __name__ == "__main__":
    sys.exit(main())
