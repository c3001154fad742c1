"""The chip renderer mounted as one Streamlit custom component (components v2); see ``citation_core.lms.chips``.

The component receives ``chip_data`` as UTF-8 JSON bytes (``chip_payload``), with only the units and FAQs
the answer's markers name. Bytes, because Streamlit forwards bytes as they are, while it checks every
value of a dict for a dataframe, and that check imports pandas and pyarrow (about 1 s and 70 MiB the
first time in a server process). Only the named units, because every chip component carries its own
copy of the data: a course's whole table (every slide of every unit) in each answer adds up.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

from citation_core.errors import InputError
from citation_core.lms.chips import (
    COMPONENT_CSS_FILE,
    COMPONENT_JS_FILE,
    COMPONENT_NAME,
    PACKAGED_COMPONENT_NAME,
    chip_component_css,
    chip_component_js,
    chip_data,
)
from citation_core.lms.render import CANDIDATE_RE

from .text import md_escape


@cache
def chip_component() -> Callable[..., Any]:
    """Declare the component once per process and return its mount function.

    Installed, the package declares the renderer's folder to Streamlit (``citation_core/pyproject.toml``):
    the component names its entry module, the browser loads it and the modules it imports once, and a
    mount carries only its data. Else
    (the manifest was not found, e.g. the library is imported from a bare checkout) every mount carries the
    JavaScript and CSS inline, about 55 KB, and a rerun costs more with each answer on the page.
    """
    import streamlit as st
    from streamlit.errors import StreamlitAPIException

    try:
        return st.components.v2.component(PACKAGED_COMPONENT_NAME, css=COMPONENT_CSS_FILE, js=COMPONENT_JS_FILE)
    except StreamlitAPIException:
        return st.components.v2.component(COMPONENT_NAME, css=chip_component_css(), js=chip_component_js())


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


def cited_ids(answer_text: str) -> set[str]:
    """Every id a marker candidate of ``answer_text`` names: the second field of ``[cite:…]``.

    The renderer looks units and FAQs up by the ``entity_id`` the client parser reads from a candidate
    of the rendered HTML, and every such candidate is a match of ``CANDIDATE_RE`` in the text itself, so
    these are all the ids it can look up (and a few more: candidates inside code, broken markers).
    """
    ids: set[str] = set()
    for m in CANDIDATE_RE.finditer(answer_text):
        fields = m.group(0)[len("[cite:"):-1].split(":")
        if len(fields) > 1:
            ids.add(fields[1])
    return ids


def chip_payload(answer_text: str, units: Mapping[Any, Any], faqs: Mapping[Any, Any],
                 audits: Sequence[Mapping[str, Any]] | None = None) -> bytes:
    """What the component receives: ``chip_data`` as compact UTF-8 JSON, with the units and FAQs the answer names.

    Raises ``InputError`` for a text the renderer refuses (longer than ``MAX_ANSWER_CHARS``).
    """
    ids = cited_ids(answer_text)
    data = chip_data(answer_text, {k: v for k, v in units.items() if str(k) in ids},
                     {k: v for k, v in faqs.items() if str(k) in ids}, audits)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def show_chips(payload: Callable[[], bytes], key: str,
               on_click: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any] | None:
    """Mount the component with the data ``payload()`` returns (see ``chip_payload``); the click value of
    this rerun, or None. A text the renderer refuses shows as one line saying so."""
    import streamlit as st

    try:
        data = payload()
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


def render_chips(
    answer_text: str,
    units: Mapping[str, Any],
    faqs: Mapping[str, Any],
    key: str,
    on_click: Callable[[dict[str, Any]], None] | None = None,
    audits: Sequence[Mapping[str, Any]] | None = None,
) -> dict[str, Any] | None:
    """Render the answer with chips; return the click value of this rerun, or None.

    ``on_click`` (optional) receives the click value in a callback, before the rerun's script runs.
    A text the renderer refuses (longer than ``MAX_ANSWER_CHARS``) shows as one line saying so.
    """
    return show_chips(lambda: chip_payload(answer_text, units, faqs, audits), key, on_click)
