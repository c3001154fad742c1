"""A store the app cannot use: visitors read that it is unavailable and why in a few words (never its
address, a credential or the driver's message); the server log gets the whole line, which names the
setting and the store with its credentials masked."""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn, TypeVar

import streamlit as st
from streamlit.logger import get_logger

from citation_core.errors import StoreProblem

from .text import md_escape

T = TypeVar("T")

log = get_logger(__name__)


def unavailable_line(error: StoreProblem) -> str:
    """What a visitor reads: the setting and what is wrong with it, nothing else."""
    why = ": ".join(part for part in (error.setting, error.problem) if part)
    return f"The store is unavailable: {why}. The server log has the details."


def stop_unavailable(error: StoreProblem) -> NoReturn:
    """Log ``error``, tell the visitor in one line and end this run of the page."""
    log.error("%s", error)
    st.error(md_escape(unavailable_line(error)), icon=":material/error:")
    st.stop()


def read_or_stop(read: Callable[[], T]) -> T:
    """``read()``, or, when the store fails, :func:`stop_unavailable` (also from a widget's callback)."""
    try:
        return read()
    except StoreProblem as exc:
        error = exc
    stop_unavailable(error)
