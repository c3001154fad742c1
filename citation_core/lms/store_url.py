"""Where the LMS store lives: a file path or a URL (``sqlite:///path``, ``postgresql://user@host/db``).

``store_url`` turns what a user configured into a SQLAlchemy URL, or refuses it in one line: a value with
a scheme that is neither SQLite nor PostgreSQL (``mysql://``, ``postgresql:db``) is no file name to create,
and neither is a libpq ``key=value`` connection string. Every message shows the value with its
credentials masked (``credentials.masked_url``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import StoreSettingError
from .credentials import is_secret, masked_url, redacted, secret_forms

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_POSTGRES_SCHEMES = ("postgresql", "postgres", "postgresql+psycopg")
_CONNINFO = re.compile(r"(?:^|\s)(?:host|hostaddr|port|dbname|user|password|passfile|sslmode|service)\s*=")
_HELP = "give a file path, sqlite:///path or postgresql://user@host/database"
LEAST_CONNECT_TIMEOUT = 2  # seconds: libpq waits at least this long for a connection


@dataclass(frozen=True)
class StoreUrl:
    url: str = field(repr=False)  # for SQLAlchemy: sqlite:////abs/path or postgresql+psycopg://user@host/db
    path: Path | None  # the SQLite file, None for a server
    shown: str  # for messages: every credential masked
    setting: str | None = None  # the setting the store came from (for messages), None when given directly
    secrets: tuple[str, ...] = field(default=(), repr=False, compare=False)  # what ``redact`` takes out
    connect_timeout: int | None = None  # the URL's own connect_timeout, which wins over the store's

    @property
    def dialect(self) -> str:
        return "sqlite" if self.path is not None else "postgresql"

    def redact(self, text: str) -> str:
        """``text`` (e.g. a driver's message) without this URL's credentials."""
        return redacted(text, self.secrets)


def store_url(value: str | Path, base: Path | None = None, field: str = "storage.database") -> StoreUrl:
    """``value`` as a store: a path (relative to ``base``) or ``sqlite:///`` URL is a SQLite file, a
    ``postgresql://`` (``postgres://``) URL a server reached with psycopg 3. Raises ``StoreSettingError``
    (a ``ConfigError``) naming ``field``."""
    if isinstance(value, Path):
        return _sqlite(value, base, field)
    text = value.strip()
    if not text:
        raise StoreSettingError(f"empty: {_HELP}", setting=field)
    scheme = _SCHEME.match(text)
    if scheme is None or re.fullmatch(r"[A-Za-z]:[\\/].*", text):  # no scheme, or a Windows drive
        if _CONNINFO.search(text):  # shown not even masked: its secrets have no fixed place
            raise StoreSettingError("a libpq key=value connection string: write it as a URL, "
                                    "postgresql://user@host/database", setting=field)
        return _sqlite(Path(text), base, field)
    name = scheme.group(1).lower()
    rest = text[scheme.end():]
    shown = repr(masked_url(text))
    if name == "sqlite":
        if not rest.startswith("///") or len(rest) == 3:
            raise StoreSettingError("a SQLite URL is sqlite:///relative/path or sqlite:////absolute/path", shown, field)
        return _sqlite(Path(rest[3:]), base, field)
    if name in _POSTGRES_SCHEMES:
        return _postgresql(rest, shown, field)
    raise StoreSettingError(f"{name}:// is not a supported store: {_HELP}", shown, field)


def _postgresql(rest: str, shown: str, field: str) -> StoreUrl:
    if not rest.startswith("//") or len(rest) == 2:
        raise StoreSettingError("a PostgreSQL URL is postgresql://user@host/database", shown, field)
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url("postgresql+psycopg:" + rest)
    except (ArgumentError, ValueError):
        raise StoreSettingError("not a PostgreSQL URL", shown, field) from None
    if "@" in (url.host or ""):
        raise StoreSettingError("the user or password holds an @: write it as %40", shown, field)
    if not url.database:
        raise StoreSettingError("the URL names no database (postgresql://user@host/database)", shown, field)
    secrets = secret_forms([url.password if isinstance(url.password, str) else None,
                            *(v for k, vs in url.query.items() if is_secret(k)
                              for v in ((vs,) if isinstance(vs, str) else vs))])
    full = url.render_as_string(hide_password=False)
    return StoreUrl(full, None, redacted(masked_url(full), secrets), field, secrets,
                    _connect_timeout(url.query.get("connect_timeout"), shown, field))


def _connect_timeout(value: str | tuple[str, ...] | None, shown: str, field: str) -> int | None:
    """The URL's own ``connect_timeout`` (libpq's name): a whole number of seconds, at least 2."""
    if value is None:
        return None
    text = value if isinstance(value, str) else value[-1]
    if not text.isdigit() or int(text) < LEAST_CONNECT_TIMEOUT:
        raise StoreSettingError(f"connect_timeout: expected a whole number of seconds, at least "
                                f"{LEAST_CONNECT_TIMEOUT}", shown, field)
    return int(text)


def _sqlite(path: Path, base: Path | None, field: str) -> StoreUrl:
    full = path if path.is_absolute() or base is None else base / path
    return StoreUrl(f"sqlite:///{full}", full, str(full), field)
