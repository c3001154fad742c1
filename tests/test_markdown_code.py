"""Where an answer's Markdown code is, read as it streams (``text.markdown_code``): the same places the chips'
renderer (markdown-it) draws as code, whatever pieces the text arrives in."""

from __future__ import annotations

import re

import pytest

from citation_core.lms.render import render_markdown
from citation_core.text.markdown_code import CodeScanner, Run, merged

# Answers as writers write them: handles in prose, in code spans of one or more backticks, in fenced blocks
# (backticks, tildes, a language, inside list items), beside backticks that open no span.
ANSWERS = (
    "Write `[cite:1]` behind a sentence.[cite:1]",
    "Runs: ``a ` [cite:1] b`` and ```x``` [cite:1]",
    "Steps:\n\n1. Stage it.[cite:1]\n   ```bash\n   git add [cite:1]\n   ```\n2. Commit.[cite:1]\n",
    "~~~text\n[cite:1]\n```\n[cite:1]\n~~~\nAfter.[cite:1]",
    "````md\n```\n[cite:1]\n```\n````\nDone.[cite:1]",
    "An open `[cite:1] and no close.\n\nNext `[cite:1]` paragraph.[cite:1]",
    "- item `[cite:1]\n- next` text[cite:1]",
    "A span over\ntwo lines `[cite:1]\nstill code` here.[cite:1]",
    "Escaped \\`[cite:1]` not code.[cite:1]",
    "Heading next `[cite:1]\n# Title `x`\nText.[cite:1]",
    "A fence never closed:\n\n```python\nx = 1  # [cite:1]\n",
    "Quote:\n\n> `[cite:1]` and [cite:1]\n",
    "Inline ``` [cite:1] ``` triple.[cite:1]",
)


def _tagged(text: str) -> str:
    """``text`` with each ``[cite:1]`` numbered, so that each can be told apart."""
    count = iter(range(10_000))
    return re.sub(r"\[cite:1\]", lambda _: f"[cite:1_{next(count)}]", text)


def _rendered_as_text(text: str) -> list[int]:
    return [int(n) for n in re.findall(r'data-cite="\[cite:1_(\d+)\]"', render_markdown(text))]


def _prose(runs: list[Run]) -> list[int]:
    return [int(n) for run in runs if not run.code for n in re.findall(r"\[cite:1_(\d+)\]", run.text)]


@pytest.mark.parametrize("answer", ANSWERS)
def test_code_is_where_the_renderer_draws_code_at_every_chunk_boundary(answer: str) -> None:
    text = _tagged(answer)
    runs, pending = CodeScanner.read(text)
    assert pending == "" and "".join(r.text for r in runs) == text
    assert _prose(runs) == _rendered_as_text(text)
    # one character at a time, and two pieces cut anywhere
    for pieces in [tuple(text), *((text[:cut], text[cut:]) for cut in range(1, len(text)))]:
        scanner = CodeScanner()
        fed = [run for piece in pieces for run in scanner.feed(piece)] + scanner.end()
        assert merged(fed) == runs, pieces


def test_a_span_is_undecided_until_it_closes_or_its_paragraph_ends() -> None:
    scanner = CodeScanner()
    assert scanner.feed("Use `a [cite:1]") == [Run("Use ", False)] and scanner.pending == "`a [cite:1]"
    assert scanner.feed(" b` then") == [Run("`a [cite:1] b`", True), Run(" then", False)]
    assert scanner.feed(" `c") == [Run(" ", False)] and scanner.pending == "`c"
    assert merged(scanner.feed("\n\nd")) == [Run("`c\n\nd", False)] and scanner.pending == ""
    assert scanner.feed("\n```") == [Run("\n", False)] and scanner.pending == "```"  # a fence, or a span?
    assert scanner.feed("py\n") == [Run("```py\n", True)]  # a fence: code at once, line by line
    assert scanner.feed("x = 1") == [Run("x = 1", True)]
