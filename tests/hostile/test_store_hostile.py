"""The LMS store under load and under kill -9: a turn is one transaction.

64 threads save turns at the same moment (none lost, none "database is locked"); a process saving
turns in a loop is killed with SIGKILL 30 times, and afterwards no conversation lacks its messages
and no question lacks its answer.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from citation_core.errors import InputError, RunError
from citation_core.lms.store import LmsStore, Turn
from citation_core.testing.store_saver import kill_while_saving

THREADS = 64
KILLS = 30


def consistent(db: Path) -> tuple[int, int]:
    """Conversations and messages; asserts every conversation is question, answer, question, answer…"""
    with sqlite3.connect(db) as conn:
        conversations = [row[0] for row in conn.execute("SELECT id FROM conversations")]
        rows = conn.execute("SELECT conversation_id, role FROM messages ORDER BY id").fetchall()
    roles: dict[int, list[str]] = {c: [] for c in conversations}
    for conversation_id, role in rows:
        roles[conversation_id].append(role)
    for conversation_id, seq in roles.items():
        assert seq, f"conversation {conversation_id} has no messages"
        assert seq == ["user", "assistant"] * (len(seq) // 2), f"conversation {conversation_id}: {seq}"
    return len(conversations), len(rows)


def test_a_turn_creates_the_conversation_with_both_messages(tmp_path: Path) -> None:
    store = LmsStore(tmp_path / "lms.sqlite3")
    first = store.save_turn("key-a", None, "How?", "Like this.", course_id=1, unit_id=101, title="How?",
                            question_meta={"page": 6}, answer_meta={"citations": 0})
    assert isinstance(first, Turn)
    again = store.save_turn("key-a", first.conversation_id, "And?", "Also.", course_id=1, unit_id=101, title="-")
    assert again.conversation_id == first.conversation_id
    (conv,) = store.conversations("key-a")
    assert (conv.id, conv.title, conv.unit_id) == (first.conversation_id, "How?", 101)
    msgs = store.messages(conv.id)
    assert [(m.id, m.role, m.content, m.meta) for m in msgs] == [
        (first.question_id, "user", "How?", {"page": 6}),
        (first.answer_id, "assistant", "Like this.", {"citations": 0}),
        (again.question_id, "user", "And?", {}), (again.answer_id, "assistant", "Also.", {})]


def test_a_turn_into_another_historys_conversation_is_refused(tmp_path: Path) -> None:
    store = LmsStore(tmp_path / "lms.sqlite3")
    mine = store.save_turn("key-a", None, "q", "a", course_id=1, unit_id=101, title="q")
    for conversation_id in (mine.conversation_id, 999):
        with pytest.raises(InputError) as err:
            store.save_turn("key-b", conversation_id, "q2", "a2", course_id=1, unit_id=101, title="q2")
        assert str(err.value) == f"conversation {conversation_id}: not a conversation of this history"
    assert consistent(store.path) == (1, 2)


def test_64_threads_save_turns_at_once(tmp_path: Path) -> None:
    store = LmsStore(tmp_path / "lms.sqlite3")
    start = threading.Barrier(THREADS, timeout=30)
    failures: list[BaseException] = []
    turns: list[Turn] = []

    def save(n: int) -> None:
        try:
            start.wait()
            turn = store.save_turn(f"key-{n}", None, f"q{n}-0", f"a{n}-0", course_id=1, unit_id=101, title=f"q{n}")
            turns.append(turn)
            for i in range(1, 3):
                turns.append(store.save_turn(f"key-{n}", turn.conversation_id, f"q{n}-{i}", f"a{n}-{i}",
                                             course_id=1, unit_id=101, title="-"))
        except BaseException as exc:  # noqa: BLE001  (asserted below with all threads' results)
            failures.append(exc)

    threads = [threading.Thread(target=save, args=(n,)) for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert len(turns) == THREADS * 3
    assert consistent(store.path) == (THREADS, THREADS * 6)
    for n in range(THREADS):
        (conv,) = store.conversations(f"key-{n}")
        assert [m.content for m in store.messages(conv.id)] == [
            f"{kind}{n}-{i}" for i in range(3) for kind in ("q", "a")]


def test_kill_9_while_saving_leaves_no_half_turn(tmp_path: Path, repo_root: Path) -> None:
    db = tmp_path / "lms.sqlite3"
    LmsStore(db)
    kill_while_saving(db, KILLS, seed=7, cwd=repo_root)
    conversations, messages = consistent(db)
    assert conversations >= KILLS and messages >= 2 * KILLS
    assert LmsStore(db).save_turn("key", None, "after", "all", course_id=1, unit_id=101, title="after")


def hold_write_lock(db: Path, seconds: float) -> threading.Thread:
    """Another writer holding the database's write lock for ``seconds`` (from now on)."""
    held = threading.Event()

    def hold() -> None:
        conn = sqlite3.connect(db, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        held.set()
        time.sleep(seconds)
        conn.execute("COMMIT")
        conn.close()

    thread = threading.Thread(target=hold)
    thread.start()
    assert held.wait(10)
    return thread


def test_a_turn_waits_out_a_writer_longer_than_sqlites_own_wait(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    store = LmsStore(tmp_path / "lms.sqlite3")
    monkeypatch.setattr("citation_core.lms.store.BUSY_TIMEOUT", 0.05)  # SQLite gives up after 50 ms
    holder = hold_write_lock(store.path, 0.6)
    turn = store.save_turn("key", None, "q", "a", course_id=1, unit_id=101, title="q")
    holder.join()
    assert [m.content for m in store.messages(turn.conversation_id)] == ["q", "a"]


def test_a_turn_gives_up_with_one_line_when_the_lock_never_comes(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    store = LmsStore(tmp_path / "lms.sqlite3")
    monkeypatch.setattr("citation_core.lms.store.BUSY_TIMEOUT", 0.05)
    monkeypatch.setattr("citation_core.lms.store.LOCKED_ATTEMPTS", 3)
    holder = hold_write_lock(store.path, 2.0)
    with pytest.raises(RunError) as err:
        store.save_turn("key", None, "q", "a", course_id=1, unit_id=101, title="q")
    holder.join()
    assert str(err.value) == f"{store.path}: database is locked: gave up after 3 attempts"
    assert consistent(store.path) == (0, 0)


def test_store_answer_saves_one_whole_turn_and_never_an_answer_it_could_not_render(tmp_path: Path,
                                                                                   sample_course: Path) -> None:
    from dataclasses import replace

    from citation_core.chat.view import ViewPosition
    from citation_core.llm.config import default_config
    from citation_core.lms.render import MAX_ANSWER_CHARS
    from citation_core.material.library import load_material
    from studio.services import chat_pipeline, store_answer

    material = load_material(sample_course)
    store = LmsStore(tmp_path / "lms.sqlite3")
    result = chat_pipeline(default_config(), material)(
        "How does merge work?", ViewPosition(101, page=6), pasted_answer="The merge step combines two sorted lists.")
    saved = store_answer(store, material, "key", None, 101, result, {"page": 6})
    conversation_id = saved.conversation_id
    assert [(m.role, m.content) for m in store.messages(conversation_id)] == [
        ("user", "How does merge work?"), ("assistant", saved.answer)]
    assert saved.cleaned == ()
    too_long = replace(result, answer="x" * (MAX_ANSWER_CHARS + 1))
    with pytest.raises(InputError) as err:
        store_answer(store, material, "key", conversation_id, 101, too_long, {})
    assert str(err.value) == ("answer: 200,001 characters, more than the limit of 200,000 characters "
                              "(MAX_ANSWER_CHARS): not stored")
    assert consistent(store.path) == (1, 2)
    # an answer cut at the limit is still stored with its citations (the markers come on top of the limit)
    capped = replace(result, answer="x. " * ((MAX_ANSWER_CHARS - 18) // 3) + "Merging is linear."
                     "[cite:L:101:6:::Merge:One comparison per element.]")
    from citation_core.contract import strip_markers

    assert len(capped.answer) > MAX_ANSWER_CHARS >= len(strip_markers(capped.answer))
    kept = store_answer(store, material, "key", conversation_id, 101, capped, {})
    assert kept.answer.endswith("One comparison per element.:va1]")
    assert consistent(store.path) == (1, 4)
