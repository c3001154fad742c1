"""The Ask page's view state: every transition as a pure function, without Streamlit or a browser."""

from __future__ import annotations

from dataclasses import replace

import pytest

from studio import view_state as vs
from studio.view_state import Catalog, CourseInfo, Place, UnitInfo, ViewState

ALGO = CourseInfo(1, "Algorithms", (
    UnitInfo(101, "Merge Sort", pages=17, has_video=True),
    UnitInfo(201, "Hash Tables", pages=16),
    UnitInfo(301, "Binäre Suchbäume", pages=12, has_video=True),
    UnitInfo(401, "Video only", pages=0, has_video=True),
))
UPLOADS = CourseInfo(900, "My uploads", (UnitInfo(9001, "Deck one", pages=5), UnitInfo(9003, "Deck three", pages=8)))
CATALOG = Catalog((ALGO, UPLOADS))


def start() -> ViewState:
    return vs.initial(CATALOG)


def test_initial_opens_the_first_unit_of_the_first_course_at_its_start() -> None:
    s = start()
    assert (s.course_id, s.unit_id, s.mode, s.page, s.second, s.conversation_id) == (1, 101, "slides", 1, 0.0, None)
    with pytest.raises(vs.EmptyCatalog):
        vs.initial(Catalog(()))


def test_every_unit_change_takes_however_many_in_a_row() -> None:
    s = start()
    for unit in (201, 301, 101, 201, 301, 401, 101):
        s = vs.select_unit(s, CATALOG, unit)
        assert s.unit_id == unit
        assert s.page == 1 and s.second == 0.0
    assert s.mode == "slides"
    assert vs.select_unit(s, CATALOG, 401).mode == "video", "a unit without a deck opens its video"


def test_a_unit_change_opens_that_units_own_conversation_or_none_a_course_change_closes_it() -> None:
    s = vs.conversation_started(start(), 7)
    assert vs.select_unit(s, CATALOG, 201).conversation_id is None, "conversation 7 is of unit 101"
    other = vs.select_unit(s, CATALOG, 201, 9, "de")  # unit 201's latest conversation, asked in German
    assert (other.unit_id, other.conversation_id, other.language) == (201, 9, "de")
    assert vs.select_unit(s, CATALOG, 201, None, "de").language == "en", "no conversation: the language stays"
    assert vs.to_params(vs.select_unit(s, CATALOG, 201)).get("conversation") is None
    moved = vs.select_course(s, CATALOG, 900)
    assert (moved.course_id, moved.unit_id, moved.conversation_id) == (900, 9001, None)
    assert vs.select_course(moved, CATALOG, 900) is moved


def test_unknown_course_or_unit_changes_nothing_but_says_so() -> None:
    s = start()
    bad = vs.select_unit(s, CATALOG, 9001)  # a unit of another course
    assert (bad.course_id, bad.unit_id) == (1, 101) and bad.notice and bad.notice.level == "error"
    assert vs.select_course(s, CATALOG, 5).course_id == 1


def test_views_pages_and_seconds() -> None:
    s = start()
    assert vs.select_mode(s, CATALOG, "video").mode == "video"
    assert vs.select_mode(s, CATALOG, None) == s, "a deselected control changes nothing"
    hashing = vs.select_unit(s, CATALOG, 201)
    assert vs.select_mode(hashing, CATALOG, "video") == hashing, "Hash Tables has no video"
    assert vs.select_page(s, CATALOG, 6).page == 6
    assert vs.select_page(s, CATALOG, 99).page == 17 and vs.select_page(s, CATALOG, -3).page == 1
    assert vs.step_page(vs.select_page(s, CATALOG, 6), CATALOG, 1).page == 7
    video = vs.select_second(s, CATALOG, 125.5)
    assert (video.mode, video.second, video.play) == ("video", 125.5, False)
    assert vs.select_second(s, CATALOG, float("nan")).second == 0.0
    assert vs.select_second(video, CATALOG, 125.5).seek == video.seek + 1, "the same second again seeks again"


def test_language_and_variant() -> None:
    s = vs.select_language(start(), "de")
    assert s.language == "de"
    assert vs.select_variant(s, "advanced").variant == "advanced"
    assert vs.select_variant(s, None) == s


# ---- chip clicks -------------------------------------------------------------------------------


def click(**value: object) -> dict[str, object]:
    return {"nonce": f"n-{sorted(value.items())}", **value}


def test_a_slide_click_opens_that_page_of_the_chips_own_unit() -> None:
    s = vs.select_page(start(), CATALOG, 9)
    after = vs.apply_click(s, CATALOG, click(kind="slide", unitId="301", page=4))
    assert (after.unit_id, after.mode, after.page, after.notice) == (301, "slides", 4, None)


def test_the_same_click_value_applies_once_a_new_click_on_the_same_target_again() -> None:
    s = start()
    value = {"kind": "slide", "unitId": "101", "page": 6, "nonce": "a"}
    once = vs.apply_click(s, CATALOG, value)
    moved_away = vs.select_page(once, CATALOG, 2)
    assert vs.apply_click(moved_away, CATALOG, value).page == 2, "a click value seen already changes nothing"
    assert vs.apply_click(moved_away, CATALOG, {**value, "nonce": "b"}).page == 6


def test_a_video_click_plays_from_its_start_and_seeks_again_on_the_same_second() -> None:
    s = start()
    first = vs.apply_click(s, CATALOG, {"kind": "video", "unitId": "101", "start": 125, "end": 131, "nonce": "1"})
    assert (first.mode, first.second, first.play) == ("video", 125.0, True)
    again = vs.apply_click(first, CATALOG, {"kind": "video", "unitId": "101", "start": 125, "end": 131, "nonce": "2"})
    assert again.seek == first.seek + 1
    assert vs.select_page(again, CATALOG, 3).play is False
    assert vs.select_mode(vs.select_page(again, CATALOG, 3), CATALOG, "video").play is False, "back to video: paused"


def test_a_click_on_a_unit_not_in_the_open_course_never_moves_the_viewer() -> None:
    s = vs.select_page(start(), CATALOG, 9)
    for value in (click(kind="slide", unitId="9003", page=5), click(kind="video", unitId="9003", start=3),
                  click(kind="unit", unitId="9003", reason="changed"), click(kind="slide", unitId="x", page=5),
                  click(kind="slide", page=5)):
        after = vs.apply_click(s, CATALOG, value)
        assert (after.course_id, after.unit_id, after.mode, after.page) == (1, 101, "slides", 9), value
        assert after.notice is not None and after.notice.level == "error"
        assert "not in this course" in after.notice.text


def test_changed_warns_and_opens_the_unit_only() -> None:
    s = vs.select_page(start(), CATALOG, 9)
    after = vs.apply_click(s, CATALOG, click(kind="unit", unitId="201", stale=True, reason="changed"))
    assert (after.unit_id, after.page) == (201, 1)
    assert after.notice is not None and after.notice.level == "warning"
    assert after.notice.text.startswith("This source changed since the answer was written")
    # a click value without a reason (older renderer) that says stale is "changed" too
    legacy = vs.apply_click(s, CATALOG, click(kind="unit", unitId="201", stale=True))
    assert legacy.notice is not None and legacy.notice.level == "warning"


def test_a_citation_from_a_newer_copy_warns_and_opens_the_unit_only() -> None:
    s = vs.select_page(start(), CATALOG, 9)
    after = vs.apply_click(s, CATALOG, click(kind="unit", unitId="201", stale=False, reason="newer", cited="slide"))
    assert (after.unit_id, after.page) == (201, 1)
    assert after.notice == vs.Notice(
        "warning", "This citation comes from another copy of the material, newer than the one in this course: "
                   "opened “Hash Tables” at its start, not at the cited position.")


def test_gone_is_an_error_and_opens_the_unit_only() -> None:
    s = vs.select_page(start(), CATALOG, 9)
    after = vs.apply_click(s, CATALOG, click(kind="unit", unitId="301", stale=False, reason="gone", cited="video"))
    assert (after.unit_id, after.mode, after.page) == (301, "slides", 1)
    assert after.notice == vs.Notice("error", "The cited video of “Binäre Suchbäume” no longer exists: opened the "
                                              "unit at its start.")
    # the app checks too: a page the deck does not have, a video the unit does not have
    beyond = vs.apply_click(s, CATALOG, click(kind="slide", unitId="201", page=40))
    assert (beyond.unit_id, beyond.page) == (201, 1) and beyond.notice and beyond.notice.level == "error"
    no_video = vs.apply_click(s, CATALOG, click(kind="video", unitId="201", start=5))
    assert (no_video.unit_id, no_video.mode) == (201, "slides") and no_video.notice and no_video.notice.level == "error"


def test_current_is_an_exact_jump_and_a_citation_without_position_opens_the_unit() -> None:
    s = start()
    exact = vs.apply_click(s, CATALOG, click(kind="slide", unitId="101", page=6))
    assert (exact.page, exact.notice) == (6, None)
    unit = vs.apply_click(vs.select_page(s, CATALOG, 6), CATALOG, click(kind="unit", unitId="301", reason="position"))
    assert (unit.unit_id, unit.page, unit.notice) == (301, 1, None)


# ---- conversations, reload, the URL --------------------------------------------------------------


def test_opening_a_conversation_switches_course_unit_and_view_to_where_it_was_asked() -> None:
    s = vs.select_page(start(), CATALOG, 9)
    opened = vs.open_conversation(s, CATALOG, 12, Place(900, 9003, page=5))
    assert (opened.course_id, opened.unit_id, opened.mode, opened.page, opened.conversation_id) == (
        900, 9003, "slides", 5, 12)
    video = vs.open_conversation(s, CATALOG, 13, Place(1, 301, second=42.0))
    assert (video.unit_id, video.mode, video.second, video.play) == (301, "video", 42.0, False)
    # then a chip of that conversation moves the viewer within its own unit of that course
    after = vs.apply_click(vs.select_page(opened, CATALOG, 1), CATALOG, click(kind="slide", unitId="9003", page=5))
    assert (after.course_id, after.unit_id, after.page) == (900, 9003, 5)


def test_a_conversation_whose_unit_or_course_is_gone() -> None:
    s = start()
    gone_unit = vs.open_conversation(s, CATALOG, 12, Place(900, 9002, page=5))
    assert (gone_unit.course_id, gone_unit.unit_id, gone_unit.conversation_id) == (900, 9001, 12)
    assert gone_unit.notice is not None and gone_unit.notice.level == "warning"
    gone_course = vs.open_conversation(s, CATALOG, 12, Place(77, 1, page=1))
    assert (gone_course.course_id, gone_course.conversation_id) == (1, None)
    assert gone_course.notice is not None and gone_course.notice.level == "error"


def test_normalize_follows_the_catalog_when_material_goes() -> None:
    s = vs.select_page(vs.select_course(start(), CATALOG, 900), CATALOG, 8)
    s = replace(s, unit_id=9003)
    smaller = Catalog((ALGO, CourseInfo(900, "My uploads", (UnitInfo(9001, "Deck one", pages=5),))))
    moved = vs.normalize(s, smaller)
    assert (moved.course_id, moved.unit_id, moved.page) == (900, 9001, 1)
    assert vs.normalize(s, Catalog((ALGO,))).course_id == 1
    shrunk = Catalog((ALGO, CourseInfo(900, "My uploads", (UnitInfo(9001, "x", 5), UnitInfo(9003, "y", pages=3)))))
    assert vs.normalize(s, shrunk).page == 3
    assert vs.normalize(vs.normalize(s, shrunk), shrunk) == vs.normalize(s, shrunk)


def test_to_params_and_reload_give_the_same_state_back() -> None:
    places = {12: Place(900, 9003, page=5)}
    for s in (vs.select_page(start(), CATALOG, 6),
              vs.select_second(vs.select_unit(start(), CATALOG, 301), CATALOG, 42),
              vs.select_page(vs.open_conversation(start(), CATALOG, 12, places[12]), CATALOG, 7),
              vs.select_language(start(), "de")):
        back = vs.reload(CATALOG, vs.to_params(s), places.get, None, ["en", "de"])
        assert (back.course_id, back.unit_id, back.mode, back.page, back.second, back.conversation_id,
                back.language) == (s.course_id, s.unit_id, s.mode, s.page, s.second, s.conversation_id, s.language)


def test_reload_without_a_position_opens_the_latest_conversation_where_it_was_asked() -> None:
    places = {12: Place(900, 9003, page=5), 11: Place(1, 101, page=2)}
    s = vs.reload(CATALOG, {"history": "k"}, places.get, 12)
    assert (s.course_id, s.unit_id, s.page, s.conversation_id) == (900, 9003, 5, 12)
    assert vs.reload(CATALOG, {}, places.get, None) == start()


def test_reload_ignores_what_is_not_there_or_not_of_this_history() -> None:
    places = {12: Place(900, 9003, page=5)}
    s = vs.reload(CATALOG, {"conversation": "99", "course": "1", "unit": "301", "view": "video", "second": "x"},
                  places.get, None)
    assert (s.unit_id, s.mode, s.second, s.conversation_id) == (301, "video", 0.0, None)
    junk = vs.reload(CATALOG, {"course": "77", "unit": "1", "page": "-3", "lang": "xx"}, places.get, None)
    assert junk == start()
    assert vs.reload(CATALOG, {"course": "1", "unit": "9003"}, places.get, None).unit_id == 101


# ---- hidden slides and units not released (instructor preview) ------------------------------------

HIDDEN = CourseInfo(5, "Graphs", (UnitInfo(11, "Graph search", pages=6, hidden=frozenset({3, 4})),
                                  UnitInfo(14, "All hidden", pages=2, has_video=True, hidden=frozenset({1, 2}))),
                    withheld=((13, "not released"),))
HIDDEN_CATALOG = Catalog((HIDDEN,))


def test_hidden_slides_are_never_opened_by_stepping_picking_or_a_url() -> None:
    s = vs.initial(HIDDEN_CATALOG)
    pages = [s.page]
    for _ in range(5):
        s = vs.step_page(s, HIDDEN_CATALOG, 1)
        pages.append(s.page)
    assert pages == [1, 2, 5, 6, 6, 6], "next skips the hidden pages 3 and 4 and stops at the last"
    assert vs.step_page(vs.step_page(s, HIDDEN_CATALOG, -1), HIDDEN_CATALOG, -1).page == 2
    assert vs.select_page(s, HIDDEN_CATALOG, 3).page == 2, "a hidden page picked gives the nearest visible one"
    assert vs.select_page(s, HIDDEN_CATALOG, 4).page == 5
    assert vs.reload(HIDDEN_CATALOG, {"course": "5", "unit": "11", "view": "slides", "page": "4"},
                     {}.get, None).page == 5
    only_video = vs.select_unit(s, HIDDEN_CATALOG, 14)
    assert only_video.mode == "video", "a deck whose every page is hidden offers its video only"
    assert vs.select_mode(only_video, HIDDEN_CATALOG, "slides").mode == "video"


def test_a_click_on_a_hidden_slide_keeps_the_viewer_and_says_why() -> None:
    s = vs.select_page(vs.initial(HIDDEN_CATALOG), HIDDEN_CATALOG, 6)
    clicked = vs.apply_click(s, HIDDEN_CATALOG, {"kind": "slide", "unitId": 11, "page": 3, "nonce": "a"})
    assert clicked.page == 6 and clicked.notice is not None and "hidden" in clicked.notice.text


def test_a_unit_not_released_says_so_when_the_preview_is_turned_off_or_a_conversation_was_asked_there() -> None:
    previewed = Catalog((replace(HIDDEN, units=HIDDEN.units + (UnitInfo(13, "Hashing", pages=2),), withheld=()),))
    s = vs.select_unit(vs.set_preview(vs.initial(previewed), True), previewed, 13)
    assert (s.unit_id, s.preview) == (13, True)
    assert vs.to_params(s)["preview"] == "1"
    again = vs.reload(previewed, vs.to_params(s), {}.get, None)
    assert (again.unit_id, again.preview) == (13, True), "a reload keeps the preview and its unit"
    off = vs.normalize(vs.set_preview(s, False), HIDDEN_CATALOG)
    assert (off.unit_id, off.preview) == (11, False)
    assert off.notice is not None and "Unit 13 is not released" in off.notice.text
    opened = vs.open_conversation(vs.initial(HIDDEN_CATALOG), HIDDEN_CATALOG, 4, Place(5, 13, page=1))
    assert opened.unit_id == 11 and opened.notice is not None and "not released" in opened.notice.text
    assert "preview" not in vs.to_params(off)



def test_a_click_carries_its_evidence_to_the_viewer_and_any_other_move_drops_it() -> None:
    s = vs.apply_click(start(), CATALOG, {"kind": "slide", "unitId": 101, "page": 6, "nonce": "a",
                                          "quote": "MERGE takes Θ(n) time"})
    assert (s.page, s.evidence) == (6, "MERGE takes Θ(n) time")
    for moved in (vs.step_page(s, CATALOG, 1), vs.select_page(s, CATALOG, 6), vs.select_unit(s, CATALOG, 201),
                  vs.select_mode(s, CATALOG, "video"), vs.select_second(s, CATALOG, 3)):
        assert moved.evidence is None
    video = vs.apply_click(s, CATALOG, {"kind": "video", "unitId": 101, "start": 75, "end": 92, "nonce": "b",
                                        "quote": "we split the array"})
    assert (video.second, video.until, video.evidence) == (75.0, 92.0, "we split the array")
    assert vs.apply_click(s, CATALOG, {"kind": "video", "unitId": 101, "start": 75, "nonce": "c"}).until is None
    for junk in (42, "", " ", "x" * 10_000, ["a"]):
        clicked = vs.apply_click(start(), CATALOG, {"kind": "slide", "unitId": 101, "page": 2, "quote": junk})
        assert clicked.page == 2 and clicked.evidence is None


def test_a_reload_keeps_what_a_slide_chip_lit_up() -> None:
    quote = "MERGE takes Θ(n) time\nwhere n = r - p + 1 & <b>"
    lit = vs.apply_click(vs.conversation_started(start(), 12), CATALOG,
                         {"kind": "slide", "unitId": 101, "page": 6, "nonce": "a", "quote": quote})
    back = vs.reload(CATALOG, vs.to_params(lit), {12: Place(1, 101, page=2)}.get, None)
    assert (back.page, back.conversation_id, back.evidence) == (6, 12, quote)
    # once the viewer moves on, the URL no longer says it; a quote that is no sensible evidence is dropped
    assert "lit" not in vs.to_params(vs.step_page(lit, CATALOG, 1))
    for junk in ("", "  ", "x" * 10_000):
        params = {**vs.to_params(lit), "lit": junk}
        assert vs.reload(CATALOG, params, {}.get, None).evidence is None


def test_opening_a_conversation_brings_back_the_language_it_was_asked_in() -> None:
    s = vs.select_language(start(), "fr")
    opened = vs.open_conversation(s, CATALOG, 12, Place(1, 301, page=2, language="de"))
    assert (opened.conversation_id, opened.unit_id, opened.language) == (12, 301, "de")
    assert vs.open_conversation(s, CATALOG, 13, Place(1, 201, page=2)).language == "fr", "not known: it stays"


def test_a_reload_keeps_the_urls_language_and_a_bare_one_the_conversations() -> None:
    places = {12: Place(1, 301, page=2, language="de")}
    assert vs.reload(CATALOG, {"history": "k"}, places.get, 12, ["en", "de"]).language == "de"
    s = vs.open_conversation(start(), CATALOG, 12, places[12])
    switched = vs.select_language(s, "en")  # picked after the conversation was asked
    back = vs.reload(CATALOG, vs.to_params(switched), places.get, 12, ["en", "de"])
    assert (back.conversation_id, back.language) == (12, "en")


def test_a_reload_keeps_the_urls_conversation_in_the_unit_a_chip_opened() -> None:
    """A chip of conversation 12 (asked in unit 301) opened unit 101: a reload shows the same."""
    places = {12: Place(1, 301, page=2)}
    s = vs.open_conversation(start(), CATALOG, 12, places[12])
    clicked = vs.apply_click(s, CATALOG, {"kind": "slide", "unitId": "101", "page": 6, "nonce": "n1"})
    assert (clicked.unit_id, clicked.conversation_id) == (101, 12)
    back = vs.reload(CATALOG, vs.to_params(clicked), places.get, None, ["en"])
    assert (back.unit_id, back.page, back.conversation_id) == (101, 6, 12)


def test_a_transcript_chip_of_a_unit_without_a_video_opens_its_transcript_at_the_cue() -> None:
    uploads = CourseInfo(900, "My uploads", (UnitInfo(9001, "Deck one", pages=5, has_transcript=True),))
    catalog = Catalog((uploads,))
    s = vs.initial(catalog)
    assert uploads.units[0].modes == ("slides", "video"), "the transcript is offered beside the slides"
    after = vs.apply_click(s, catalog, click(kind="video", unitId="9001", start=75, end=92, quote="The tree."))
    assert after.notice is None, after.notice  # never "the cited video no longer exists"
    assert (after.mode, after.second, after.until, after.play, after.evidence) == ("video", 75.0, 92.0, True,
                                                                                  "The tree.")
    # a unit with neither a video nor a transcript still says what is gone
    bare = Catalog((CourseInfo(900, "My uploads", (UnitInfo(9001, "Deck one", pages=5),)),))
    gone = vs.apply_click(vs.initial(bare), bare, click(kind="video", unitId="9001", start=75, end=92))
    assert gone.notice is not None and "video" in gone.notice.text


def test_an_upload_opens_its_unit_in_ask_and_the_unit_already_open_stays_where_it_is() -> None:
    asked = vs.select_page(vs.conversation_started(start(), 7), CATALOG, 5)  # reading Merge Sort, page 5
    opened = vs.open_unit(asked, CATALOG, 900, 9003)
    assert (opened.course_id, opened.unit_id, opened.page, opened.conversation_id) == (900, 9003, 1, None)
    assert opened.language == asked.language and opened.notice is None
    # the unit's own latest conversation opens with it, in the language it was asked in
    back = vs.open_unit(asked, CATALOG, 900, 9003, (12, Place(900, 9003, page=4, language="de")))
    assert (back.unit_id, back.conversation_id, back.language) == (9003, 12, "de")
    # the first unit of a course, too (a course change alone would close its conversation)
    first = vs.open_unit(asked, CATALOG, 900, 9001, (13, Place(900, 9001)))
    assert (first.course_id, first.unit_id, first.conversation_id) == (900, 9001, 13)
    # a re-upload into the unit already open: its page and conversation stay
    assert vs.open_unit(asked, CATALOG, 1, 101) is asked
    # Ask not opened yet in this session: from the first course
    fresh = vs.open_unit(None, CATALOG, 900, 9003)
    assert (fresh.course_id, fresh.unit_id, fresh.mode) == (900, 9003, "slides")
    # a unit the Ask page does not offer (not released): nothing changes
    assert vs.open_unit(asked, CATALOG, 900, 9999) is asked
