"""The Python side of every page, through Streamlit's AppTest (no browser)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from citation_core.contract import parse
from citation_core.lms.render import MAX_ANSWER_CHARS
from citation_core.lms.store import LmsStore
from studio.keys import VIEW, W_COURSE, W_LANGUAGE, W_MODE, W_PASTED, W_PREVIEW, W_QUESTION, W_SLIDE, W_UNIT
from studio.text import plural
from tests.conftest import ROOT


@pytest.fixture(autouse=True)
def isolated_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    db = tmp_path / "lms.sqlite3"
    monkeypatch.setenv("CITATION_STUDIO_DB", str(db))
    monkeypatch.chdir(ROOT)
    st.cache_resource.clear()
    yield db
    st.cache_resource.clear()


def page(name: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / name), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    return at


def captions(at: AppTest) -> str:
    return " ".join(m.value for m in at.markdown)


def test_ask_page_shows_the_viewer_caption_with_printed_number_and_index() -> None:
    at = page("ask.py")
    assert "Unnumbered slide (page 1 of 17)" in captions(at)
    for _ in range(5):
        at.button(key="next").click().run()
    assert "Slide 4 (page 6 of 17)" in captions(at)
    assert any("Offline model" in m.value for m in at.markdown)


def test_asking_stores_the_answer_in_stored_form(isolated_store: Path) -> None:
    at = page("ask.py")
    for _ in range(5):
        at.button(key="next").click().run()
    at.text_area[0].input("How does the merge procedure on this slide combine two sorted halves?")
    at.button[-1].click().run()  # the form's Ask button is rendered last in the form
    assert not at.exception, at.exception
    store = LmsStore(isolated_store)
    (conv,) = store.conversations()
    user, assistant = store.messages(conv.id)
    assert user.content.startswith("How does the merge procedure")
    stored = parse(assistant.content, "stored")
    assert stored and all(m.version in ("va1", "vt1") for m in stored if m.type == "L")
    assert any(m.page == "6" for m in stored)


def test_chip_preview_page_lists_every_parser() -> None:
    at = page("chip_preview.py")
    text = captions(at)
    for pattern in ("iris", "server", "client", "stored"):
        assert f"**{pattern}**" in text
    assert len(at.code) >= 40  # the gallery shows every contract vector


def test_language_qa_page_flags_languages() -> None:
    """The offline model answers in the material's language (en): de and fr are flagged, en is not."""
    at = page("language_qa.py")
    at.button[0].click().run()
    assert not at.exception, at.exception
    assert [m.value for m in at.markdown if m.value.startswith("### ")] == [
        "### English `en`", "### Deutsch `de`", "### Français `fr`"]
    assert any("offline model cannot translate" in i.value for i in at.info)
    verdicts = [list(t.value["verdict"]) for t in at.table]  # en, de, fr side by side
    assert len(verdicts) == 3 and all(verdicts)
    en, de, fr = (sum(v == "✗ mismatch" for v in column) for column in verdicts)
    assert en == 0 and "✓ ok" in verdicts[0]
    assert de > 0 and fr > 0
    # a text too short to judge is so in every column, and each headline says how many there are
    shorts = [[i for i, v in enumerate(column) if v == "? too short"] for column in verdicts]
    assert shorts[0] and shorts[0] == shorts[1] == shorts[2]
    short = f" · {len(shorts[0])} too short to judge"
    # the headline of each column counts the same mismatches as its table
    assert [s.value for s in at.success] == [f"0 mismatches in {plural(len(verdicts[0]), 'field')}{short}"]
    assert [e.value for e in at.error] == [
        f"{plural(de, 'mismatch')} in {plural(len(verdicts[1]), 'field')}{short}",
        f"{plural(fr, 'mismatch')} in {plural(len(verdicts[2]), 'field')}{short}"]
    # every field that is judged is a mismatch in the columns of the languages it is not in
    for i, v in enumerate(verdicts[0]):
        if v == "✓ ok":
            assert verdicts[1][i] == verdicts[2][i] == "✗ mismatch"


def test_language_qa_flags_a_german_keyword_and_summary_in_the_english_column() -> None:
    """The German unit's keywords and summaries are German: in the English column each one is a mismatch."""
    at = page("language_qa.py")
    at.selectbox[1].select(301).run()
    at.text_input[0].input("Wie wird ein Schlüssel in einen binären Suchbaum eingefügt?")
    at.multiselect[0].set_value(["en", "de"])
    at.button[0].click().run()
    assert not at.exception, at.exception
    en, de = (t.value for t in at.table)
    german = [i for i, detected in enumerate(en["detected"]) if detected.startswith("de ")]
    assert german and all(en["verdict"][i] == "✗ mismatch" for i in german)
    assert all(de["verdict"][i] == "✓ ok" for i in german)


def test_library_page_lists_pages_with_their_number_source() -> None:
    at = page("library.py")
    text = " ".join(c.value for c in at.caption)
    assert "page 3 · printed **1** (page_labels)" in text
    assert "page 3 · printed **1** (text)" in text  # the deck that prints "N / M"


def test_a_stored_answer_over_the_render_limit_shows_one_line_instead_of_crashing(isolated_store: Path) -> None:
    """An answer stored before the limit existed (or by another client) is longer than the chips render."""
    key = "Lg_-" * 8
    long = "Merging is linear.[cite:L:101:6:::Merge:One element per step.:va1] " + "x" * MAX_ANSWER_CHARS
    LmsStore(isolated_store).save_turn(key, None, "A long one?", long, course_id=1, unit_id=101, title="A long one?",
                                       question_meta={"unit": 101, "page": 6, "second": None})
    at = AppTest.from_file(str(ROOT / "pages" / "ask.py"), default_timeout=60)
    at.query_params["history"] = key
    at.run()
    assert not at.exception, at.exception
    assert [w.value for w in at.warning if "cannot be shown with its chips" in w.value]
    assert "Slide 4 (page 6 of 17)" in captions(at)  # the conversation opened where it was asked


def test_a_pasted_answer_over_the_limit_is_refused_before_the_pipeline_runs(isolated_store: Path) -> None:
    at = page("ask.py")
    at.text_area(key=W_QUESTION).input("Too long?")
    at.text_area(key=W_PASTED).input("x" * (MAX_ANSWER_CHARS + 1))
    next(b for b in at.button if b.label == "Ask").click().run()
    assert not at.exception, at.exception
    assert [e.value for e in at.error] == [f"The pasted answer has {MAX_ANSWER_CHARS + 1:,} characters, more than "
                                           f"the limit of {MAX_ANSWER_CHARS:,}: not cited."]
    assert LmsStore(isolated_store).conversations() == []


def test_the_view_survives_many_changes_and_the_models_are_named_once() -> None:
    at = page("ask.py")
    for unit in (201, 301, 101, 201, 301):
        at.selectbox(key=W_UNIT).select(unit).run()
        assert at.session_state[VIEW].unit_id == unit
    assert at.selectbox(key=W_UNIT).value == 301
    badge = next(c.value for c in at.caption if c.value.startswith("answer writer"))
    assert badge.count("offline-extractive-1") == 1


def test_a_follow_up_gets_the_conversation_so_far() -> None:
    from citation_core.lms.store import Message
    from studio.services import turns_so_far

    msgs = [Message(1, 1, "user", "How does merging work?", {}, 0.0),
            Message(2, 1, "assistant", "It compares the heads.[cite:L:101:6:::Merge:x]", {}, 0.0),
            Message(3, 1, "user", "And the second case?", {}, 0.0)]
    assert turns_so_far(msgs) == [("How does merging work?", "It compares the heads.[cite:L:101:6:::Merge:x]")]


def test_ask_offers_released_units_and_visible_slides_unless_the_instructor_preview_is_on(
        isolated_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.material_fixtures import make_pdf
    from tests.test_material_visibility import NEVER, make_course

    library = tmp_path / "library"
    make_course(library)  # course 5: unit 11 with page 3 hidden, 12 released in 2999, 13 not released
    make_pdf(library / "decks" / "hashing.pdf", [
        ["Hashing with chaining", f"Chaining with {NEVER} keeps colliding keys in one list per bucket",
         "A lookup scans only the list of its own bucket"], ["More", "Load factor", "2"]])
    monkeypatch.setenv("CITATION_STUDIO_LIBRARY", str(library))
    at = page("ask.py")
    at.selectbox(key=W_COURSE).select(5).run()
    assert at.selectbox(key=W_UNIT).options == ["Lecture 5 › Graph search"]
    assert [o.split(" · ")[0] for o in at.selectbox(key=W_SLIDE).options] == [
        "Unnumbered slide (page 1 of 4)", "Slide 2 (page 2 of 4)", "Slide 4 (page 4 of 4)"]
    at.button(key="next").click().run()
    at.button(key="next").click().run()
    assert at.session_state[VIEW].page == 4, "next steps over the hidden page 3"

    # a student asking about what only the unreleased unit says gets no citation of it
    at.text_area(key=W_QUESTION).input(f"What is chaining with {NEVER}?")
    next(b for b in at.button if b.label == "Ask").click().run()
    assert not at.exception, at.exception
    (conv,) = LmsStore(isolated_store).conversations()
    answer = LmsStore(isolated_store).messages(conv.id)[-1].content
    assert all(c.entity_id == "11" for c in parse(answer, "stored")), answer

    at.toggle(key=W_PREVIEW).set_value(True).run()
    options = at.selectbox(key=W_UNIT).options
    assert options[0] == "Lecture 5 › Graph search" and len(options) == 3
    assert "not released" in options[2] and "before 2999-01-15" in options[1]
    at.selectbox(key=W_UNIT).select(13).run()
    assert at.session_state[VIEW].unit_id == 13
    at.text_area(key=W_QUESTION).input(f"What is chaining with {NEVER}?")
    next(b for b in at.button if b.label == "Ask").click().run()
    # another unit opens its own conversation (none yet): the question starts one
    newest = max(LmsStore(isolated_store).conversations(), key=lambda c: c.id)
    assert newest.id != conv.id
    answer = LmsStore(isolated_store).messages(newest.id)[-1].content
    assert any(c.entity_id == "13" for c in parse(answer, "stored")), answer

    at.toggle(key=W_PREVIEW).set_value(False).run()
    state = at.session_state[VIEW]
    assert (state.unit_id, state.preview) == (11, False)
    assert any("Unit 13 is not released" in w.value for w in at.warning)


def test_language_qa_audits_a_pasted_answer_and_flags_a_claim_cited_to_an_unrelated_slide() -> None:
    at = page("language_qa.py")
    at.text_area[0].input("Merge sort runs in Theta of n log n time on every input.[cite:L:201:3:::Hashing:Direct.] "
                          "Taking from L when keys are equal makes merge sort stable.")
    at.multiselect[0].set_value(["en"])
    at.button[0].click().run()
    assert not at.exception, at.exception
    tables = [h.proto.body for h in at.get("html") if "audit-table" in h.proto.body]
    assert len(tables) == 1
    flagged = tables[0].split("<tr class='is-flagged'")[1:]
    assert len(flagged) == 1 and "Theta of n log n" in flagged[0] and "Hashing" in flagged[0]
    assert any("flagged as unsupported" in w.value for w in at.warning)


def test_a_unit_change_opens_that_units_own_conversation_and_history_its_language(isolated_store: Path) -> None:
    key = "Uc_-" * 8
    store = LmsStore(isolated_store)

    def conversation(unit: int, page: int, language: str, question: str) -> int:
        meta = {"course": 1, "unit": unit, "page": page, "second": None, "language": language, "variant": "default"}
        return store.save_turn(key, None, question, "An answer without citations.", course_id=1, unit_id=unit,
                               title=question, question_meta=meta).conversation_id

    merge = conversation(101, 6, "en", "How does merging work?")
    trees = conversation(301, 4, "de", "Wie fügt man einen Schlüssel ein?")
    at = AppTest.from_file(str(ROOT / "pages" / "ask.py"), default_timeout=60)
    at.query_params["history"] = key
    at.run()
    assert not at.exception, at.exception

    def opened() -> tuple[int, int | None, str]:
        state = at.session_state[VIEW]
        return state.unit_id, state.conversation_id, state.language

    assert opened() == (301, trees, "de")  # the latest conversation, where and in the language it was asked
    at.selectbox(key=W_UNIT).select(201).run()
    assert opened() == (201, None, "de"), "unit 201 has no conversation: none is open, the language stays"
    assert not [m for m in at.chat_message]
    at.selectbox(key=W_UNIT).select(101).run()
    assert opened() == (101, merge, "en")
    at.selectbox(key=W_UNIT).select(301).run()
    assert opened() == (301, trees, "de")

    at.selectbox(key=W_LANGUAGE).select("fr").run()
    at.button(key=f"conv-{merge}").click().run()  # History
    assert not at.exception, at.exception
    assert opened() == (101, merge, "en")
    assert at.selectbox(key=W_LANGUAGE).value == "en"


def test_ask_warns_when_the_answer_language_differs_from_the_materials() -> None:
    at = page("ask.py")
    assert not [w for w in at.warning if "differs" in w.value]  # English material, English answers
    at.selectbox(key=W_LANGUAGE).select("de").run()
    (warning,) = [w.value for w in at.warning if "differs" in w.value]
    assert warning.startswith("The answer language, German, differs from this unit's material, which is in "
                              "English (en).")
    at.selectbox(key=W_UNIT).select(301).run()  # Binäre Suchbäume: German material
    assert not [w for w in at.warning if "differs" in w.value]
    at.selectbox(key=W_LANGUAGE).select("en").run()
    assert [w.value for w in at.warning if "differs" in w.value][0].startswith(
        "The answer language, English, differs from this unit's material, which is in German (de).")


def test_the_slide_picker_cuts_long_titles_at_a_word() -> None:
    at = page("ask.py")
    options = at.selectbox(key=W_SLIDE).options
    assert "Slide 7 (page 10 of 17) · Solving the Recurrence with a Recursion…" in options
    assert "Slide 5 (page 7 of 17) · Example: Sorting 38, 27, 43, 3, 9, 82…" in options


def test_a_unit_with_a_transcript_but_no_video_shows_its_transcript(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from citation_core.material.uploads import LIBRARY_COURSE_ID, Upload, add_upload
    from tests.material_fixtures import SMALL_VTT, make_pdf

    library = tmp_path / "library"
    deck = make_pdf(tmp_path / "merge.pdf", [["Merge sort", "Split the list, sort both halves, merge them"]])
    added = add_upload(library, Upload("merge.pdf", deck.read_bytes()),
                       transcript=Upload("merge.vtt", SMALL_VTT.encode("utf-8")))
    monkeypatch.setenv("CITATION_STUDIO_LIBRARY", str(library))
    at = AppTest.from_file(str(ROOT / "pages" / "ask.py"), default_timeout=60)
    for name, value in {"course": str(LIBRARY_COURSE_ID), "unit": str(added.unit_id), "view": "video",
                        "second": "4"}.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, at.exception
    assert "Transcript · opened at 0:04 · this unit has no video" in captions(at)
    assert at.segmented_control(key=W_MODE).options == ["Slides", "Transcript"]  # named for what it shows
    assert not [e for e in at.error if "video" in e.value]
