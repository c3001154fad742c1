"""Phase 4: a keyword and a summary for every used source.

Keywords: one sequential task (each call sees the keywords used so far) or, with the ``batched``
strategy, one call for all of them with uniqueness enforced afterwards. Summaries: one task each, about
the passage the chip quotes where the evidence phase found one (the task's ``evidence`` input, and
``{Evidence}`` for a prompt that asks for it), else about the whole source. All
tasks run side by side (``ModelCalls.run``): for an ``openai_chat`` model in the pass's event loop through
its one async client, so their requests leave together; for any other model in a thread each.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..contract import sanitize_field
from ..errors import ModelCallError
from ..llm.config import KeywordStrategy
from ..text import detect_language, sentences, stop_words
from .model_calls import NO_DEADLINE, Deadline, ModelCall, ModelCalls, ModelTask, RoleModel
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
    calls: ModelCalls | None = None  # the pass's; None: calls of their own for this enrichment


# Markdown a model may wrap its reply in: paired emphasis or code marks (kept: "window.__xss" is text,
# not emphasis), heading marks and list bullets at a line's start
_EMPHASIS = re.compile(r"(\*\*|__|`+)(?=\S)([^\n]+?)(?<=\S)\1")
_PREFIX = re.compile(r"^#+\s*|^\s*(?:[-*+•]|\d+[.)])\s+", re.M)
MAX_REPLY_CHARS = 4_000  # a keyword or summary reply is read only this far


def _unmark(text: str) -> str:
    return _PREFIX.sub("", _EMPHASIS.sub(r"\2", text[:MAX_REPLY_CHARS]))
_LABEL = re.compile(r"^(?:keyword|schlagwort|stichwort|mot-clé|palabra clave|parola chiave|palavra-chave|trefwoord"
                    r"|słowo kluczowe|anahtar kelime|ключевое слово|summary|zusammenfassung|résumé|resumen|riassunto"
                    r"|resumo|samenvatting|podsumowanie|özet|краткое содержание)\s*[:\-–]\s*", re.I)
MAX_KEYWORD_WORDS = 4


def clean_keyword(raw: str) -> str:
    """The keyword a model replied: its first line without labels, quotes or Markdown, at most four words
    (never ending in a stop word), sanitized for the marker."""
    line = next((ln for ln in raw.strip().splitlines() if ln.strip()), "")
    line = _LABEL.sub("", _strip(_unmark(line)))
    line = _strip(line)
    words = line.split()
    if len(words) > MAX_KEYWORD_WORDS:
        lang = detect_language(line)
        words = words[:MAX_KEYWORD_WORDS]
        while len(words) > 1 and words[-1].lower() in stop_words(lang):
            words.pop()
    return sanitize_field(" ".join(words))[:60].strip()


def _strip(text: str) -> str:
    """``text`` without surrounding quotes, emphasis and final punctuation."""
    while True:
        stripped = text.strip().strip("\"'`*_“”„«»「」").rstrip(".!?;,").strip()
        if stripped == text:
            return text
        text = stripped


def clean_summary(raw: str) -> str:
    """The summary a model replied: one paragraph of at most two sentences, without labels, quotes or
    Markdown, sanitized for the marker."""
    text = _unmark(raw.strip())
    text = " ".join(text.split()).strip().strip("\"“”„«»").strip()
    text = _LABEL.sub("", text).strip()
    parts = sentences(text)
    if len(parts) > 2:
        text = text[: parts[1].end]
    return sanitize_field(text)


def make_unique(keyword: str, used: Sequence[str]) -> str:
    low = {u.lower() for u in used}
    if keyword.lower() not in low:
        return keyword
    n = 2
    while f"{keyword} {n}".lower() in low:
        n += 1
    return f"{keyword} {n}"


def _keywords_sequential(ctx: EnrichContext, used: Sequence[SerializedSource]) -> ModelTask[dict[int, str]]:
    keywords: dict[int, str] = {}
    done: list[str] = []
    try:
        for src in used:
            prompt = ctx.prompts.render(
                "keyword", ctx.language_line,
                UsedKeywords=", ".join(done) if done else "(none yet)", Paragraph=src.content,
            )
            resp = yield ModelCall("keyword", prompt, {"paragraph": src.content, "used_keywords": list(done)},
                                   src.seq)
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


def _keywords_batched(ctx: EnrichContext, used: Sequence[SerializedSource]) -> ModelTask[dict[int, str]]:
    paragraphs = [s.content for s in used]
    prompt = ctx.prompts.render("keywords_batched", ctx.language_line,
                                Paragraphs=json.dumps(paragraphs, ensure_ascii=False, indent=1))
    try:
        resp = yield ModelCall("keywords_batched", prompt, {"paragraphs": paragraphs})
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


def _summary(ctx: EnrichContext, src: SerializedSource, passage: str = "") -> ModelTask[dict[int, str]]:
    prompt = ctx.prompts.render("summary", ctx.language_line, Paragraph=src.content, Evidence=passage)
    inputs = {"paragraph": src.content, "evidence": passage} if passage else {"paragraph": src.content}
    try:
        resp = yield ModelCall("summary", prompt, inputs, src.seq)
        return {src.seq: clean_summary(resp.content)}
    except ModelCallError as exc:
        ctx.trace.fail(Failure("summary", f"summary call failed: {exc}", src.seq, "summary left empty"))
        return {src.seq: ""}


def enrich(ctx: EnrichContext, used: Sequence[SerializedSource], passages: Mapping[int, str] | None = None
           ) -> Enrichment:
    """Keywords and summaries of ``used``; ``passages``: per seq, the passage of the source its chip quotes."""
    if not used:
        return Enrichment({}, {})
    keyword_task = _keywords_batched if ctx.strategy == "batched" else _keywords_sequential
    passages = passages or {}
    tasks = [keyword_task(ctx, used), *(_summary(ctx, s, passages.get(s.seq, "")) for s in used)]
    if ctx.calls is None:
        with ModelCalls() as calls:
            keywords, *summaries = calls.run(ctx.trace, ctx.role, tasks, ctx.deadline)
    else:
        keywords, *summaries = ctx.calls.run(ctx.trace, ctx.role, tasks, ctx.deadline)
    return Enrichment({s.seq: keywords.get(s.seq, "") for s in used},
                      {seq: text for one in summaries for seq, text in one.items()})
