"""A stand-in for an LLM behind LocalChatServer: reads the project's prompts as a cooperative model would.

Used by the benchmarks and the HTTP tests: ``task_of`` tells which prompt it got, ``place`` answers a
placement prompt by putting, behind each sentence, the id of the entry that shares most words with it.
"""

from __future__ import annotations

import json
import re


def words(text: str) -> set[str]:
    return set(re.findall(r"\w{4,}", text.lower()))


def task_of(prompt: str) -> str:
    if "JSON array of strings" in prompt:
        return "keywords_batched"
    if "already used in this answer:" in prompt:
        return "keyword"
    if "Summarize the paragraph" in prompt:
        return "summary"
    if "Answer:" in prompt and ("Paragraphs:" in prompt or "FAQ entries:" in prompt):
        return "placement"
    raise ValueError(f"unrecognised prompt: {prompt[:120]!r}")


def place(prompt: str) -> str:
    """The answer of a placement prompt with, behind each sentence, the best entry's id (two shared words)."""
    head, tail = prompt.rsplit("\n\nAnswer:\n", 1)
    answer = tail[:-1] if tail.endswith("\n") else tail  # the template's final newline
    label = "\nFAQ entries:\n" if "\nFAQ entries:\n" in head else "\nParagraphs:\n"
    entries: list[dict[str, str]] = json.loads(head.rsplit(label, 1)[1])
    out: list[str] = []
    pos = 0
    for m in re.finditer(r"[^.!?]+[.!?]", answer):
        sentence = words(m.group(0))
        best = max(entries, key=lambda e: len(sentence & words(e["content"])))
        out.append(answer[pos : m.end()])
        pos = m.end()
        if len(sentence & words(best["content"])) >= 2:
            out.append(best["id"])
    out.append(answer[pos:])
    return "".join(out)
