"""The mock LMS: SQLite store, version stamping, server-side resolution, the "Sources:" list."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from citation_core.contract import parse, strip_markers
from citation_core.lms.resolve import resolve_citations, unit_table
from citation_core.lms.sources_list import source_lines, with_sources_list
from citation_core.lms.store import LmsStore
from citation_core.lms.versions import stamp_versions, version_standing
from citation_core.material.library import CourseMaterial, load_material
from citation_core.material.models import MaterialVersions


@pytest.fixture(scope="module")
def material(sample_course: Path) -> CourseMaterial:
    return load_material(sample_course)


ANSWER = (
    "Merging is linear.[cite:L:101:6:::MERGE:Merges two halves.] "
    "The recursion tree has log n levels.[cite:L:101::194:201:Recursion tree:The lecturer draws it.]"
    "[cite:L:101:6:::MERGE:Merges two halves.] "
    "Chaining uses lists.[cite:L:201:10:::Chaining:Lists per slot.] "
    "Bring one sheet.[cite:F:1::::Exam:One handwritten sheet.] A bad one [cite:L:abc:1:::x:y]."
)


def test_store_survives_reopening_and_uses_wal(tmp_path: Path) -> None:
    db = tmp_path / "sub" / "lms.sqlite3"
    store = LmsStore(db)
    with sqlite3.connect(store.path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conv = store.create_conversation("session-a", 1, 101, "Merge question")
    store.add_message(conv, "user", "How does merge work?", {"page": 6})
    store.add_message(conv, "assistant", ANSWER)
    reopened = LmsStore(db)  # as after an app restart
    (c,) = reopened.conversations("session-a")
    assert (c.title, c.unit_id) == ("Merge question", 101)
    msgs = reopened.messages(c.id)
    assert [m.role for m in msgs] == ["user", "assistant"] and msgs[0].meta == {"page": 6}
    assert msgs[1].content == ANSWER
    assert reopened.conversations("session-b") == []


def test_store_takes_writes_from_several_threads(tmp_path: Path) -> None:
    store = LmsStore(tmp_path / "lms.sqlite3")
    conv = store.create_conversation("s", 1, 101, "t")
    start = threading.Barrier(4, timeout=10)  # all four write at the same time, not one after the other
    failures: list[BaseException] = []

    def write(n: int) -> None:
        try:
            start.wait()
            for i in range(20):
                store.add_message(conv, "user", f"{n}-{i}")
        except BaseException as exc:  # noqa: BLE001  (reported below, with the other threads' results)
            failures.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    contents = sorted(m.content for m in store.messages(conv))
    assert contents == sorted(f"{n}-{i}" for n in range(4) for i in range(20))


def test_stamp_versions_from_the_cited_units_current_material() -> None:
    versions = {"101": MaterialVersions(attachment=3, video=2), "201": MaterialVersions(attachment=1, video=1)}
    stamped = stamp_versions(ANSWER, versions.get)
    found = parse(stamped, "stored")
    assert [m.version for m in found] == ["va3", "vt2", "va3", "va1", None, None]
    assert strip_markers(stamped) == strip_markers(ANSWER)
    assert stamp_versions(stamped, versions.get) == stamped  # idempotent


def test_a_stored_version_is_older_than_the_units_current_one_or_newer() -> None:
    now = MaterialVersions(attachment=2, video=5)
    assert [version_standing(v, now) for v in ("va1", "va2", "va3")] == ["older", "current", "newer"]
    assert [version_standing(v, now) for v in ("vt4", "vt5", "vt6")] == ["older", "current", "newer"]
    assert version_standing("va" + "9" * 30, now) == "newer"
    for unreadable in (None, "", "vx3", "va", "VA3"):
        assert version_standing(unreadable, now) == "current", unreadable
    assert version_standing("va3", None) == "current", "no unit to compare with"


def test_server_side_resolution_of_lecture_citations(material: CourseMaterial) -> None:
    infos = resolve_citations(ANSWER, material)
    assert [i.to_json() for i in infos] == [
        {"entityId": 101, "lectureTitle": "Lecture 1: Divide and Conquer",
         "lectureUnitTitle": "Merge Sort and the Master Theorem", "lectureId": 10, "courseId": 1},
        {"entityId": 201, "lectureTitle": "Lecture 2: Hashing", "lectureUnitTitle": "Hash Tables",
         "lectureId": 20, "courseId": 1},
    ]
    table = unit_table(material)
    assert table["101"]["hasVideo"] and not table["201"]["hasVideo"]


def test_sources_list_dedupes_sorts_and_uses_printed_numbers(material: CourseMaterial) -> None:
    lines = source_lines(ANSWER, material)
    title6 = material.unit(101).deck.page(6).title  # type: ignore[union-attr]
    title10 = material.unit(201).deck.page(10).title  # type: ignore[union-attr]
    assert lines == [
        f"📄 Hash Tables (slide 7, section: {title10})",
        f"📄 Merge Sort and the Master Theorem (slide 4, section: {title6})",
        "🎬 Merge Sort and the Master Theorem (video 3:14–3:21)",
        "❓ Course FAQ (question: When and how is the final exam held?)",
    ]
    rendered = with_sources_list(ANSWER, material)
    assert rendered.startswith(strip_markers(ANSWER).strip() + "\n\nSources:\n📄 Hash Tables")
    assert with_sources_list("No markers here.", material) == "No markers here."


def test_sources_list_shows_no_video_span_for_a_unit_without_video_or_transcript(material: CourseMaterial) -> None:
    hash_tables = material.unit(201)
    assert hash_tables.unit.video is None and hash_tables.transcript is None
    # a time span on a unit that has no video is the unit only; its slides are listed as slides
    answer = ("Chaining uses lists.[cite:L:201::12:40:Chaining:Lists per slot.] "
              "Probing too.[cite:L:201:10:::Probing:Open addressing.]")
    title10 = hash_tables.deck.page(10).title  # type: ignore[union-attr]
    assert source_lines(answer, material) == ["📄 Hash Tables", f"📄 Hash Tables (slide 7, section: {title10})"]
    assert "video" not in with_sources_list(answer, material)
    # a unit with a video keeps its span
    assert source_lines("Split.[cite:L:101::194:201:Tree:Drawn.]", material) == [
        "🎬 Merge Sort and the Master Theorem (video 3:14–3:21)"]


def test_unit_table_names_slides_by_printed_number_and_title(material: CourseMaterial) -> None:
    table = unit_table(material)
    deck = material.unit(101).deck
    assert deck is not None
    # deck index 6 prints "4" (title and agenda slides before it are unnumbered)
    assert table["101"]["slides"]["6"] == {"printed": "4", "title": deck.page(6).title}
    assert table["101"]["slides"]["2"] == {"printed": None, "title": deck.page(2).title}
    assert set(table["101"]["slides"]) == {str(p.page_number) for p in deck.pages}
    for uid, um in material.units.items():
        assert bool(table[str(uid)]["slides"]) == (um.deck is not None)


def test_last_message_id_tells_a_conversation_read_earlier_has_grown(tmp_path: Path) -> None:
    store = LmsStore(tmp_path / "lms.sqlite3")
    first = store.save_turn("s" * 32, None, "Q1", "A1", course_id=1, unit_id=101, title="Q1")
    before = store.last_message_id(first.conversation_id)
    assert before is not None and [m.id for m in store.messages(first.conversation_id)][-1] == before
    store.save_turn("s" * 32, first.conversation_id, "Q2", "A2", course_id=1, unit_id=101, title="Q1")
    after = store.last_message_id(first.conversation_id)
    assert after is not None and after > before
    assert store.last_message_id(999) is None
