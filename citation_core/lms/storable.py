"""Text as every store can keep it: no lone surrogate, no NUL.

A model can stream a lone UTF-16 surrogate (``\\ud800``), which UTF-8 cannot carry, so SQLite refuses
it; PostgreSQL refuses NUL in text, which SQLite keeps. Both stores keep the same text when it is
cleaned first: a surrogate pair that arrived in two pieces is joined into its character, a lone
surrogate becomes U+FFFD and NUL is removed. Nothing else changes.
"""

from __future__ import annotations

import re
from typing import Any

_UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")


def storable(text: str) -> str:
    """``text`` as a store can keep it (itself when it already can)."""
    if _UNSTORABLE.search(text) is None:
        return text
    text = text.replace("\x00", "")
    # UTF-16 joins each high surrogate followed by a low one into their character; a lone one is U+FFFD
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def is_storable(text: str) -> bool:
    return _UNSTORABLE.search(text) is None


def storable_value(value: Any) -> Any:
    """A JSON value (mappings, lists, strings, numbers…) with every string in it, keys included, storable."""
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, dict):
        return {storable(k) if isinstance(k, str) else k: storable_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [storable_value(v) for v in value]
    return value
