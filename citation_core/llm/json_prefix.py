"""A JSON text cut off inside a string, closed so that it parses: what a reply stopped at a size bound held."""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["close_cut_json"]

_STRUCTURE = re.compile(r'["\[\]{}]')
_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.S)  # a whole string (possessive: linear on a long one)
_HALF_ESCAPE = re.compile(r"(\\+)(u[0-9a-fA-F]{0,3})?\Z")


def close_cut_json(text: str) -> Any | None:
    """The value ``text`` starts when it was cut inside a string: that string closed where the text ends
    (half an escape dropped), then every array and object still open. A string cut as an object's key gets
    the value null. None when the text was not cut inside a string, or does not parse even so."""
    stack: list[str] = []
    pos = 0
    while True:
        m = _STRUCTURE.search(text, pos)
        if m is None:
            return None
        mark = m.group()
        if mark != '"':
            if mark in "[{":
                stack.append(mark)
            elif stack:
                stack.pop()
            pos = m.end()
            continue
        whole = _STRING.match(text, m.start())
        if whole is not None:
            pos = whole.end()
            continue
        head = _without_half_escape(text)
        closers = "".join("]" if opened == "[" else "}" for opened in reversed(stack))
        for tail in ('"', '":null'):
            try:
                return json.loads(head + tail + closers)
            except (ValueError, RecursionError):
                continue
        return None


def _without_half_escape(text: str) -> str:
    """``text`` (ending inside a string) without an escape it ends in the middle of."""
    m = _HALF_ESCAPE.search(text)
    if m is None or len(m.group(1)) % 2 == 0:
        return text
    return text[: m.end(1) - 1]
