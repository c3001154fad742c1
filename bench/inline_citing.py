"""Cited while it streams: inline handles beside the placement pass, one chat turn each.

``python -m bench.inline_citing`` runs a ``LocalChatServer`` on 127.0.0.1 that plays a hosted model paced per
call: the first token after ``--ttft`` seconds (1.0), then ``--rate`` words per second (20); a reply that
does not stream (placement, keyword, summary) comes whole after the same ``ttft + words / rate``. The writer
looks the topic up once (a tool call), then writes an answer of ``--words`` (90 and 300 words). Side by side
in one run, in process (``ChatPipeline``):

* **placement** (``citation.mode: placement``): the writer answers, then the placement model writes the answer
  again with ids inserted (both passes at once), then keywords (batched) and summaries;
* **places** (``citation.placement_mode: places``): as placement, but the placement model replies only with
  the sentence numbers and source ids (a small JSON object) and the pipeline inserts the markers;
* **inline** (``citation.mode: inline``): the writer puts a handle behind every third sentence while it
  streams; keywords and summaries start when a handle appears.

Reported per mode and length: seconds to the first answer word, to the first chip (a final marker in a
partial render; placement: the cited answer), from the writer's last word to the complete cited answer, and
the output tokens of the turn (every call, the writer's included). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path
from typing import Any

from citation_core.chat.chat_pipeline import ChatPipeline
from citation_core.chat.view import ViewPosition
from citation_core.contract import strip_markers
from citation_core.llm.config import ModelConfig, load_config
from citation_core.material.library import load_material
from citation_core.testing.server import ChatRequest, LocalChatServer, Reply

ROOT = Path(__file__).resolve().parents[1]
SENTENCE = "Merge sort splits the list into halves and merges them again."  # 11 words


def answer(words: int, handles: list[str]) -> str:
    """About ``words`` words of sentences; with ``handles``, one behind every third sentence."""
    count = max(1, round(words / len(SENTENCE.split())))
    out = []
    for i in range(count):
        cite = handles[(i // 3) % len(handles)] if handles and i % 3 == 2 else ""
        out.append(SENTENCE + cite)
    return " ".join(out)


class PacedModel:
    """The server's handler: every call paced as a hosted model would be."""

    def __init__(self, words: int, ttft: float, rate: float) -> None:
        self.words, self.ttft, self.rate = words, ttft, rate

    def paced(self, body: ChatRequest, content: str = "", **extra: Any) -> Reply:
        if body.get("stream"):
            return Reply(content=content, first_token_delay=self.ttft, token_rate=self.rate, **extra)
        size = len(content.split()) + len(json.dumps(extra.get("tool_calls") or "").split())
        return Reply(content=content, delay=self.ttft + size / self.rate, **extra)

    def __call__(self, body: ChatRequest) -> Reply:
        first = body["messages"][0]["content"]
        if body.task == "writer":
            tools = [m for m in body["messages"] if m.get("role") == "tool"]
            if not tools:
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


def one_turn(mode: str, words: int, ttft: float, rate: float) -> dict[str, float]:
    handler = PacedModel(words, ttft, rate)
    with LocalChatServer(handler) as srv:
        cfg = load_config(ROOT, override="")
        model = ModelConfig("local", "openai_chat", "local-model", base_url=srv.base_url, timeout=60, max_retries=0)
        roles = {p: {v: dict.fromkeys(r, "local") for v, r in vs.items()} for p, vs in cfg.llm_configuration.items()}
        cfg = dataclasses.replace(cfg, models={**cfg.models, "local": model}, llm_configuration=roles,
                                  citation_mode="inline" if mode == "inline" else "placement",
                                  placement_mode="places" if mode == "places" else "iris")
        chat = ChatPipeline(cfg, load_material(ROOT / "sample_decks"))
        marks: dict[str, float] = {}
        start = time.monotonic()

        def delta(_: str) -> None:
            marks.setdefault("first_word", time.monotonic() - start)
            marks["last_word"] = time.monotonic() - start

        def partial(text: str) -> None:
            if "first_chip" not in marks and strip_markers(text) != text:
                marks["first_chip"] = time.monotonic() - start

        result = chat("How does merging work?", ViewPosition(101, page=6), on_delta=delta, on_partial=partial)
        done = time.monotonic() - start
    assert strip_markers(result.answer) != result.answer, f"{mode}: the answer was not cited"
    return {"first_word": marks["first_word"], "first_chip": marks.get("first_chip", done),
            "after_last_word": done - marks["last_word"],
            "output_tokens": float(result.usage()["completion_tokens"])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ttft", type=float, default=1.0)
    parser.add_argument("--rate", type=float, default=20.0)
    parser.add_argument("--words", default="90,300")
    args = parser.parse_args(argv)
    sizes = [int(w) for w in args.words.split(",")]
    one_turn("inline", 40, 0.0, 1000.0)  # untimed: the SDK's import and the course's indexes are made once
    rows = {(mode, w): one_turn(mode, w, args.ttft, args.rate) for w in sizes
            for mode in ("placement", "places", "inline")}
    print(f"first token after {args.ttft:g} s, {args.rate:g} words/s, one run each\n")
    print("| words | mode | first word s | first chip s | last word → cited answer s | output tokens |")
    print("|---:|---|---:|---:|---:|---:|")
    for (mode, w), r in rows.items():
        print(f"| {w} | {mode} | {r['first_word']:.2f} | {r['first_chip']:.2f} | {r['after_last_word']:.2f} "
              f"| {r['output_tokens']:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
