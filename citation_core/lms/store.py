"""The mock LMS store: conversations and messages in SQLite (WAL), answers kept in stored form.

Every call opens its own connection, so one ``LmsStore`` can serve several sessions and threads.
``save_turn`` writes a whole turn (the conversation when it is new, the question and the answer) in
one transaction, so a conversation never exists without its messages, nor a question without its
answer, even when the process is killed halfway; a turn that finds the database locked by another
writer for longer than SQLite's own wait is tried again after a growing pause.
"""

from __future__ import annotations

import json
import random
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..errors import InputError, RunError

T = TypeVar("T")

BUSY_TIMEOUT = 5.0  # seconds SQLite itself waits for the write lock, per attempt of a turn
LOCKED_ATTEMPTS = 8  # attempts of one write before giving up (with pauses of 0.05 s doubling up to 2 s)

SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    course_id INTEGER NOT NULL,
    unit_id INTEGER NOT NULL,
    title TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    content TEXT NOT NULL,
    meta TEXT NOT NULL DEFAULT '{}',
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_by_conversation ON messages(conversation_id, id);
CREATE INDEX IF NOT EXISTS conversations_by_session ON conversations(session_id, id);
"""


@dataclass(frozen=True)
class Conversation:
    id: int
    session_id: str
    course_id: int
    unit_id: int
    title: str
    created: float


@dataclass(frozen=True)
class Turn:
    """What ``save_turn`` wrote: the conversation (new or not), the question and the answer."""

    conversation_id: int
    question_id: int
    answer_id: int


@dataclass(frozen=True)
class Message:
    id: int
    conversation_id: int
    role: str
    content: str
    meta: dict[str, Any]
    created: float


class LmsStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._retry_locked(self._create_schema)

    def _create_schema(self) -> None:
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(SCHEMA)

    def _retry_locked(self, write: Callable[[], T]) -> T:
        """``write()``, again after a pause (0.05 s doubling, up to 2 s, with jitter) while the database is locked."""
        for attempt in range(LOCKED_ATTEMPTS):
            try:
                return write()
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                if attempt == LOCKED_ATTEMPTS - 1:
                    raise RunError(f"{self.path}: database is locked: gave up after {LOCKED_ATTEMPTS} "
                                   "attempts") from None
                time.sleep(min(2.0, 0.05 * 2**attempt) * random.uniform(0.5, 1.0))
        raise AssertionError("unreachable")

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=10)
        try:
            db.execute("PRAGMA foreign_keys=ON")
            yield db
            db.commit()
        finally:
            db.close()

    def create_conversation(self, session_id: str, course_id: int, unit_id: int, title: str) -> int:
        with self._connect() as db:
            cur = db.execute(
                "INSERT INTO conversations (session_id, course_id, unit_id, title, created) VALUES (?, ?, ?, ?, ?)",
                (session_id, course_id, unit_id, title[:200], time.time()),
            )
            return int(cur.lastrowid or 0)

    def add_message(self, conversation_id: int, role: str, content: str, meta: dict[str, Any] | None = None) -> int:
        with self._connect() as db:
            cur = db.execute(
                "INSERT INTO messages (conversation_id, role, content, meta, created) VALUES (?, ?, ?, ?, ?)",
                (conversation_id, role, content, json.dumps(meta or {}, ensure_ascii=False), time.time()),
            )
            return int(cur.lastrowid or 0)

    def save_turn(self, session_id: str, conversation_id: int | None, question: str, answer: str, *,
                  course_id: int, unit_id: int, title: str, question_meta: dict[str, Any] | None = None,
                  answer_meta: dict[str, Any] | None = None) -> Turn:
        """One turn in one transaction: a new conversation of ``session_id`` when ``conversation_id`` is
        None, then the question and the answer. Raises ``InputError`` when ``conversation_id`` is not a
        conversation of ``session_id``; retries while the database is locked."""
        metas = json.dumps(question_meta or {}, ensure_ascii=False), json.dumps(answer_meta or {}, ensure_ascii=False)
        return self._retry_locked(lambda: self._save_turn(
            session_id, conversation_id, question, answer, course_id, unit_id, title, *metas))

    def _save_turn(self, session_id: str, conversation_id: int | None, question: str, answer: str, course_id: int,
                   unit_id: int, title: str, question_meta: str, answer_meta: str) -> Turn:
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None)
        try:
            db.execute("PRAGMA foreign_keys=ON")
            db.execute("BEGIN IMMEDIATE")
            try:
                now = time.time()
                if conversation_id is None:
                    cur = db.execute(
                        "INSERT INTO conversations (session_id, course_id, unit_id, title, created) "
                        "VALUES (?, ?, ?, ?, ?)", (session_id, course_id, unit_id, title[:200], now))
                    conversation_id = int(cur.lastrowid or 0)
                else:
                    row = db.execute("SELECT session_id FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
                    if row is None or row[0] != session_id:
                        raise InputError(f"conversation {conversation_id}: not a conversation of this history")
                insert = "INSERT INTO messages (conversation_id, role, content, meta, created) VALUES (?, ?, ?, ?, ?)"
                q = db.execute(insert, (conversation_id, "user", question, question_meta, now)).lastrowid
                a = db.execute(insert, (conversation_id, "assistant", answer, answer_meta, now)).lastrowid
                db.execute("COMMIT")
            except BaseException:
                db.rollback()
                raise
            return Turn(conversation_id, int(q or 0), int(a or 0))
        finally:
            db.close()

    def conversations(self, session_id: str | None = None) -> list[Conversation]:
        query = "SELECT id, session_id, course_id, unit_id, title, created FROM conversations"
        args: tuple[Any, ...] = ()
        if session_id is not None:
            query += " WHERE session_id = ?"
            args = (session_id,)
        with self._connect() as db:
            rows = db.execute(query + " ORDER BY id DESC", args).fetchall()
        return [Conversation(*row) for row in rows]

    def last_message_id(self, conversation_id: int) -> int | None:
        """The id of the conversation's newest message (None when it has none): a cheap way to tell whether
        a conversation read earlier has changed, since messages are only ever added."""
        with self._connect() as db:
            row = db.execute("SELECT max(id) FROM messages WHERE conversation_id = ?", (conversation_id,)).fetchone()
        return int(row[0]) if row and row[0] is not None else None

    def messages(self, conversation_id: int) -> list[Message]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT id, conversation_id, role, content, meta, created FROM messages "
                "WHERE conversation_id = ? ORDER BY id",
                (conversation_id,),
            ).fetchall()
        return [Message(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5]) for r in rows]
