"""What went wrong with a store, in one line: a driver's, SQLAlchemy's or the file system's exception as a
``StoreError`` that names the store's setting, the store (credentials masked) and the problem in words.

The problem is said in the product's own words (a server that did not answer within the connect timeout,
refused the connection, a file that is no SQLite database…); only a failure none of these describe adds
the driver's first line, with the store's credentials taken out.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from ..errors import StoreError

if TYPE_CHECKING:
    from .store_url import StoreUrl

FAILED = "the database refused the request"


def store_error(location: StoreUrl, problem: str, detail: str | None = None) -> StoreError:
    """A ``StoreError`` about the store at ``location``; ``detail`` (a driver's words) loses its credentials."""
    return StoreError(problem, location.shown, location.setting, location.redact(detail) if detail else None)


def failure(exc: BaseException, location: StoreUrl, connect_timeout: int) -> StoreError:
    """``exc``, raised while using the store at ``location``, as one line."""
    from sqlalchemy.exc import DBAPIError, SQLAlchemyError
    from sqlalchemy.exc import TimeoutError as PoolTimeout

    if isinstance(exc, StoreError):
        return exc
    if isinstance(exc, DBAPIError) and exc.orig is not None:
        return failure(exc.orig, location, connect_timeout)
    if isinstance(exc, sqlite3.Error):
        return store_error(location, *_sqlite_problem(exc))
    if isinstance(exc, PoolTimeout):
        return store_error(location, "every connection to the database is in use")
    if isinstance(exc, OSError):  # the SQLite file's folder
        if isinstance(exc, (FileExistsError, NotADirectoryError)):
            return store_error(location, "cannot be created: its folder is a file")
        return store_error(location, "cannot be created", exc.strerror or type(exc).__name__)
    if type(exc).__module__.split(".")[0] == "psycopg":
        return store_error(location, *_postgresql_problem(exc, connect_timeout))
    if isinstance(exc, SQLAlchemyError):
        return store_error(location, FAILED, _first_line(exc))
    return store_error(location, FAILED, f"{type(exc).__name__}: {_first_line(exc)}")


def _sqlite_problem(exc: sqlite3.Error) -> tuple[str, str | None]:
    text = str(exc).lower()
    if "file is not a database" in text:
        return "is not a SQLite database file", None
    if "readonly" in text:
        return "is read-only", None
    if "malformed" in text:
        return "is damaged (its disk image is malformed)", None
    if "unable to open" in text:
        return "cannot be opened", _first_line(exc)
    return FAILED, _first_line(exc)


def _postgresql_problem(exc: BaseException, connect_timeout: int) -> tuple[str, str | None]:
    text = str(exc).lower()
    sqlstate = str(getattr(exc, "sqlstate", None) or "")
    if "invalid connection option" in text:
        return "the URL has a parameter PostgreSQL does not know", _first_line(exc)
    if "timeout expired" in text:
        return f"the database server did not answer within {connect_timeout} s", None
    if sqlstate in ("28P01", "28000"):
        return "the database server refused the user or password", None
    if sqlstate == "3D000":
        return "the database does not exist on the server", None
    if "connection refused" in text:
        return "the database server refused the connection", None
    if "resolve host" in text or "translate host name" in text:
        return "the database server's host name is not known", None
    if sqlstate.startswith("08") or sqlstate in ("57P01", "57P02", "57P03") or "closed the connection" in text:
        return "the connection to the database server was lost", None
    if type(exc).__name__ == "OperationalError" and not sqlstate:
        return "the database server cannot be reached", _first_line(exc)
    return FAILED, _first_line(exc)


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
