"""Offline placement on large inputs: the current placement beside the former one that recomputed idf inside
its inner loop, in one run (``python -m bench.offline_cite``). The current placement also scores
differently (coverage of the sentence, every source near the best); the CPU ratio is what is compared.
Target: 200 pages × 3,000 words in at most 0.6 s of CPU."""

from __future__ import annotations

import math
import random
import string
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence

from citation_core.contract import insert_at
from citation_core.llm.offline import place_citations
from citation_core.text import sentences, stems


def place_citations_before(answer: str, sources: Sequence[Mapping[str, str]], min_coverage: float = 0.5) -> str:
    """The former placement: idf recomputed for every term of every source for every sentence."""
    docs = [(str(s["id"]), stems(str(s.get("content", "")))) for s in sources]
    df: Counter[str] = Counter(t for _, toks in docs for t in toks)
    n = len(docs)

    def idf(t: str) -> float:
        return math.log(1 + n / (1 + df[t])) + 0.1

    inserts: list[tuple[int, str]] = []
    for sent in sentences(answer):
        words = stems(sent.text)
        if len(words) < 2:
            continue
        total = sum(idf(t) for t in words)
        scored = []
        for i, (sid, toks) in enumerate(docs):
            shared = words & toks
            if len(shared) < 2:
                continue
            base = min(total, sum(idf(t) for t in toks))
            scored.append((sum(idf(t) for t in shared) / base, -i, sid))
        scored.sort(reverse=True)
        chosen = [s for s in scored[:2] if s[0] >= min_coverage and s[0] >= 0.85 * scored[0][0]]
        if chosen:
            inserts.append((sent.end, "".join(sid for _, _, sid in chosen)))
    return insert_at(answer, inserts)


def case(pages: int, words: int, seed: int = 3) -> tuple[str, list[dict[str, str]]]:
    rng = random.Random(seed)
    vocab = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(4, 10))) for _ in range(5000)]
    sources = [{"id": f"[cite:L:1:{k}::!{k}]", "content": " ".join(rng.choices(vocab, k=60))}
               for k in range(1, pages + 1)]
    out, count = [], 0
    while count < words:
        src = rng.choice(sources)["content"].split()
        sentence = rng.sample(src, 8) + rng.choices(vocab, k=6)
        out.append(" ".join(sentence).capitalize() + ".")
        count += len(sentence)
    return " ".join(out), sources


def cpu(fn: object, *args: object) -> tuple[float, str]:
    t0 = time.process_time()
    result = fn(*args)  # type: ignore[operator]
    return time.process_time() - t0, str(result)


TARGET = (200, 3000, 0.6)  # pages, words, seconds of CPU


def main() -> int:
    print("| pages × words | former (s CPU) | now (s CPU) | former / now |")
    print("|---|---:|---:|---:|")
    status = 0
    for pages, words in ((50, 1000), (200, 3000), (1000, 10000)):
        answer, sources = case(pages, words)
        now, _ = cpu(place_citations, answer, sources)
        before, _ = cpu(place_citations_before, answer, sources)
        print(f"| {pages} × {words} | {before:.2f} | {now:.2f} | {before / now:.1f}× |")
        if (pages, words) == TARGET[:2] and now > TARGET[2]:
            print(f"FAIL: {pages} × {words} took {now:.2f} s of CPU (target {TARGET[2]} s)", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
