"""One contract for the LMS store, on a SQLite file and on a real PostgreSQL server started by the tests.

Two stores on one database stand for two app processes: what one writes the other reads, a turn is one
transaction (a process killed while saving leaves no conversation without its messages and no question
without its answer), the schema is migrated once and stamped, and a SQLite file written before the
schema was versioned keeps every answer.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest
import sqlalchemy as sa

from citation_core.errors import InputError
from citation_core.lms.store import LmsStore
from citation_core.testing.store_saver import kill_while_saving

HEAD = "0001"


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/lms.sqlite3"
    return str(request.getfixturevalue("postgres_url"))


def rows(target: str, query: str) -> list[tuple[object, ...]]:
    engine = sa.create_engine(LmsStore(target).location.url)
    try:
        with engine.connect() as db:
            return [tuple(r) for r in db.exec_driver_sql(query).all()]
    finally:
        engine.dispose()


def whole_turns(target: str) -> tuple[int, int]:
    """Conversations and messages; asserts every conversation is question, answer, question, answer…"""
    conversations = [r[0] for r in rows(target, "SELECT id FROM conversations")]
    roles: dict[object, list[object]] = {c: [] for c in conversations}
    messages = rows(target, "SELECT conversation_id, role FROM messages ORDER BY id")
    for conversation_id, role in messages:
        roles[conversation_id].append(role)
    for conversation_id, seq in roles.items():
        assert seq, f"conversation {conversation_id} has no messages"
        assert seq == ["user", "assistant"] * (len(seq) // 2), f"conversation {conversation_id}: {seq}"
    return len(conversations), len(messages)


def test_what_one_process_writes_another_reads(target: str) -> None:
    first, second = LmsStore(target), LmsStore(target)
    turn = first.save_turn("history-a", None, "Wie funktioniert Mergesort? ∑ 🙂", "Er teilt.[cite:L:101:6:::M:S]",
                           course_id=1, unit_id=101, title="Mergesort", question_meta={"page": 6, "ü": [1, 2]},
                           answer_meta={"citations": 1})
    again = second.save_turn("history-a", turn.conversation_id, "Und danach?", "x" * 200_000, course_id=1,
                             unit_id=101, title="ignored")
    assert again.conversation_id == turn.conversation_id and again.answer_id > again.question_id > turn.answer_id
    (conversation,) = second.conversations("history-a")
    assert (conversation.title, conversation.course_id, conversation.unit_id) == ("Mergesort", 1, 101)
    messages = first.messages(turn.conversation_id)
    assert [(m.role, m.content[:20]) for m in messages] == [
        ("user", "Wie funktioniert Mer"), ("assistant", "Er teilt.[cite:L:101"), ("user", "Und danach?"),
        ("assistant", "x" * 20)]
    assert messages[0].meta == {"page": 6, "ü": [1, 2]} and len(messages[3].content) == 200_000
    assert first.last_message_id(turn.conversation_id) == again.answer_id
    assert first.last_message_id(10_000) is None and second.conversations("history-b") == []
    first.close()
    second.close()


def test_a_turn_into_another_historys_conversation_writes_nothing(target: str) -> None:
    store = LmsStore(target)
    turn = store.save_turn("mine", None, "q", "a", course_id=1, unit_id=101, title="q")
    with pytest.raises(InputError, match=r"^conversation \d+: not a conversation of this history$"):
        store.save_turn("theirs", turn.conversation_id, "q2", "a2", course_id=1, unit_id=101, title="q2")
    with pytest.raises(InputError):
        store.save_turn("mine", 987_654, "q3", "a3", course_id=1, unit_id=101, title="q3")
    assert whole_turns(target) == (1, 2)


def test_conversations_newest_first_and_by_history(target: str) -> None:
    store = LmsStore(target)
    ids = [store.save_turn(f"h{n % 2}", None, f"q{n}", "a", course_id=1, unit_id=101, title=f"t{n}").conversation_id
           for n in range(5)]
    assert [c.id for c in store.conversations()] == sorted(ids, reverse=True)
    assert [c.title for c in store.conversations("h1")] == ["t3", "t1"]


def test_sixteen_sessions_save_turns_at_once(target: str) -> None:
    store = LmsStore(target)
    start = threading.Barrier(16, timeout=30)
    failures: list[BaseException] = []

    def session(n: int) -> None:
        try:
            start.wait()
            conversation = None
            for i in range(5):
                conversation = store.save_turn(f"s{n}", conversation, f"q{n}-{i}", f"a{n}-{i}", course_id=1,
                                               unit_id=101, title="t").conversation_id
        except BaseException as exc:  # noqa: BLE001  (reported below)
            failures.append(exc)

    threads = [threading.Thread(target=session, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert whole_turns(target) == (16, 160)
    for n in range(16):
        (conversation,) = store.conversations(f"s{n}")
        assert [m.content for m in store.messages(conversation.id)][::2] == [f"q{n}-{i}" for i in range(5)]


def test_the_schema_is_migrated_once_and_stamped_even_when_two_processes_start_at_once(target: str) -> None:
    opened: list[LmsStore] = []
    failures: list[BaseException] = []
    start = threading.Barrier(4, timeout=30)

    def open_store() -> None:
        try:
            start.wait()
            opened.append(LmsStore(target))
        except BaseException as exc:  # noqa: BLE001
            failures.append(exc)

    threads = [threading.Thread(target=open_store) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == [] and len(opened) == 4
    assert rows(target, "SELECT version_num FROM alembic_version") == [(HEAD,)]
    assert opened[0].save_turn("k", None, "q", "a", course_id=1, unit_id=101, title="q")


def test_a_process_killed_while_saving_leaves_no_half_turn(target: str, repo_root: Path) -> None:
    LmsStore(target).close()
    kill_while_saving(target, 8, seed=11, cwd=repo_root)
    conversations, messages = whole_turns(target)
    assert conversations >= 8 and messages >= 16
    assert LmsStore(target).save_turn("key", None, "after", "all", course_id=1, unit_id=101, title="after")


LEGACY_SCHEMA = """
CREATE TABLE conversations (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
    course_id INTEGER NOT NULL, unit_id INTEGER NOT NULL, title TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant')), content TEXT NOT NULL,
    meta TEXT NOT NULL DEFAULT '{}', created REAL NOT NULL);
CREATE INDEX messages_by_conversation ON messages(conversation_id, id);
CREATE INDEX conversations_by_session ON conversations(session_id, id);
"""


def test_a_sqlite_file_from_before_migrations_keeps_every_answer(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    with sqlite3.connect(db) as conn:  # as the store wrote it before its schema was versioned
        conn.executescript(LEGACY_SCHEMA)
        conn.execute("INSERT INTO conversations VALUES (7, 'key', 1, 101, 'Old question', 1700000000.0)")
        conn.execute("INSERT INTO messages VALUES (40, 7, 'user', 'How?', '{\"page\": 6}', 1700000000.0)")
        conn.execute("INSERT INTO messages VALUES (41, 7, 'assistant', 'Thus.[cite:L:101:6:::M:S:va1]', '{}', 1.0)")
    store = LmsStore(db)
    (conversation,) = store.conversations("key")
    assert (conversation.id, conversation.title) == (7, "Old question")
    assert [(m.id, m.content, m.meta) for m in store.messages(7)] == [
        (40, "How?", {"page": 6}), (41, "Thus.[cite:L:101:6:::M:S:va1]", {})]
    assert rows(f"sqlite:///{db}", "SELECT version_num FROM alembic_version") == [(HEAD,)]
    turn = store.save_turn("key", 7, "And then?", "Next.", course_id=1, unit_id=101, title="x")
    assert turn.question_id == 42 and json.loads(json.dumps(store.messages(7)[-1].meta)) == {}
