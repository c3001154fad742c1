"""Typed fields of the configuration files: each reader returns the value or raises one ``ConfigError`` line
naming the file and field (``where``, e.g. ``"llm_config.yml: models[1].timeout"``) and what is wrong."""

from __future__ import annotations

from typing import Any

from .errors import ConfigError

SHOWN = 60  # characters of a wrong value kept in the message


def shown(value: object) -> str:
    """A wrong value as the message shows it: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def _wrong(where: str, expected: str, value: object) -> ConfigError:
    return ConfigError(f"{where}: expected {expected}, not {shown(value)}")


def settings(value: object, where: str) -> dict[Any, Any]:
    """A section of settings (``citation:``, ``storage:``): a mapping; empty (null) counts as no settings."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _wrong(where, "a mapping of settings", value)
    return value


def number(value: object, where: str, expected: str = "a number", *, least: float | None = None,
           above: float | None = None) -> float:
    """A number (not a boolean), at least ``least`` or greater than ``above`` when given."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _wrong(where, expected, value)
    if (least is not None and value < least) or (above is not None and value <= above) or value != value:
        raise _wrong(where, expected, value)
    return float(value)


def whole(value: object, where: str, expected: str, *, least: int) -> int:
    """A whole number (not a boolean) of at least ``least``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise _wrong(where, expected, value)
    return value


def text(value: object, where: str, expected: str) -> str:
    """A non-empty string."""
    if not isinstance(value, str) or not value.strip():
        raise _wrong(where, expected, value)
    return value


def optional_text(value: object, where: str, expected: str) -> str | None:
    """A non-empty string, or None when the field is left out or null."""
    return None if value is None else text(value, where, expected)
