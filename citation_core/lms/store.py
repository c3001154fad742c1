"""The mock LMS store: conversations and messages in SQLite (WAL), answers kept in stored form.

Every call opens its own connection, so one ``LmsStore`` can serve several sessions and threads.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(SCHEMA)

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

    def conversations(self, session_id: str | None = None) -> list[Conversation]:
        query = "SELECT id, session_id, course_id, unit_id, title, created FROM conversations"
        args: tuple[Any, ...] = ()
        if session_id is not None:
            query += " WHERE session_id = ?"
            args = (session_id,)
        with self._connect() as db:
            rows = db.execute(query + " ORDER BY id DESC", args).fetchall()
        return [Conversation(*row) for row in rows]

    def messages(self, conversation_id: int) -> list[Message]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT id, conversation_id, role, content, meta, created FROM messages "
                "WHERE conversation_id = ? ORDER BY id",
                (conversation_id,),
            ).fetchall()
        return [Message(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5]) for r in rows]
