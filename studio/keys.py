"""Every session-state key the app uses, in one place.

``VIEW`` holds the Ask page's ``ViewState`` (studio/view_state.py): the one source of truth for the
course, unit, view, position, conversation, language and variant. The ``W_*`` keys belong to the
widgets that show that state: the page writes them from the state before it draws each widget and
turns their changes back into transitions of the state, so a widget that is not drawn (another
page is open) loses nothing.
"""

from __future__ import annotations

# the history key (a bearer secret, also in the URL as ?history=)
HISTORY = "session_id"
# the Ask page's ViewState
VIEW = "view"

# widgets of the Ask page, written from VIEW before they are drawn
W_COURSE = "w_course"
W_UNIT = "w_unit"
W_MODE = "w_mode"
W_SLIDE = "w_slide"
W_SECOND = "w_second"
W_LANGUAGE = "w_language"
W_VARIANT = "w_variant"
W_ANSWER_VIEW = "w_answer_view"  # "Sources list" / "Trace" / "Raw answer"
W_QUESTION = "w_question"
W_PASTED = "w_pasted"
W_PREVIEW = "w_preview"  # instructor preview: units not released yet are offered too

# Library: the course picked, and the unit to show after an upload or an edit: (course id, unit id)
W_LIBRARY_COURSE = "w_library_course"
LIBRARY_COURSE = "library_course"  # the course last chosen in the Library (a widget's key is gone after another page)
OPEN_UNIT = "library_open_unit"
LIBRARY_SAID = "library_said"  # what the last change to a unit did, shown once after the rerun it asked for
LIBRARY_TO_ASK = "library_to_ask"  # "Ask about …" under that message was pressed: the Library opens the Ask page

# Chip preview: the last click value the chips sent
PREVIEW_CLICK = "preview_click"
