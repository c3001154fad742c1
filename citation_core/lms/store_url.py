"""Where the LMS store lives: a file path or a URL (``sqlite:///path``, ``postgresql://user@host/db``).

``store_url`` turns what a user configured into a SQLAlchemy URL, or refuses it in one line: a value with
a scheme that is neither SQLite nor PostgreSQL (``mysql://``, ``postgresql:db``) is no file name to create.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_POSTGRES_SCHEMES = ("postgresql", "postgres", "postgresql+psycopg")
_HELP = "give a file path, sqlite:///path or postgresql://user@host/database"


@dataclass(frozen=True)
class StoreUrl:
    url: str  # for SQLAlchemy: sqlite:////abs/path or postgresql+psycopg://user@host/db
    path: Path | None  # the SQLite file, None for a server
    shown: str  # for messages: the password left out

    @property
    def dialect(self) -> str:
        return "sqlite" if self.path is not None else "postgresql"


def store_url(value: str | Path, base: Path | None = None, field: str = "storage.database") -> StoreUrl:
    """``value`` as a store: a path (relative to ``base``) or ``sqlite:///`` URL is a SQLite file, a
    ``postgresql://`` (``postgres://``) URL a server reached with psycopg 3. Raises ``ConfigError``."""
    if isinstance(value, Path):
        return _sqlite(value, base)
    text = value.strip()
    if not text:
        raise ConfigError(f"{field}: empty: {_HELP}")
    scheme = _SCHEME.match(text)
    if scheme is None or re.fullmatch(r"[A-Za-z]:[\\/].*", text):  # no scheme, or a Windows drive
        return _sqlite(Path(text), base)
    name = scheme.group(1).lower()
    rest = text[scheme.end():]
    if name == "sqlite":
        if not rest.startswith("///") or len(rest) == 3:
            raise ConfigError(f"{field}: {text!r}: a SQLite URL is sqlite:///relative/path or sqlite:////absolute/path")
        return _sqlite(Path(rest[3:]), base)
    if name in _POSTGRES_SCHEMES:
        if not rest.startswith("//") or len(rest) == 2:
            raise ConfigError(f"{field}: {_masked(text)!r}: a PostgreSQL URL is postgresql://user@host/database")
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError

        try:
            url = make_url("postgresql+psycopg:" + rest)
        except (ArgumentError, ValueError) as err:
            raise ConfigError(f"{field}: {_masked(text)!r}: not a PostgreSQL URL ({err})") from None
        if not url.database:
            raise ConfigError(f"{field}: {_masked(text)!r}: the URL names no database (postgresql://user@host/database)")
        return StoreUrl(url.render_as_string(hide_password=False), None, url.render_as_string(hide_password=True))
    raise ConfigError(f"{field}: {_masked(text)!r}: {name}:// is not a supported store: {_HELP}")


def _sqlite(path: Path, base: Path | None) -> StoreUrl:
    full = path if path.is_absolute() or base is None else base / path
    return StoreUrl(f"sqlite:///{full}", full, str(full))


def _masked(text: str) -> str:
    """The URL with its password (``user:secret@``) left out."""
    return re.sub(r"(//[^/:@]*):[^/@]*@", r"\1:***@", text)
