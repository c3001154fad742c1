"""A question the Ask page has taken but not yet answered and stored.

Streamlit ends a script run whenever a new run is asked for (a widget event, a dropped connection coming
back), also in the middle of writing and citing an answer. The question then lived only in that run: the
page kept showing "Writing the answer…" and nothing was stored. The Ask page keeps the question here, in
the session, from the moment it is submitted until its answer is stored; whichever run comes next answers
it, and a run of the viewer alone hands over to a run of the whole page (``needs_whole_page``).
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

from citation_core.chat.view import ViewPosition

PENDING = "pending_ask"  # session state key


@dataclass(frozen=True)
class PendingAsk:
    question: str
    pasted: str | None
    course_id: int
    preview: bool
    position: ViewPosition
    language: str
    variant: str
    conversation_id: int | None
    history: tuple[tuple[str, str], ...]


def pending(session: MutableMapping[str, Any]) -> PendingAsk | None:
    found = session.get(PENDING)
    return found if isinstance(found, PendingAsk) else None


def needs_whole_page(session: MutableMapping[str, Any]) -> bool:
    """Whether a run of one fragment must hand over to a run of the whole page: a question is waiting, and
    only the whole page answers it."""
    if pending(session) is None:
        return False
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)
