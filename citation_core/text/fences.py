"""Fenced code blocks of Markdown, found as the renderer finds them.

A block opens with a line of three or more backticks or tildes (indented or not: fences inside list items
are indented) and closes with a line holding only the same character, at least as many times, so a block
fenced by four backticks may show a fence of three, and a tilde fence is code too. An info string after
backticks holds no backtick (a line with backticks on both sides of its text is a code span, not a fence).
A block that is never closed runs to the end of the text.
"""

from __future__ import annotations

import re

_OPEN = re.compile(r"[ \t]*(`{3,}|~{3,})")


def fenced_blocks(text: str) -> tuple[tuple[int, int], ...]:
    """(start, end) of each fenced block of ``text``, in order: from the start of its opening line to the end
    of its closing line (before the line break), or to the end of the text when it is not closed."""
    if "```" not in text and "~~~" not in text:
        return ()
    spans: list[tuple[int, int]] = []
    opened: int | None = None
    fence = ""
    pos = 0
    for line in text.split("\n"):
        start, pos = pos, pos + len(line) + 1
        if opened is None:
            m = _OPEN.match(line)
            if m is not None and not (m.group(1)[0] == "`" and "`" in line[m.end():]):
                opened, fence = start, m.group(1)
        else:
            body = line.strip()
            if len(body) >= len(fence) and body == fence[0] * len(body):
                spans.append((opened, start + len(line)))
                opened = None
    if opened is not None:
        spans.append((opened, len(text)))
    return tuple(spans)


def prose_regions(text: str) -> list[tuple[int, int]]:
    """The character ranges of ``text`` outside its fenced code blocks (empty ranges left out)."""
    regions, pos = [], 0
    for start, end in fenced_blocks(text):
        regions.append((pos, start))
        pos = end
    regions.append((pos, len(text)))
    return [(a, b) for a, b in regions if b > a]
