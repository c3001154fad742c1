"""The chip renderer mounted as one Streamlit custom component (components v2); see ``citation_core.lms.chips``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from citation_core.errors import InputError
from citation_core.lms.chips import COMPONENT_NAME, chip_component_css, chip_component_js, chip_data

from .text import md_escape


@cache
def chip_component() -> Callable[..., Any]:
    """Declare the component once per process and return its mount function."""
    import streamlit as st

    return st.components.v2.component(
        COMPONENT_NAME,
        css=chip_component_css(),
        js=chip_component_js(),
    )


def _ignore_click() -> None:
    """Registering a callback is what makes Streamlit report the ``click`` trigger."""


def _click_callback(key: str, on_click: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
    """Runs before the next script run, so the handler may change widget state freely."""

    def callback() -> None:
        import streamlit as st

        state = st.session_state.get(key)
        value = state.get("click") if isinstance(state, Mapping) else None
        if isinstance(value, dict):
            on_click(value)

    return callback


def render_chips(
    answer_text: str,
    units: Mapping[str, Any],
    faqs: Mapping[str, Any],
    key: str,
    on_click: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any] | None:
    """Render the answer with chips; return the click value of this rerun, or None.

    ``on_click`` (optional) receives the click value in a callback, before the rerun's script runs.
    A text the renderer refuses (longer than ``MAX_ANSWER_CHARS``) shows as one line saying so.
    """
    import streamlit as st

    try:
        data = chip_data(answer_text, units, faqs)
    except InputError as exc:
        st.warning(md_escape(f"This answer cannot be shown with its chips: {exc}"))
        return None
    mount = chip_component()
    result = mount(
        key=key,
        data=data,
        on_click_change=_click_callback(key, on_click) if on_click else _ignore_click,
    )
    value = getattr(result, "click", None) if result is not None else None
    return value if isinstance(value, dict) else None
