"""The mock LMS store: conversations and messages, answers kept in stored form.

One implementation over SQLite (the default: one file, WAL) and PostgreSQL (a server several app
processes share), through SQLAlchemy Core; the schema is versioned by Alembic migrations
(``migrations/``), applied when a store opens a database, so an upgrade keeps every stored answer.
``LmsStore`` is safe to share between sessions and threads. ``save_turn`` writes a whole turn (the
conversation when it is new, the question and the answer) in one transaction, so a conversation never
exists without its messages, nor a question without its answer, even when the process is killed
halfway; a turn that finds a SQLite file locked by another writer for longer than SQLite's own wait
is tried again after a growing pause.

Every failure, reading or writing, is one ``StoreError`` line naming the setting, the store (credentials
masked) and what is wrong (``store_errors``); a PostgreSQL server that does not answer is given up after
the connect timeout. Text no store can keep (a lone surrogate, NUL) is cleaned the same way on both
(``storable``), and a turn says what was cleaned.
"""

from __future__ import annotations

import atexit
import dataclasses
import json
import random
import sqlite3
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import InputError, StoreError, StoreSettingError
from .storable import is_storable, storable, storable_value
from .store_errors import failure, store_error
from .store_url import LEAST_CONNECT_TIMEOUT, StoreUrl, store_url

if TYPE_CHECKING:
    import sqlalchemy as sa

T = TypeVar("T")

BUSY_TIMEOUT = 5.0  # seconds SQLite itself waits for the write lock, per attempt of a turn
LOCKED_ATTEMPTS = 8  # attempts of one write before giving up (with pauses of 0.05 s doubling up to 2 s)
CONNECT_TIMEOUT = 5  # seconds a PostgreSQL connection may take before the store gives up (libpq's default: 130)
_MIGRATION_LOCK = 7_201_212  # PostgreSQL advisory lock: one process at a time migrates a shared database


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
    """What ``save_turn`` wrote: the conversation (new or not), the question and the answer as stored, and
    which of the turn's parts held text no store can keep and were cleaned (``"question"``, ``"answer"``,
    ``"title"``, ``"question_meta"``, ``"answer_meta"``): a lone surrogate is now U+FFFD, NUL is gone."""

    conversation_id: int
    question_id: int
    answer_id: int
    question: str
    answer: str
    cleaned: tuple[str, ...] = ()


@dataclass(frozen=True)
class Message:
    id: int
    conversation_id: int
    role: str
    content: str
    meta: dict[str, Any]
    created: float


class LmsStore:
    """The store at ``target``: a SQLite file (a ``Path``, a path string or ``sqlite:///…``) or a
    PostgreSQL database (``postgresql://user@host/db``, psycopg 3). Raises ``ConfigError`` for any other
    value and ``StoreError`` (a ``RunError``) when the database cannot be opened, and later when it cannot
    be read or written. A connection to a PostgreSQL server is given up after ``connect_timeout`` seconds
    (the URL's own ``connect_timeout`` wins)."""

    def __init__(self, target: Path | str | StoreUrl, connect_timeout: int = CONNECT_TIMEOUT) -> None:
        if isinstance(target, StoreUrl):
            self.location = target
        else:  # given directly, not by a setting: messages start with the store itself
            self.location = dataclasses.replace(store_url(target, field="database"), setting=None)
        if isinstance(connect_timeout, bool) or not isinstance(connect_timeout, int) \
                or connect_timeout < LEAST_CONNECT_TIMEOUT:
            raise InputError(f"connect_timeout: expected a whole number of seconds, at least {LEAST_CONNECT_TIMEOUT}")
        self.connect_timeout = self.location.connect_timeout or connect_timeout
        self.path = self.location.path  # the SQLite file, None on a server
        self._engine = self._guarded(lambda: _engine(self.location, self.connect_timeout))
        _OPEN.add(self._engine)
        self._retry_locked(self._migrate)

    def __repr__(self) -> str:
        return f"LmsStore({self.location.shown!r})"

    def close(self) -> None:
        """Close the store's connections (a closed store opens new ones when used again)."""
        self._engine.dispose()

    # --- connections and transactions -----------------------------------------------------------

    def _migrate(self) -> None:
        """Bring the schema to the newest revision (a database made before revisions is adopted as it is).
        A database stamped with a revision this version does not know (a newer one's) is left alone."""
        from alembic import command
        from alembic.config import Config
        from alembic.runtime.migration import MigrationContext
        from alembic.script import ScriptDirectory
        from alembic.util import CommandError

        config = Config()
        config.set_main_option("script_location", str(Path(__file__).with_name("migrations")))
        script = ScriptDirectory.from_config(config)
        known = {revision.revision for revision in script.walk_revisions()}
        with self._begin(write=True) as db:
            if self.location.dialect == "postgresql":  # two app processes starting at once: one migrates
                db.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK})")
            for current in MigrationContext.configure(db).get_current_heads():
                if current not in known:
                    raise store_error(self.location, f"its schema is revision {current[:64]!r}, which this version "
                                      f"of Citation Studio does not know (it knows up to {script.get_current_head()}): "
                                      "upgrade Citation Studio, or give another database")
            config.attributes["connection"] = db
            failed: str | None = None
            try:
                command.upgrade(config, "head")
            except CommandError as exc:
                failed = str(exc)
            if failed is not None:  # raised here, without Alembic's exception attached, and rolled back
                raise store_error(self.location, "its schema cannot be brought up to date", failed)

    @contextmanager
    def _begin(self, write: bool = False) -> Iterator[sa.Connection]:
        """A connection in a transaction, committed when the block ends (rolled back when it raises). On
        SQLite a writing transaction takes the write lock at once (``BEGIN IMMEDIATE``)."""
        with self._engine.connect() as db:
            if write:
                db = db.execution_options(immediate=True)
            with db.begin():
                yield db

    def _guarded(self, work: Callable[[], T]) -> T:
        """``work()``; any failure of the database, its driver or its file is one ``StoreError`` line (raised
        without the driver's exception attached: its text may hold what the line leaves out)."""
        from sqlalchemy.exc import SQLAlchemyError

        try:
            return work()
        except (SQLAlchemyError, sqlite3.Error, OSError) as exc:
            error = failure(exc, self.location, self.connect_timeout)
        raise error

    def _retry_locked(self, write: Callable[[], T]) -> T:
        """``write()``, again after a pause (0.05 s doubling, up to 2 s, with jitter) while the database is
        locked; any other failure is one ``StoreError`` line."""
        from sqlalchemy.exc import DBAPIError, SQLAlchemyError

        error: StoreError | None = None
        for attempt in range(LOCKED_ATTEMPTS):
            if attempt:
                time.sleep(min(2.0, 0.05 * 2 ** (attempt - 1)) * random.uniform(0.5, 1.0))
            try:
                return write()
            except (SQLAlchemyError, sqlite3.Error, OSError) as exc:
                if isinstance(exc, DBAPIError) and _retryable(exc):
                    continue
                error = failure(exc, self.location, self.connect_timeout)
                break
        raise error or store_error(self.location, f"database is locked: gave up after {LOCKED_ATTEMPTS} attempts")

    # --- writing ----------------------------------------------------------------------------------

    def create_conversation(self, session_id: str, course_id: int, unit_id: int, title: str) -> int:
        _check_key(session_id)
        return self._retry_locked(lambda: self._insert_conversation(session_id, course_id, unit_id, storable(title)))

    def _insert_conversation(self, session_id: str, course_id: int, unit_id: int, title: str) -> int:
        with self._begin(write=True) as db:
            return _new_conversation(db, session_id, course_id, unit_id, title, time.time())

    def add_message(self, conversation_id: int, role: str, content: str, meta: dict[str, Any] | None = None) -> int:
        """One message; text no store can keep is cleaned as ``save_turn`` cleans it."""
        encoded = json.dumps(storable_value(meta or {}), ensure_ascii=False)
        content = storable(content)

        def insert() -> int:
            with self._begin(write=True) as db:
                return _new_message(db, conversation_id, role, content, encoded, time.time())

        return self._retry_locked(insert)

    def save_turn(self, session_id: str, conversation_id: int | None, question: str, answer: str, *,
                  course_id: int, unit_id: int, title: str, question_meta: dict[str, Any] | None = None,
                  answer_meta: dict[str, Any] | None = None) -> Turn:
        """One turn in one transaction: a new conversation of ``session_id`` when ``conversation_id`` is
        None, then the question and the answer. Raises ``InputError`` when ``conversation_id`` is not a
        conversation of ``session_id`` (or ``session_id`` holds text no store can keep); retries while the
        database is locked. Text no store can keep is cleaned (``storable``), and the turn says where."""
        _check_key(session_id)
        texts = {"question": question, "answer": answer, "title": title if conversation_id is None else ""}
        metas = {"question_meta": question_meta or {}, "answer_meta": answer_meta or {}}
        clean = {name: storable(text) for name, text in texts.items()}
        encoded = {name: json.dumps(storable_value(meta), ensure_ascii=False) for name, meta in metas.items()}
        cleaned = tuple([name for name, text in texts.items() if clean[name] is not text]
                        + [name for name, meta in metas.items()
                           if json.dumps(meta, ensure_ascii=False) != encoded[name]])
        written = self._retry_locked(lambda: self._save_turn(
            session_id, conversation_id, clean["question"], clean["answer"], course_id, unit_id, clean["title"],
            encoded["question_meta"], encoded["answer_meta"]))
        return dataclasses.replace(written, cleaned=cleaned)

    def _save_turn(self, session_id: str, conversation_id: int | None, question: str, answer: str, course_id: int,
                   unit_id: int, title: str, question_meta: str, answer_meta: str) -> Turn:
        from .schema import CONVERSATIONS

        with self._begin(write=True) as db:
            now = time.time()
            if conversation_id is None:
                conversation_id = _new_conversation(db, session_id, course_id, unit_id, title, now)
            else:
                owner = db.execute(CONVERSATIONS.select().with_only_columns(CONVERSATIONS.c.session_id)
                                   .where(CONVERSATIONS.c.id == conversation_id)).scalar()
                if owner != session_id:
                    raise InputError(f"conversation {conversation_id}: not a conversation of this history")
            q = _new_message(db, conversation_id, "user", question, question_meta, now)
            a = _new_message(db, conversation_id, "assistant", answer, answer_meta, now)
            return Turn(conversation_id, q, a, question, answer)

    # --- reading ----------------------------------------------------------------------------------

    def conversations(self, session_id: str | None = None) -> list[Conversation]:
        from .schema import CONVERSATIONS

        if session_id is not None and not is_storable(session_id):
            return []  # no conversation has a key no store can keep
        query = CONVERSATIONS.select().order_by(CONVERSATIONS.c.id.desc())
        if session_id is not None:
            query = query.where(CONVERSATIONS.c.session_id == session_id)
        rows = self._guarded(lambda: self._read(query))
        return [Conversation(r.id, r.session_id, r.course_id, r.unit_id, r.title, r.created) for r in rows]

    def last_message_id(self, conversation_id: int) -> int | None:
        """The id of the conversation's newest message (None when it has none): a cheap way to tell whether
        a conversation read earlier has changed, since messages are only ever added."""
        import sqlalchemy as sa

        from .schema import MESSAGES

        rows = self._guarded(lambda: self._read(sa.select(sa.func.max(MESSAGES.c.id))
                                                .where(MESSAGES.c.conversation_id == conversation_id)))
        found = rows[0][0] if rows else None
        return int(found) if found is not None else None

    def messages(self, conversation_id: int) -> list[Message]:
        from .schema import MESSAGES

        rows = self._guarded(lambda: self._read(MESSAGES.select().where(MESSAGES.c.conversation_id == conversation_id)
                                                .order_by(MESSAGES.c.id)))
        return [Message(r.id, r.conversation_id, r.role, r.content, json.loads(r.meta), r.created) for r in rows]

    def _read(self, query: sa.Executable) -> Sequence[sa.Row[Any]]:
        with self._begin() as db:
            return db.execute(query).all()


def _check_key(session_id: str) -> None:
    if not is_storable(session_id):
        raise InputError("session_id: holds a NUL or a lone surrogate, which a store cannot keep")


def _new_conversation(db: sa.Connection, session_id: str, course_id: int, unit_id: int, title: str,
                      now: float) -> int:
    from .schema import CONVERSATIONS

    inserted = db.execute(CONVERSATIONS.insert().values(session_id=session_id, course_id=course_id, unit_id=unit_id,
                                                        title=title[:200], created=now).returning(CONVERSATIONS.c.id))
    return int(inserted.scalar_one())


def _new_message(db: sa.Connection, conversation_id: int, role: str, content: str, meta: str, now: float) -> int:
    from .schema import MESSAGES

    inserted = db.execute(MESSAGES.insert().values(conversation_id=conversation_id, role=role, content=content,
                                                   meta=meta, created=now).returning(MESSAGES.c.id))
    return int(inserted.scalar_one())


# --- engines ------------------------------------------------------------------------------------

_OPEN: weakref.WeakSet[sa.Engine] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for engine in list(_OPEN):
        engine.dispose()


def _engine(location: StoreUrl, connect_timeout: int) -> sa.Engine:
    import sqlalchemy as sa
    from sqlalchemy import event
    from sqlalchemy.pool import NullPool

    if location.path is not None:
        path = location.path
        if path.is_dir():
            raise store_error(location, "is a folder, not a SQLite database file")
        path.parent.mkdir(parents=True, exist_ok=True)

        def connect() -> sqlite3.Connection:  # BUSY_TIMEOUT read at every connection (tests lower it)
            db = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA foreign_keys=ON")
            return db

        # a connection per use, as SQLite is meant to be used by several processes: nothing is held open
        engine = sa.create_engine("sqlite://", creator=connect, poolclass=NullPool)

        @event.listens_for(engine, "begin")
        def begin(conn: sa.Connection) -> None:  # the driver leaves transactions to us (isolation_level=None)
            conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("immediate") else "BEGIN")

        first = connect()  # write-ahead logging: readers never wait for a writer (kept in the file)
        try:
            if first.execute("PRAGMA journal_mode").fetchone() != ("wal",):
                first.execute("PRAGMA journal_mode=WAL")
        finally:
            first.close()
        return engine
    try:
        import psycopg  # noqa: F401  (the driver: said in one line when it is missing)
    except ImportError:
        raise StoreSettingError("a PostgreSQL store needs psycopg 3: pip install 'citation-core[postgres]'",
                                location.shown, location.setting) from None
    return sa.create_engine(location.url, pool_pre_ping=True, pool_size=5, max_overflow=10, pool_timeout=30,
                            connect_args={"connect_timeout": connect_timeout})


def _retryable(exc: Exception) -> bool:
    """A write that may succeed when tried again: SQLite's lock, PostgreSQL's serialization failure or deadlock."""
    orig = getattr(exc, "orig", None)
    if isinstance(orig, sqlite3.OperationalError):
        return "locked" in str(orig) or "busy" in str(orig)
    return getattr(orig, "sqlstate", None) in ("40001", "40P01")
