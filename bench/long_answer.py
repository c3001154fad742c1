"""How the citation stage's cost grows with the answer's length (``python -m bench.long_answer``).

Each case runs at 25,000 and at 100,000 characters and reports the CPU seconds of both and their ratio: about
4 is linear, 16 quadratic. The cases:

* ``validate a changed reply``: ``validate_placement`` of a placement reply that cites every sentence but
  changed a word in each, so that it is aligned word by word (``pipeline.word_align``);
* ``cite in the seed's order``: ``CitationPipeline(pass_order="faq_then_lecture")`` with a scripted model
  that cites a lecture page and an FAQ behind every sentence;
* ``offline turn, pasted answer``: ``ChatPipeline`` on the sample course with the offline model, a pasted
  answer of varied sentences (retrieval, both passes, the audit); ``--quick`` leaves it out (it takes about
  half a minute).

The script exits non-zero when a ratio exceeds ``MAX_RATIO``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from citation_core import CitationPipeline, Sources
from citation_core.llm.base import LlmRequest
from citation_core.pipeline.placement import validate_placement
from citation_core.sources import FaqSource, PageChunk
from citation_core.testing import ScriptedModel

ROOT = Path(__file__).resolve().parents[1]
SIZES = (25_000, 100_000)
MAX_RATIO = 6.0


def _vocabulary(rng: random.Random) -> list[str]:
    return ["".join(rng.choices("aeioubcdfghklmnprstvw", k=rng.randint(3, 9))) for _ in range(3000)]


def changed_reply(chars: int) -> Callable[[], Any]:
    rng = random.Random(7)
    vocab = _vocabulary(rng)
    answer: list[str] = []
    reply: list[str] = []
    ids: dict[str, int] = {}
    size = 0
    while size < chars:
        words = rng.choices(vocab, k=9)
        marker = f"[cite:L:1:{len(answer) % 40 + 1}::!{len(answer) % 40 + 1}]"
        ids[marker] = len(answer) % 40 + 1
        sentence = " ".join(words).capitalize() + " uses `x`."
        answer.append(sentence)
        words[4] = "changed"
        reply.append(" ".join(words).capitalize() + " uses `x`." + marker)
        size += len(sentence) + 1
    text, out = " ".join(answer), " ".join(reply)
    return lambda: validate_placement(text, out, ids)


def _placing(request: LlmRequest) -> str:
    first = request.inputs["sources"][0]["id"]
    return re.sub(r"\.((?:\[cite:[^\]]*\])*) ", lambda m: f".{m.group(1)}{first} ", str(request.inputs["answer"]))


def seed_order(chars: int) -> Callable[[], Any]:
    def keywords(request: LlmRequest) -> str:
        asked = json.loads(str(request.messages[-1].content).rsplit("Paragraphs (JSON array):\n", 1)[1])
        return json.dumps(["Merge"] * len(asked))

    model = ScriptedModel({"placement": _placing, "summary": "How merging works.", "keywords_batched": keywords})
    pipeline = CitationPipeline(model, pass_order="faq_then_lecture")
    sources = Sources((PageChunk("p1", 1, 1, "Merge sort merges two sorted halves in linear time."),),
                      (FaqSource(1, "Is merge sort linear?", "Merging two sorted halves takes linear time."),))
    sentence = "Merge sort merges two sorted halves in linear time. "
    answer = sentence * (chars // len(sentence))
    return lambda: pipeline(answer, sources)


def offline_turn(chars: int) -> Callable[[], Any]:
    from citation_core.chat.chat_pipeline import ChatPipeline
    from citation_core.chat.view import ViewPosition
    from citation_core.llm.config import default_config
    from citation_core.material.library import load_material

    material = load_material(ROOT / "sample_decks")
    chat = ChatPipeline(default_config(), material)
    vocab = sorted({w.lower() for s in material.sources().lecture for w in s.text.split() if w.isalpha()})
    rng = random.Random(1)
    parts: list[str] = []
    while sum(map(len, parts)) < chars:
        parts.append(" ".join(rng.choices(vocab, k=rng.randint(6, 16))).capitalize() + ".")
        parts.append("\n\n" if rng.random() < 0.15 else " ")
    answer = "".join(parts)[:chars]
    chat("warm up", ViewPosition(101, page=6), pasted_answer=answer[:2_000])
    return lambda: chat("How does merge sort work?", ViewPosition(101, page=6), pasted_answer=answer)


def cpu(run: Callable[[], Any]) -> float:
    start = time.process_time()
    run()
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="leave the offline turn out")
    args = parser.parse_args(argv)
    cases: dict[str, Callable[[int], Callable[[], Any]]] = {
        "validate a changed reply": changed_reply, "cite in the seed's order": seed_order}
    if not args.quick:
        cases["offline turn, pasted answer"] = offline_turn
    print(f"{'case':<30} {SIZES[0]:>10,} ch {SIZES[1]:>10,} ch  ratio")
    worst = 0.0
    for name, make in cases.items():
        small, large = (cpu(make(n)) for n in SIZES)
        ratio = large / max(small, 1e-9)
        worst = max(worst, ratio)
        print(f"{name:<30} {small:>11.2f} s {large:>11.2f} s  {ratio:5.1f}", flush=True)
    return 0 if worst <= MAX_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
