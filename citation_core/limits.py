"""How long an answer may be, in one place for every part of the product that takes or shows one."""

from __future__ import annotations

__all__ = ["MAX_ANSWER_CHARS"]

# The longest answer written, cited and rendered (characters): the writer's text and a pasted answer are
# cut there; rendering about 2.5 s and 130 MB for its most expensive shapes (tables, runs of "[" or "!["),
# measured by bench/hostile_render.py.
MAX_ANSWER_CHARS = 200_000
