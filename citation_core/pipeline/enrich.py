"""Phase 4: a keyword and a summary for every used source.

Keywords: one sequential task (each call sees the keywords used so far) or, with the ``batched``
strategy, one call for all of them with uniqueness enforced afterwards. Summaries: one task each, in
parallel. All tasks run in one thread pool; every call builds its own model client.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from ..contract import sanitize_field
from ..errors import ModelCallError
from ..llm.config import KeywordStrategy
from .model_calls import NO_DEADLINE, Deadline, RoleModel, call_model
from .prompts import Prompts
from .serialize import SerializedSource
from .trace import Failure, Trace


@dataclass(frozen=True)
class Enrichment:
    keywords: dict[int, str]
    summaries: dict[int, str]


@dataclass(frozen=True)
class EnrichContext:
    trace: Trace
    prompts: Prompts
    language_line: str
    role: RoleModel
    strategy: KeywordStrategy
    deadline: Deadline = NO_DEADLINE


def clean_keyword(raw: str) -> str:
    line = next((ln for ln in raw.strip().splitlines() if ln.strip()), "")
    line = line.strip().strip("\"'`*“”„«»").strip()
    line = re.sub(r"^(keyword|schlagwort)\s*[:\-]\s*", "", line, flags=re.I)
    return sanitize_field(line.rstrip("."))[:60]


def clean_summary(raw: str) -> str:
    text = raw.strip().strip("\"“”„")
    text = re.sub(r"^(summary|zusammenfassung)\s*[:\-]\s*", "", text, flags=re.I)
    return sanitize_field(text)


def make_unique(keyword: str, used: Sequence[str]) -> str:
    low = {u.lower() for u in used}
    if keyword.lower() not in low:
        return keyword
    n = 2
    while f"{keyword} {n}".lower() in low:
        n += 1
    return f"{keyword} {n}"


def _keywords_sequential(ctx: EnrichContext, used: Sequence[SerializedSource]) -> dict[int, str]:
    keywords: dict[int, str] = {}
    done: list[str] = []
    try:
        for src in used:
            prompt = ctx.prompts.render(
                "keyword", ctx.language_line,
                UsedKeywords=", ".join(done) if done else "(none yet)", Paragraph=src.content,
            )
            resp = call_model(ctx.trace, ctx.role, "keyword", prompt,
                              {"paragraph": src.content, "used_keywords": list(done)}, src.seq, ctx.deadline)
            cleaned = clean_keyword(resp.content)
            kw = make_unique(cleaned, done) if cleaned else ""
            keywords[src.seq] = kw
            if kw:
                done.append(kw)
    except ModelCallError as exc:
        missing = [s.seq for s in used if s.seq not in keywords]
        ctx.trace.fail(Failure("keyword_task", f"keyword task failed: {exc}", missing[0] if missing else None,
                               f"keywords left empty for sequence numbers {missing}"))
    return keywords


def _keywords_batched(ctx: EnrichContext, used: Sequence[SerializedSource]) -> dict[int, str]:
    paragraphs = [s.content for s in used]
    prompt = ctx.prompts.render("keywords_batched", ctx.language_line,
                                Paragraphs=json.dumps(paragraphs, ensure_ascii=False, indent=1))
    try:
        resp = call_model(ctx.trace, ctx.role, "keywords_batched", prompt, {"paragraphs": paragraphs},
                          deadline=ctx.deadline)
        values = _json_array(resp.content)
        if values is None or len(values) != len(used):
            raise ModelCallError(f"expected a JSON array of {len(used)} keywords, got {resp.content[:80]!r}")
    except ModelCallError as exc:
        ctx.trace.fail(Failure("keyword_task", f"keyword task failed: {exc}", None, "all keywords left empty"))
        return {}
    keywords: dict[int, str] = {}
    done: list[str] = []
    for src, value in zip(used, values, strict=True):
        kw = clean_keyword(str(value))
        kw = make_unique(kw, done) if kw else ""
        keywords[src.seq] = kw
        if kw:
            done.append(kw)
    return keywords


def _json_array(reply: str) -> list[object] | None:
    m = re.search(r"\[.*\]", reply, re.S)
    if m is None:
        return None
    try:
        values = json.loads(m.group(0))
    except (json.JSONDecodeError, RecursionError):
        return None
    return values if isinstance(values, list) else None


def _summary(ctx: EnrichContext, src: SerializedSource) -> str:
    prompt = ctx.prompts.render("summary", ctx.language_line, Paragraph=src.content)
    try:
        resp = call_model(ctx.trace, ctx.role, "summary", prompt, {"paragraph": src.content}, src.seq,
                          ctx.deadline)
        return clean_summary(resp.content)
    except ModelCallError as exc:
        ctx.trace.fail(Failure("summary", f"summary call failed: {exc}", src.seq, "summary left empty"))
        return ""


def enrich(ctx: EnrichContext, used: Sequence[SerializedSource]) -> Enrichment:
    if not used:
        return Enrichment({}, {})
    keyword_task = _keywords_batched if ctx.strategy == "batched" else _keywords_sequential
    with ThreadPoolExecutor(max_workers=min(len(used) + 1, 33), thread_name_prefix="enrich") as pool:
        kw_future = pool.submit(keyword_task, ctx, used)
        sum_futures = {s.seq: pool.submit(_summary, ctx, s) for s in used}
        keywords = kw_future.result()
        summaries = {seq: f.result() for seq, f in sum_futures.items()}
    return Enrichment({s.seq: keywords.get(s.seq, "") for s in used}, summaries)
