"""The Ask page's view state: what is open, and every change to it as a pure function.

``ViewState`` is immutable. Each user action (pick a course, a unit, a view, a slide or a second,
click a chip, open a conversation, reload the page) is a function from the current state and the
``Catalog`` of what exists to the next state; the page only draws the state and calls these from
its widget callbacks. Nothing here imports Streamlit, so every transition is tested without a
browser (tests/test_view_state.py).

Invariants after every transition:

* ``course_id`` is a course of the catalog and ``unit_id`` a unit of that course;
* ``mode`` is a view the unit has ("slides" needs a deck, "video" a video), unless it has neither;
* ``1 <= page <= pages`` of the unit's deck and never a page the instructor hid, ``second >= 0``;
* without ``preview`` only released units are open (an instructor preview opens every unit);
* an open conversation belongs to the open course, so its chips resolve against that course's
  units and a chip only ever moves the viewer inside its own unit;
* picking a unit opens that unit's own latest conversation (or none), never one of another unit, and
  opening a conversation brings back the language it was asked in.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

Mode = Literal["slides", "video"]
MODES: tuple[Mode, ...] = ("slides", "video")
Level = Literal["info", "warning", "error"]


@dataclass(frozen=True)
class UnitInfo:
    id: int
    name: str
    pages: int = 0  # pages of the deck, 0 without a deck
    has_video: bool = False
    hidden: frozenset[int] = frozenset()  # deck pages the instructor hid (never opened)
    length: float | None = None  # seconds the video is known to run (its transcript's end), None: not known
    has_transcript: bool = False  # a transcript to read, with or without a video (the "video" mode shows it)

    @property
    def visible_pages(self) -> tuple[int, ...]:
        return tuple(p for p in range(1, self.pages + 1) if p not in self.hidden)

    @property
    def modes(self) -> tuple[Mode, ...]:
        slides = bool(self.visible_pages)
        return (("slides",) if slides else ()) + (("video",) if self.has_video or self.has_transcript else ())  # type: ignore[return-value]

    def default_mode(self) -> Mode:
        return self.modes[0] if self.modes else "slides"


@dataclass(frozen=True)
class CourseInfo:
    id: int
    name: str
    units: tuple[UnitInfo, ...]
    withheld: tuple[tuple[int, str], ...] = ()  # (unit id, why students do not see it) of units left out

    def unit(self, unit_id: int) -> UnitInfo | None:
        return next((u for u in self.units if u.id == unit_id), None)

    def withheld_reason(self, unit_id: int) -> str | None:
        return next((why for uid, why in self.withheld if uid == unit_id), None)


@dataclass(frozen=True)
class Catalog:
    """The courses and units that exist right now, in the order the pickers list them."""

    courses: tuple[CourseInfo, ...]

    def course(self, course_id: int) -> CourseInfo | None:
        return next((c for c in self.courses if c.id == course_id), None)

    def unit(self, course_id: int, unit_id: int) -> UnitInfo | None:
        course = self.course(course_id)
        return course.unit(unit_id) if course else None


@dataclass(frozen=True)
class Place:
    """Where a conversation was asked: its course and unit, the page or the second then open, and the answer
    language it was asked in (None: not known)."""

    course_id: int
    unit_id: int
    page: int | None = None
    second: float | None = None
    language: str | None = None


@dataclass(frozen=True)
class Notice:
    """A message for the user about the last transition, shown once (as a toast and in the viewer)."""

    level: Level
    text: str


@dataclass(frozen=True)
class ViewState:
    course_id: int
    unit_id: int
    mode: Mode = "slides"
    page: int = 1  # deck index (1-based PDF position)
    second: float = 0.0
    conversation_id: int | None = None
    language: str = "en"
    variant: str = "default"
    play: bool = False  # start the video playing (a video chip was clicked)
    seek: int = 0  # counts the jumps of the video, so the same second clicked again seeks again
    last_click: str | None = None  # nonce of the last chip click applied
    preview: bool = False  # instructor preview: units not released yet are offered too
    # what the last chip click quoted (the evidence), lit up on its slide or in the transcript; any other
    # move of the viewer drops it
    evidence: str | None = None
    until: float | None = None  # end second of a clicked video citation (its cues are lit up)
    notice: Notice | None = field(default=None, compare=False)


class EmptyCatalog(ValueError):
    """There is no course (or no unit) to show."""


# ---- building blocks ------------------------------------------------------------------------------


def _first_unit(course: CourseInfo) -> UnitInfo:
    if not course.units:
        raise EmptyCatalog(f"course {course.id} has no units")
    return course.units[0]


def _at_unit(state: ViewState, course: CourseInfo, unit: UnitInfo, **changes: Any) -> ViewState:
    """The unit opened at its start (first slide, second 0) in its default view."""
    base: dict[str, Any] = {"course_id": course.id, "unit_id": unit.id, "mode": unit.default_mode(), "page": 1,
                            "second": 0.0, "play": False, "evidence": None, "until": None}
    return replace(state, **{**base, **changes})


def _clamp_page(unit: UnitInfo, page: int) -> int:
    """``page`` inside the deck; a hidden page gives the nearest visible one (the following one first)."""
    page = max(1, min(int(page), max(unit.pages, 1)))
    if page not in unit.hidden:
        return page
    visible = unit.visible_pages
    if not visible:
        return 1
    return min(visible, key=lambda p: (abs(p - page), p < page))


# The latest second any video opens at (a day): a player's start time is a 32-bit integer, and a URL can say
# 2147483648 or 1e308.
MAX_SECOND = 86_400.0


def _second(value: object, unit: UnitInfo | None = None) -> float:
    """A second to open the video at: a number from 0 to the video's known length (else ``MAX_SECOND``)."""
    try:
        second = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return 0.0
    if not math.isfinite(second) or second <= 0:
        return 0.0
    last = MAX_SECOND if unit is None or unit.length is None else min(MAX_SECOND, max(0.0, unit.length))
    return min(second, last)


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 12:
        return int(value.strip())
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _unit(catalog: Catalog, state: ViewState) -> UnitInfo:
    unit = catalog.unit(state.course_id, state.unit_id)
    if unit is None:  # callers normalise first
        raise EmptyCatalog(f"unit {state.unit_id} is not in course {state.course_id}")
    return unit


def with_notice(state: ViewState, level: Level, text: str) -> ViewState:
    return replace(state, notice=Notice(level, text))


def clear_notice(state: ViewState) -> ViewState:
    return replace(state, notice=None)


# ---- transitions ---------------------------------------------------------------------------------


def initial(catalog: Catalog, language: str = "en", variant: str = "default") -> ViewState:
    """The first unit of the first course, at its start."""
    if not catalog.courses:
        raise EmptyCatalog("no course")
    course = catalog.courses[0]
    unit = _first_unit(course)
    return ViewState(course.id, unit.id, unit.default_mode(), language=language, variant=variant)


def normalize(state: ViewState, catalog: Catalog) -> ViewState:
    """The state made valid for the catalog as it is now (a course or unit may have gone)."""
    course = catalog.course(state.course_id)
    if course is None:
        fresh = initial(catalog, state.language, state.variant)
        return with_notice(fresh, "warning", f"Course {state.course_id} is no longer in the library: opened "
                           f"“{catalog.courses[0].name}”.")
    unit = course.unit(state.unit_id)
    if unit is None:
        return with_notice(_at_unit(state, course, _first_unit(course)), "warning",
                           f"{_missing_unit(course, state.unit_id)}: opened its first unit.")
    mode = state.mode if state.mode in unit.modes or not unit.modes else unit.default_mode()
    page = _clamp_page(unit, state.page)
    second = _second(state.second, unit)
    if (mode, page, second) == (state.mode, state.page, state.second):
        return state
    return replace(state, mode=mode, page=page, second=second)


def select_course(state: ViewState, catalog: Catalog, course_id: int) -> ViewState:
    """Another course: its first unit at its start; the open conversation (of the old course) closes."""
    if course_id == state.course_id:
        return state
    course = catalog.course(course_id)
    if course is None:
        return with_notice(state, "error", f"Course {course_id} is not in the library.")
    return _at_unit(state, course, _first_unit(course), conversation_id=None)


def select_unit(state: ViewState, catalog: Catalog, unit_id: int, conversation_id: int | None = None,
                language: str | None = None) -> ViewState:
    """Another unit of the same course, at its start, with ``conversation_id`` open: the unit's own latest
    conversation, or None (the conversation of the unit left behind closes), in the ``language`` it was
    asked in (None: the language stays)."""
    if unit_id == state.unit_id:
        return state
    course = catalog.course(state.course_id)
    unit = course.unit(unit_id) if course else None
    if course is None or unit is None:
        return with_notice(state, "error", f"Unit {unit_id} is not in this course.")
    opened = _at_unit(state, course, unit, conversation_id=conversation_id)
    return replace(opened, language=language) if conversation_id is not None and language else opened


def select_mode(state: ViewState, catalog: Catalog, mode: str | None) -> ViewState:
    """Slides or video; a view the unit does not have (or none, a deselected control) changes nothing."""
    unit = _unit(catalog, state)
    if mode not in unit.modes or mode == state.mode:
        return state
    return replace(state, mode=mode, play=False, evidence=None, until=None)  # type: ignore[arg-type]


def select_page(state: ViewState, catalog: Catalog, page: int) -> ViewState:
    unit = _unit(catalog, state)
    return replace(state, mode="slides", page=_clamp_page(unit, page), play=False, evidence=None, until=None)


def step_page(state: ViewState, catalog: Catalog, step: int) -> ViewState:
    """The next (``step`` > 0) or previous visible page; at either end the state stays."""
    unit = _unit(catalog, state)
    ahead = [p for p in unit.visible_pages if (p > state.page if step > 0 else p < state.page)]
    if not ahead:
        return state
    return select_page(state, catalog, ahead[0] if step > 0 else ahead[-1])


def set_preview(state: ViewState, on: bool) -> ViewState:
    """Instructor preview on or off. The catalog differs with it: normalise against the new one (an open
    unit that students cannot see yet then gives way to the first unit, saying why)."""
    return replace(state, preview=bool(on))


def select_second(state: ViewState, catalog: Catalog, second: float) -> ViewState:
    """Open the video at ``second`` (paused: the user typed it, nothing asked to play)."""
    return replace(state, mode="video", second=_second(second, _unit(catalog, state)), play=False,
                   seek=state.seek + 1, evidence=None,
                   until=None)


def select_language(state: ViewState, language: str) -> ViewState:
    return replace(state, language=language)


def select_variant(state: ViewState, variant: str | None) -> ViewState:
    return state if not variant else replace(state, variant=variant)


def new_conversation(state: ViewState) -> ViewState:
    return replace(state, conversation_id=None)


def conversation_started(state: ViewState, conversation_id: int) -> ViewState:
    """A question was asked and stored: its conversation is the open one."""
    return replace(state, conversation_id=conversation_id)


def _at_place(state: ViewState, catalog: Catalog, place: Place) -> ViewState:
    """Course, unit and view where ``place`` says (page or second); a unit that is gone says so."""
    course = catalog.course(place.course_id)
    if course is None:
        raise EmptyCatalog(f"course {place.course_id}")
    unit = course.unit(place.unit_id)
    if unit is None:
        why = course.withheld_reason(place.unit_id)
        where = f"is {why} (instructor preview shows it)" if why else f"is no longer in “{course.name}”"
        return with_notice(_at_unit(state, course, _first_unit(course)), "warning",
                           f"Unit {place.unit_id}, where this was asked, {where}: opened its first unit.")
    if place.second is not None and (unit.has_video or unit.has_transcript):
        return _at_unit(state, course, unit, mode="video", second=_second(place.second, unit), seek=state.seek + 1)
    if place.page is not None and unit.pages:
        return _at_unit(state, course, unit, mode="slides", page=_clamp_page(unit, place.page))
    return _at_unit(state, course, unit)


def open_conversation(state: ViewState, catalog: Catalog, conversation_id: int, place: Place) -> ViewState:
    """Open a stored conversation where it was asked: its course, unit and view (page or second), in the
    answer language it was asked in."""
    if catalog.course(place.course_id) is None:
        return with_notice(state, "error", f"This conversation was asked in course {place.course_id}, which is no "
                           "longer in the library.")
    return replace(_at_place(state, catalog, place), conversation_id=conversation_id,
                   language=place.language or state.language)


def open_unit(state: ViewState | None, catalog: Catalog, course_id: int, unit_id: int,
              latest: tuple[int, Place] | None = None) -> ViewState:
    """The unit an upload in the Library went into, opened at its start with its own ``latest`` conversation
    (its id and where it was asked; None: none) in the language that was asked in. The unit already open stays
    as it is (its page and conversation); a unit the catalog does not offer changes nothing. Without a state
    (the Ask page not opened yet), from the first unit of the first course."""
    base = state if state is not None else initial(catalog)
    course = catalog.course(course_id)
    unit = course.unit(unit_id) if course is not None else None
    if course is None or unit is None or (base.course_id, base.unit_id) == (course_id, unit_id):
        return base
    conversation, place = latest if latest is not None else (None, None)
    opened = _at_unit(base, course, unit, conversation_id=conversation, notice=None)
    return replace(opened, language=place.language) if place is not None and place.language else opened


def _unit_label(unit: UnitInfo) -> str:
    return f"“{unit.name}”"


def apply_click(state: ViewState, catalog: Catalog, click: Mapping[str, Any]) -> ViewState:
    """A chip was clicked: move the viewer inside the chip's own unit, or say why not.

    The same click value (nonce) applied twice changes nothing; a new click on the same target
    moves the viewer again (a video seeks again). A unit that is not in the open course never
    moves the viewer. ``kind`` "unit" opens the unit at its start: ``reason`` "changed" warns
    (the material changed since the answer), "newer" warns (the citation comes from another copy of the
    material, newer than the course's), "gone" is an error (the deck or video no longer exists;
    ``cited`` says which).
    """
    nonce = click.get("nonce")
    if nonce is not None and nonce == state.last_click:
        return state
    state = replace(state, last_click=nonce if isinstance(nonce, str) else None)
    course = catalog.course(state.course_id)
    unit_id = _int(click.get("unitId"))
    unit = course.unit(unit_id) if course is not None and unit_id is not None else None
    if course is None or unit is None:
        return with_notice(state, "error", f"The cited unit ({click.get('unitId')}) is not in this course: the "
                           "viewer stays where it is.")
    kind = click.get("kind")
    if kind == "slide":
        page = _int(click.get("page"))
        if not unit.pages or page is None or not 1 <= page <= unit.pages:
            return _gone(state, course, unit, "slide")
        if page in unit.hidden:
            return with_notice(state, "error", f"The cited slide of {_unit_label(unit)} is hidden by the "
                               "instructor: the viewer stays where it is.")
        return _at_unit(state, course, unit, mode="slides", page=page, evidence=_quote(click))
    if kind == "video":
        start = click.get("start")
        timed = isinstance(start, (int, float)) and not isinstance(start, bool)
        if not (unit.has_video or unit.has_transcript) or not timed:
            return _gone(state, course, unit, "video")
        end = click.get("end")
        until = _second(end, unit) if isinstance(end, (int, float)) and not isinstance(end, bool) else None
        return _at_unit(state, course, unit, mode="video", second=_second(start, unit), play=True, seek=state.seek + 1,
                        evidence=_quote(click), until=until)
    if kind == "unit":
        reason = click.get("reason") or ("changed" if click.get("stale") else "position")
        opened = _at_unit(state, course, unit)
        if reason == "changed":
            return with_notice(opened, "warning", f"This source changed since the answer was written: opened "
                               f"{_unit_label(unit)} at its start, not at the cited position.")
        if reason == "newer":
            return with_notice(opened, "warning", "This citation comes from another copy of the material, newer "
                               f"than the one in this course: opened {_unit_label(unit)} at its start, not at the "
                               "cited position.")
        if reason == "gone":
            return _gone(state, course, unit, str(click.get("cited") or "source"))
        return opened
    return state


MAX_QUOTE_CHARS = 4_000  # an evidence passage is one to three lines or a few cues


def _quote(click: Mapping[str, Any]) -> str | None:
    """The evidence a click carries, when it is text of a sensible length (else nothing is lit up)."""
    quote = click.get("quote")
    return quote if isinstance(quote, str) and quote.strip() and len(quote) <= MAX_QUOTE_CHARS else None


def _missing_unit(course: CourseInfo, unit_id: int) -> str:
    why = course.withheld_reason(unit_id)
    return (f"Unit {unit_id} is {why} (instructor preview shows it)" if why
            else f"Unit {unit_id} is no longer in this course")


def _gone(state: ViewState, course: CourseInfo, unit: UnitInfo, what: str) -> ViewState:
    what = {"slide": "slide", "video": "video"}.get(what, "source")
    return with_notice(_at_unit(state, course, unit), "error",
                       f"The cited {what} of {_unit_label(unit)} no longer exists: opened the unit at its start.")


# ---- the URL ------------------------------------------------------------------------------------


def to_params(state: ViewState) -> dict[str, str]:
    """The state as URL query parameters (the history key is added by the page)."""
    params = {"course": str(state.course_id), "unit": str(state.unit_id), "view": state.mode}
    if state.mode == "slides":
        params["page"] = str(state.page)
    else:
        params["second"] = f"{int(state.second)}"
    if state.conversation_id is not None:
        params["conversation"] = str(state.conversation_id)
    if state.language != "en":
        params["lang"] = state.language
    if state.preview:
        params["preview"] = "1"
    if state.mode == "slides" and state.evidence:
        params["lit"] = state.evidence  # what a slide chip lit up stays lit after a reload
    return params


PARAM_NAMES = ("course", "unit", "view", "page", "second", "conversation", "lang", "preview", "lit")


def preview_param(params: Mapping[str, str]) -> bool:
    """Whether a URL asks for the instructor preview (the page builds its catalog from it)."""
    return params.get("preview") == "1"


def reload(catalog: Catalog, params: Mapping[str, str], find: Callable[[int], Place | None],
           latest: int | None, languages: Iterable[str] = ("en",)) -> ViewState:
    """The state of a fresh page load from its URL.

    ``find(conversation_id)`` gives where a conversation of this history was asked (None for a
    conversation that is not of this history); ``latest`` is the newest conversation of the history.
    The URL's own position and language win (with the lines a slide chip lit up on that slide); without a
    position the conversation (the URL's, else the latest) opens where it was asked, in the language it was
    asked in; without any conversation the first unit opens.
    """
    language = params.get("lang", "en")
    language = language if language in set(languages) else "en"
    state = replace(initial(catalog, language), preview=preview_param(params))
    conv = _int(params.get("conversation"))
    place = find(conv) if conv is not None else None
    if place is None and latest is not None and "course" not in params:
        conv, place = latest, find(latest)
    if place is not None and conv is not None and catalog.course(place.course_id) is not None:
        state = clear_notice(open_conversation(state, catalog, conv, place))
    course_id = _int(params.get("course"))
    if course_id is None or catalog.course(course_id) is None:
        return state
    state = replace(state, language=language)  # the URL says where and in which language
    if course_id != state.course_id:
        state = select_course(state, catalog, course_id)
    unit_id = _int(params.get("unit"))
    if unit_id is not None and catalog.unit(course_id, unit_id) is not None and unit_id != state.unit_id:
        # the URL's conversation stays open (a chip of it may have opened another unit of its course)
        state = select_unit(state, catalog, unit_id, state.conversation_id)
    view = params.get("view")
    if view == "video" and "video" in _unit(catalog, state).modes:
        state = replace(state, mode="video", second=_second(params.get("second"), _unit(catalog, state)), play=False)
    elif view == "slides" and "slides" in _unit(catalog, state).modes:
        page = _int(params.get("page"))
        state = replace(select_page(state, catalog, page if page is not None else 1),
                        evidence=_quote({"quote": params.get("lit")}))
    return clear_notice(state)
