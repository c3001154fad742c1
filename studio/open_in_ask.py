"""After a change in the Library, the Ask page opens the unit it went into: the session's view state moves there."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from citation_core.lms.store import LmsStore
from citation_core.material.library import CourseMaterial

from . import view_state as vs
from .keys import HISTORY, VIEW
from .services import catalog_of, latest_conversation


def open_in_ask(session: MutableMapping[str, Any], courses: dict[str, CourseMaterial], store: LmsStore,
                course_id: int, unit_id: int) -> None:
    """Make the Ask page of this session open unit ``unit_id`` of course ``course_id`` (with the unit's own
    latest conversation of this history, if any); the unit already open there stays where it is."""
    state: vs.ViewState | None = session.get(VIEW)
    catalog = catalog_of(courses, state.preview if state is not None else False)
    latest = latest_conversation(store, session[HISTORY], course_id, unit_id) if HISTORY in session else None
    session[VIEW] = vs.normalize(vs.open_unit(state, catalog, course_id, unit_id, latest), catalog)
