"""The embedded offline model: deterministic, no network, no weights (DESIGN 4.6).

It reads the task name and inputs of the request (the rendered prompt is only counted for the
token estimate). It places ids by lexical similarity of answer sentences to sources, picks keywords
from a source's salient terms (never one already used) and summarises by extraction. It cannot
translate: output stays in the language of the source.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..contract import insert_at
from ..errors import ModelCallError
from ..textutil import (
    STOPWORDS,
    content_tokens,
    first_sentences,
    is_code_line,
    sentences,
    slide_lines,
    stem,
    stems,
    tokens,
)
from .base import LlmRequest, LlmResponse, Usage, estimate_tokens

GENERIC = frozenset(
    (
        "slide slides lecture lectures example examples note notes page section agenda overview summary "
        "question questions answer answers today part folie folien vorlesung beispiel abschnitt übersicht "
        "frage antwort"
    ).split()
)


def place_citations(answer: str, sources: Sequence[Mapping[str, str]], min_coverage: float = 0.5) -> str:
    """Insert source ids behind the answer sentences they support; change nothing else.

    A sentence is scored against each source sharing at least two stemmed terms with it: the idf-weighted
    share of the smaller side that the two have in common. Term weights and each source's total weight
    are computed once; a sentence only meets the sources that share a term with it (an inverted index).
    """
    docs = [(str(s["id"]), stems(str(s.get("content", "")))) for s in sources]
    if not docs:
        return answer
    df: Counter[str] = Counter(t for _, toks in docs for t in toks)
    n = len(docs)
    unseen = math.log(1 + n) + 0.1
    idf = {t: math.log(1 + n / (1 + c)) + 0.1 for t, c in df.items()}
    weight = [sum(idf[t] for t in toks) for _, toks in docs]
    postings: dict[str, list[int]] = {}
    for i, (_, toks) in enumerate(docs):
        for t in toks:
            postings.setdefault(t, []).append(i)

    inserts: list[tuple[int, str]] = []
    for sent in sentences(answer):
        words = stems(sent.text)
        if len(words) < 2:
            continue
        total = sum(idf.get(t, unseen) for t in words)
        hits: Counter[int] = Counter(i for t in words for i in postings.get(t, ()))
        scored = []
        for i in sorted(i for i, c in hits.items() if c >= 2):
            sid, toks = docs[i]
            shared = words & toks
            # overlap coefficient: a short source fully inside a longer sentence counts as support
            base = min(total, weight[i])
            scored.append((sum(idf[t] for t in shared) / base, -i, sid))
        scored.sort(reverse=True)
        chosen = [s for s in scored[:2] if s[0] >= min_coverage and s[0] >= 0.85 * scored[0][0]]
        if chosen:
            inserts.append((sent.end, "".join(sid for _, _, sid in chosen)))
    return insert_at(answer, inserts)


def _original_case(text: str, phrase: str) -> str:
    low = text.lower()
    i = low.find(phrase)
    if i < 0:
        return phrase
    return text[i : i + len(phrase)]


# words that rarely name a topic on their own: frequent verbs, adverbs, quantifiers
WEAK = frozenset(
    """every each first second next last new old same whole large small smallest largest remaining
    place places placed take takes taken make makes made call calls called give gives given say says
    said see shows show shown grows grow replace replaces draw draws drawn get gets let lets run runs
    need needs want notice turn turns go goes come comes keep keeps find finds look looks work works
    happen happens compute computes half halves both two three many much few often always never
    instead simply really only just also""".split()
)


def _weak(token: str) -> bool:
    return token in WEAK or (token.endswith("ly") and len(token) > 4)


def keyword_candidates(paragraph: str) -> list[str]:
    """Salient 1–2 word terms of a paragraph, best first."""
    toks = tokens(paragraph)
    content = [t for t in content_tokens(paragraph) if t not in GENERIC and not t.isdigit() and not _weak(t)]
    counts = Counter(content)
    first: dict[str, int] = {}
    for i, t in enumerate(content):
        first.setdefault(t, i)
    bigrams: Counter[str] = Counter()
    for a, b in zip(toks, toks[1:], strict=False):
        if a in counts and b in counts:
            bigrams[f"{a} {b}"] += 1
    scored: list[tuple[float, int, str]] = []
    for term, c in counts.items():
        scored.append((c + min(len(term), 12) / 12, -first[term], term))
    for bg, c in bigrams.items():
        a, b = bg.split(" ")
        scored.append((c * 2.0 + (counts[a] + counts[b]) / 4, -min(first[a], first[b]), bg))
    scored.sort(reverse=True)
    seen: list[str] = []
    for _, _, term in scored:
        phrase = _original_case(paragraph, term)
        phrase = phrase[:1].upper() + phrase[1:]
        if phrase.lower() not in {s.lower() for s in seen}:
            seen.append(phrase)
    return seen


def _head(paragraph: str) -> str:
    """A slide's title line or an FAQ's question: the best place to look for a keyword."""
    lines = [ln.strip(" •-*\t") for ln in paragraph.splitlines() if ln.strip(" •-*\t")]
    if len(lines) > 1 and len(lines[0]) <= 60:
        return lines[0]
    first = sentences(paragraph)
    return first[0].text if first and first[0].text.endswith("?") else ""


def _key(keyword: str) -> str:
    """What makes two keywords the same to a reader: case and plural endings aside."""
    return " ".join(stem(t) for t in tokens(keyword))


def pick_keyword(paragraph: str, used: Sequence[str]) -> str:
    used_low = {u.strip().lower() for u in used} | {_key(u) for u in used}
    head = _head(paragraph)
    head_terms = [t for t in tokens(head) if t not in STOPWORDS and t not in GENERIC and not t.isdigit()]
    ordered: list[str] = []
    if head and 1 <= len(head_terms) <= 2 and len(head) <= 30 and ":" not in head:
        ordered.append(head.strip(" ?.!"))
    ordered += [c for c in keyword_candidates(head) if len(c.split()) == 2] if head else []
    ordered += keyword_candidates(paragraph)
    for cand in ordered:
        if cand and cand.lower() not in used_low and _key(cand) not in used_low:
            return cand[:1].upper() + cand[1:]
    base = (keyword_candidates(paragraph) or ["Source"])[0]
    k = 2
    while f"{base} {k}".lower() in used_low:
        k += 1
    return f"{base} {k}"


def summarize(paragraph: str) -> str:
    """One or two sentences taken from the paragraph (a slide title line is left out)."""
    lines = [ln for ln in slide_lines(paragraph) if not is_code_line(ln)]
    if not lines:
        return ""
    if len(lines) > 1 and len(lines[0]) <= 60 and not lines[0].endswith((".", "!", "?", ":")):
        lines = lines[1:]  # a title line
    flat = " ".join(lines)
    first = sentences(flat)
    if len(first) > 1 and first[0].text.endswith("?"):
        flat = flat[first[1].start :]  # an FAQ: summarise its answer, not its question
    if not any(c in flat for c in ".!?") and len(lines) > 1:
        flat = "; ".join(lines) + "."
    return first_sentences(flat, max_sentences=2, max_chars=160)


class OfflineModel:
    offline = True

    def __init__(self, model_id: str = "offline", model_name: str = "offline-extractive-1",
                 writer: Callable[[Mapping[str, Any]], str] | None = None) -> None:
        self.model_id = model_id
        self.model_name = model_name
        self._writer = writer

    def _run(self, request: LlmRequest) -> str:
        inputs = request.inputs
        if request.task == "placement":
            return place_citations(str(inputs["answer"]), list(inputs["sources"]))
        if request.task == "keyword":
            return pick_keyword(str(inputs["paragraph"]), list(inputs.get("used_keywords", [])))
        if request.task == "keywords_batched":
            return json.dumps([pick_keyword(str(p), []) for p in inputs["paragraphs"]], ensure_ascii=False)
        if request.task == "summary":
            return summarize(str(inputs["paragraph"]))
        if request.task == "writer" and self._writer is not None:
            return self._writer(inputs)
        raise ModelCallError(f"offline model: unknown task {request.task!r}")

    def complete(self, request: LlmRequest) -> LlmResponse:
        content = self._run(request)
        prompt = "".join(m.content for m in request.messages)
        usage = Usage(estimate_tokens(prompt), estimate_tokens(content), 0.0, estimated=True)
        return LlmResponse(content, usage, self.model_id, self.model_name)
