"""The Library page through Streamlit's AppTest: withheld material greyed with its reason, unit metadata edits."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit as st
import yaml
from streamlit.testing.v1 import AppTest

from citation_core.material.course import load_course
from citation_core.material.uploads import Upload, add_upload
from studio.keys import W_LIBRARY_COURSE
from tests.conftest import ROOT, SAMPLE_COURSE
from tests.material_fixtures import GERMAN_VTT

LIBRARY_COURSE = "My uploads (id 900)"


@pytest.fixture()
def library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A library of two uploads: 9001 with pages 2 and 3 hidden, 9002 released only in 2999."""
    lib = tmp_path / "library"
    add_upload(lib, Upload("hash_tables.pdf", (SAMPLE_COURSE / "decks" / "hash_tables.pdf").read_bytes()))
    add_upload(lib, Upload("later.pdf", (SAMPLE_COURSE / "decks" / "merge_sort.pdf").read_bytes()))
    data = yaml.safe_load((lib / "course.yml").read_text(encoding="utf-8"))
    data["lectures"][0]["units"][0]["hidden_pages"] = [2, 3]
    data["lectures"][0]["units"][1]["release_date"] = "2999-01-15"
    (lib / "course.yml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    monkeypatch.setenv("CITATION_STUDIO_DB", str(tmp_path / "lms.sqlite3"))
    monkeypatch.setenv("CITATION_STUDIO_LIBRARY", str(lib))
    monkeypatch.chdir(ROOT)
    st.cache_resource.clear()
    st.cache_data.clear()
    yield lib
    st.cache_resource.clear()
    st.cache_data.clear()


def open_library(in_app: bool = False, course: str | None = LIBRARY_COURSE) -> AppTest:
    """The Library page with the library course chosen: on its own, or ``in_app`` as the app opens it (to visit
    the Ask page too)."""
    at = AppTest.from_file(str(ROOT / ("app.py" if in_app else "pages/library.py")), default_timeout=120)
    at.run()
    if in_app:
        at.switch_page("pages/library.py").run()
    assert not at.exception, at.exception
    if course is not None:
        at.selectbox(key=W_LIBRARY_COURSE).select(course).run()
        assert not at.exception, at.exception
    return at


def ask_page(at: AppTest) -> tuple[int, int, list[str]]:
    """Course, unit and views the Ask page opens (then back to the Library)."""
    from studio.keys import W_COURSE, W_MODE, W_UNIT

    at.switch_page("pages/ask.py").run()
    assert not at.exception, at.exception
    views = [o for w in at.get("segmented_control") if w.key == W_MODE for o in w.options]
    opened = (at.selectbox(key=W_COURSE).value, at.selectbox(key=W_UNIT).value, views)
    at.switch_page("pages/library.py").run()
    assert not at.exception, at.exception
    assert at.selectbox(key=W_LIBRARY_COURSE).value == LIBRARY_COURSE  # the Library keeps its course meanwhile
    return opened


def test_withheld_units_and_hidden_pages_show_with_their_reason(library: Path) -> None:
    at = open_library()
    assert [t.label for t in at.tabs] == ["hash tables", "later (not released)", "FAQs"]
    captions = [c.value for c in at.caption]
    assert "2 units (1 not released, 2 hidden pages) · 0 FAQs · language en" in captions
    hidden = [c for c in captions if "hidden from students" in c]
    assert [c.split(" · ")[0] for c in hidden] == ["page 2", "page 3"]
    assert "hidden\\_pages in course.yml" in hidden[0]
    assert [i.value for i in at.info] == [
        "Students do not see this unit: not released before 2999\\-01\\-15 (release\\_date: 2999-01-15 in course.yml)."]
    assert "Deck 9001\\_hash\\_tables\\.pdf · 16 pages · hidden from students: 2, 3" in [m.value for m in at.markdown]


def test_editing_a_unit_keeps_its_versions(library: Path) -> None:
    at = open_library()
    at.text_input(key="meta_name_9001").set_value("Hashing basics")
    at.text_input(key="meta_lecture_9001").set_value("Lecture 2: Hashing")
    at.text_input(key="meta_lang_9001").set_value("de")
    at.button(key="meta_save_9001").click().run()
    assert not at.exception, at.exception
    assert [s.value for s in at.success] == ["Saved unit 9001; its versions are unchanged."]
    unit = load_course(library).unit(9001)
    assert (unit.name, unit.lecture_name, unit.language) == ("Hashing basics", "Lecture 2: Hashing", "de")
    assert (unit.versions.attachment, unit.versions.video) == (1, 1)
    # the page shows the reloaded course: the unit moved to a lecture of its own, after "Uploaded decks"
    assert [t.label for t in at.tabs] == ["later (not released)", "Hashing basics", "FAQs"]


def test_a_bad_edit_is_one_error_and_changes_nothing(library: Path) -> None:
    before = (library / "course.yml").read_bytes()
    at = open_library()
    at.text_input(key="meta_lang_9002").set_value("not a code")
    at.button(key="meta_save_9002").click().run()
    assert not at.exception, at.exception
    assert [e.value for e in at.error] == [
        "unit 9002\\: language\\: expected a language code like 'en' or 'pt\\-BR', got 'not a code'"]
    assert (library / "course.yml").read_bytes() == before


def test_only_library_units_are_editable(library: Path) -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "library.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key=W_LIBRARY_COURSE).value != LIBRARY_COURSE  # the sample course comes first
    assert not [t for t in at.text_input if t.key and t.key.startswith("meta_")]


GERMAN = SAMPLE_COURSE / "decks" / "binaere_suchbaeume.pdf"


def test_the_upload_form_offers_the_pdf_title_and_language_and_names_the_course(library: Path) -> None:
    at = open_library(in_app=True, course=None)
    assert [t.label for t in at.text_input if t.key and t.key.startswith("up_")] == ["Unit name", "Lecture"]
    at.file_uploader(key="up_deck_0").upload("folien_3.pdf", GERMAN.read_bytes(), "application/pdf").run()
    assert not at.exception, at.exception
    name = next(t for t in at.text_input if t.key and t.key.startswith("up_name_0_"))
    lecture = next(t for t in at.text_input if t.key and t.key.startswith("up_lecture_0_"))
    language = next(s for s in at.selectbox if s.key and s.key.startswith("up_lang_0_"))
    assert (name.value, lecture.value, language.value) == ("Binäre Suchbäume", "Uploaded decks", "de")
    assert "Read from the deck: title “Binäre Suchbäume”, language German (de)." in [c.value for c in at.caption]
    lecture.set_value("Vorlesung 3: Bäume")
    at.button(key="up_go_0").click().run()
    assert not at.exception, at.exception
    assert [s.value.replace("\\", "") for s in at.success] == [
        "Added “Binäre Suchbäume” to the course “My uploads”, lecture “Vorlesung 3: Bäume” (unit 9003, 15 pages, "
        "language German (de), attachment version 1)."]
    unit = load_course(library).unit(9003)
    assert (unit.name, unit.lecture_name, unit.language) == ("Binäre Suchbäume", "Vorlesung 3: Bäume", "de")
    # the Library shows the course and the tab of the unit it went into
    assert at.selectbox(key=W_LIBRARY_COURSE).value == LIBRARY_COURSE
    assert at.session_state["library_tabs_900"] == "Binäre Suchbäume"
    # the Ask page opens it too (it had opened the first course's first unit), from the button under the message
    from studio.keys import W_COURSE, W_UNIT

    at.button(key="ask_about").click().run()
    assert not at.exception, at.exception
    assert (at.selectbox(key=W_COURSE).value, at.selectbox(key=W_UNIT).value) == (900, 9003)


def test_the_language_offered_can_be_changed_before_the_deck_is_added(library: Path) -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "library.py"), default_timeout=120)
    at.run()
    at.file_uploader(key="up_deck_0").upload("trees.pdf", GERMAN.read_bytes(), "application/pdf").run()
    next(s for s in at.selectbox if s.key and s.key.startswith("up_lang_0_")).select("en").run()
    next(t for t in at.text_input if t.key and t.key.startswith("up_name_0_")).set_value("Trees").run()
    at.button(key="up_go_0").click().run()
    assert not at.exception, at.exception
    unit = load_course(library).unit(9003)
    assert (unit.name, unit.language) == ("Trees", "en")


def test_saving_an_edit_keeps_the_units_tab_open(library: Path) -> None:
    at = open_library()
    at.session_state["library_tabs_900"] = "later (not released)"  # the second tab is open
    at.run()
    at.text_input(key="meta_name_9002").set_value("Merge sort, later")
    at.button(key="meta_save_9002").click().run()
    assert not at.exception, at.exception
    assert [t.label for t in at.tabs] == ["hash tables", "Merge sort, later (not released)", "FAQs"]
    assert at.session_state["library_tabs_900"] == "Merge sort, later (not released)"


def test_long_titles_are_cut_at_a_word_with_the_whole_title_in_a_tooltip(library: Path) -> None:
    from tests.material_fixtures import make_pdf

    title = "Separate chaining keeps every colliding key in one bucket list"
    deck = make_pdf(library.parent / "long.pdf", [[title, "Each bucket holds a linked list of the keys hashed there"],
                                                  ["Short title", "A second page with a short title line"]])
    add_upload(library, Upload("long.pdf", deck.read_bytes()))
    at = open_library()
    captions = [c for c in at.caption if c.value.startswith("page ") and "Separate chaining keeps" in c.value]
    assert len(captions) == 1, [c.value for c in captions]
    assert captions[0].value.endswith("· Separate chaining keeps every colliding…")
    assert captions[0].help == title
    short = next(c for c in at.caption if c.value.endswith("· Short title"))
    assert not short.help


# --- transcripts on their own ------------------------------------------------------------------------------

TALK = (SAMPLE_COURSE / "transcripts" / "merge_sort.vtt").read_bytes()


def alerts(at: AppTest) -> list[str]:
    """The page's success and warning messages as shown (Markdown escapes removed)."""
    return [a.value.replace("\\", "") for a in [*at.success, *at.warning]]


def test_choosing_only_a_transcript_says_that_a_new_unit_needs_its_deck_and_where_a_transcript_goes(
        library: Path) -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "library.py"), default_timeout=120)
    at.run()
    at.file_uploader(key="up_tr_0").upload("lecture3.vtt", TALK, "text/vtt").run()
    at.button(key="up_go_0").click().run()
    assert not at.exception, at.exception
    assert alerts(at) == ["Choose a PDF first: a new unit needs its deck. The transcript stays chosen. To add a "
                          "transcript to a unit already in the library, use “Add a transcript” in that unit's tab."]


def test_a_transcript_uploaded_with_the_same_deck_is_said_as_added(library: Path) -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "library.py"), default_timeout=120)
    at.run()
    at.file_uploader(key="up_deck_0").upload("hash_tables.pdf", (SAMPLE_COURSE / "decks" / "hash_tables.pdf")
                                             .read_bytes(), "application/pdf").run()
    at.file_uploader(key="up_tr_0").upload("talk.vtt", TALK, "text/vtt").run()
    at.button(key="up_go_0").click().run()
    assert not at.exception, at.exception
    (message,) = alerts(at)
    assert "is unchanged" not in message
    assert message.endswith("is the same file as the stored one, so its version stays (unit 9001, 16 pages, "
                            "language English (en), attachment version 1). Transcript talk.vtt added (English, "
                            "69 cues).")


def test_a_units_transcript_is_added_replaced_and_removed_in_its_tab_and_ask_opens_the_unit(library: Path) -> None:
    at = open_library(in_app=True)
    deck = (library / "decks" / "9001_hash_tables.pdf").read_bytes()
    assert at.button(key="tr_go_9001").disabled  # nothing chosen yet
    assert not [b for b in at.button if b.key == "tr_remove_9001"]  # nothing to remove
    at.file_uploader(key="tr_file_9001_0").upload("lecture3.vtt", TALK, "text/vtt").run()
    at.button(key="tr_go_9001").click().run()
    assert not at.exception, at.exception
    assert alerts(at) == ["Transcript lecture3.vtt added to unit 9001 “hash tables” (English, 69 cues)."]
    assert at.session_state["library_tabs_900"] == "hash tables"  # the unit's tab stays open
    assert ask_page(at) == (900, 9001, ["Slides", "Transcript"])  # Ask opens the unit, with its transcript

    german = GERMAN_VTT.encode("utf-8")
    at.file_uploader(key="tr_file_9001_1").upload("vorlesung.vtt", german, "text/vtt").run()
    at.button(key="tr_go_9001").click().run()
    assert not at.exception, at.exception
    assert alerts(at) == [
        "Transcript vorlesung.vtt replaced the transcript of unit 9001 “hash tables” (German, 4 cues); the deck "
        "stays. Answers stored for the old transcript now show as stale.\n\n⚠ vorlesung.vtt: the transcript is in "
        "German, the deck of unit 9001 “hash tables” in English: answers quote each in its own language"]
    assert (library / "transcripts" / "9001_hash_tables.vtt").read_bytes() == german

    at.button(key="tr_remove_9001").click().run()
    at.button(key="tr_remove_yes_9001").click().run()  # asked first, then removed
    assert not at.exception, at.exception
    assert alerts(at) == ["Transcript 9001_hash_tables.vtt removed from unit 9001 “hash tables”; the deck stays. "
                          "Answers stored earlier can no longer open the transcript they cite."]
    unit = load_course(library).unit(9001)
    assert unit.transcript is None and unit.deck is not None and unit.deck.read_bytes() == deck
    assert not [b for b in at.button if b.key == "tr_remove_9001"]
    assert ask_page(at) == (900, 9001, ["Slides"])


def test_removing_a_transcript_asks_first_and_a_misclick_keeps_it(library: Path) -> None:
    at = open_library()
    at.file_uploader(key="tr_file_9001_0").upload("lecture3.vtt", TALK, "text/vtt").run()
    at.button(key="tr_go_9001").click().run()
    stored = library / "transcripts" / "9001_hash_tables.vtt"
    assert stored.read_bytes() == TALK
    versions = load_course(library).unit(9001).versions

    at.button(key="tr_remove_9001").click().run()  # a misclick: nothing is removed yet, the page asks
    assert not at.exception, at.exception
    assert stored.read_bytes() == TALK and load_course(library).unit(9001).versions == versions
    assert alerts(at) == ["Remove the transcript 9001_hash_tables.vtt from unit 9001 “hash tables”? The deck stays; "
                          "answers stored earlier can no longer open the transcript they cite."]
    assert at.button(key="tr_remove_yes_9001").label == "Yes, remove it"
    at.button(key="tr_remove_no_9001").click().run()  # "Keep it"
    assert not at.exception, at.exception
    assert alerts(at) == [] and not [b for b in at.button if b.key == "tr_remove_yes_9001"]
    assert stored.read_bytes() == TALK and load_course(library).unit(9001).versions == versions

    at.button(key="tr_remove_9001").click().run()  # asked again, and confirmed
    at.button(key="tr_remove_yes_9001").click().run()
    assert not at.exception, at.exception
    assert not stored.exists() and load_course(library).unit(9001).transcript is None
    assert alerts(at) == ["Transcript 9001_hash_tables.vtt removed from unit 9001 “hash tables”; the deck stays. "
                          "Answers stored earlier can no longer open the transcript they cite."]
    at.run()  # the question does not come back
    assert not [b for b in at.button if b.key in ("tr_remove_9001", "tr_remove_yes_9001")]


def test_a_bad_transcript_is_one_error_in_the_units_tab_and_changes_nothing(library: Path) -> None:
    before = (library / "course.yml").read_bytes()
    at = open_library()
    at.file_uploader(key="tr_file_9001_0").upload("talk.vtt", b"WEBVTT\n\n", "text/vtt").run()
    at.button(key="tr_go_9001").click().run()
    assert not at.exception, at.exception
    assert [e.value.replace("\\", "") for e in at.error] == ["talk.vtt: empty transcript (no cues)"]
    assert (library / "course.yml").read_bytes() == before


def test_a_chosen_deck_that_is_not_a_pdf_is_said_at_once(library: Path) -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "library.py"), default_timeout=120)
    at.run()
    at.file_uploader(key="up_deck_0").upload("lecture3.srt", b"1\n00:00:01,000 --> 00:00:02,000\nHello\n",
                                             "application/x-subrip").run()
    assert not at.exception, at.exception
    # said before "Add to library", in one line; nothing is offered as read from the deck
    assert [e.value.replace("\\", "") for e in at.error] == ["lecture3.srt: a deck must be .pdf, got .srt"]
    assert not [c for c in at.caption if "Read from the deck" in c.value or "no title in the PDF" in c.value]
    assert [c.value for c in at.caption if "Transcript" in c.value] == [
        "A transcript goes under “Transcript” below, or into a unit already in the library with “Add a "
        "transcript” in its tab."]
    assert all(t.disabled for t in at.text_input if t.key and t.key.startswith("up_"))
    # "Add to library" says it once more, with what to do, and only once
    at.button(key="up_go_0").click().run()
    assert not at.exception, at.exception
    assert [e.value.replace("\\", "") for e in at.error] == ["lecture3.srt: a deck must be .pdf, got .srt"]
    assert not (library / "decks" / "9003_lecture3.pdf").exists()


def test_the_library_keeps_its_course_after_a_visit_to_another_page(library: Path) -> None:
    at = open_library(in_app=True)
    at.switch_page("pages/ask.py").run()
    at.switch_page("pages/chip_preview.py").run()
    at.switch_page("pages/library.py").run()
    assert not at.exception, at.exception
    assert at.selectbox(key=W_LIBRARY_COURSE).value == LIBRARY_COURSE
