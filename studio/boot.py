"""Make a deep link (e.g. /chip_preview) work as the first request of a fresh server.

Streamlit treats a ``pages/`` folder beside the main script as a legacy multipage app until some
session has run ``st.navigation``; a deep link arriving first would run the page alone, without the
app's navigation and page config. Each page imports this module first: in that situation it switches
the legacy mode off and reruns, so the request goes through ``app.py`` like every other.
"""

from __future__ import annotations

import streamlit as st

try:  # a private flag of Streamlit; without it there is nothing to fix
    from streamlit.runtime.pages_manager import PagesManager
except ImportError:  # pragma: no cover
    PagesManager = None  # type: ignore[assignment,misc]

if PagesManager is not None and getattr(PagesManager, "uses_pages_directory", False):
    PagesManager.uses_pages_directory = False
    st.rerun()
