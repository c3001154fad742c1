"""The app's own settings from ``application.yml``: database, course folders, uploads.

They sit beside the model roles in the same file; relative paths are relative to the working folder
(``make run`` starts in the checkout), or to ``$CITATION_STUDIO_CONFIG_DIR`` when that is set.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from citation_core import config_fields as fields
from citation_core.errors import ConfigError
from citation_core.llm.config import CONFIG_DIR_ENV, config_dir
from citation_core.lms.store import CONNECT_TIMEOUT
from citation_core.lms.store_url import LEAST_CONNECT_TIMEOUT, StoreUrl, store_url
from citation_core.yaml_file import read_yaml

DB_ENV = "CITATION_STUDIO_DB"
LIBRARY_ENV = "CITATION_STUDIO_LIBRARY"
FILE = "application.yml"


@dataclass(frozen=True)
class Settings:
    database: StoreUrl  # a SQLite file or a PostgreSQL database (``storage.database`` or $CITATION_STUDIO_DB)
    course_dirs: tuple[Path, ...]
    library_dir: Path  # the user's uploads, a course folder of its own
    max_upload_mb: int = 50
    connect_timeout: int = CONNECT_TIMEOUT  # seconds a PostgreSQL connection may take (``storage.connect_timeout``)


def load_settings() -> Settings:
    configured = os.environ.get(CONFIG_DIR_ENV)
    base = Path(configured) if configured else Path.cwd()
    raw = read_yaml(config_dir().joinpath("application.yml"), ConfigError)
    app = raw if isinstance(raw, dict) else {}
    storage = fields.settings(app.get("storage"), f"{FILE}: storage")
    material = fields.settings(app.get("material"), f"{FILE}: material")
    max_mb = fields.whole(material.get("max_upload_mb", 50), f"{FILE}: material.max_upload_mb",
                          "a whole number of megabytes > 0", least=1)

    def path(value: object, where: str) -> Path:
        p = Path(fields.text(value, where, "a folder"))
        return p if p.is_absolute() else base / p

    dirs = material.get("course_dirs", ["sample_decks"]) or []
    if not isinstance(dirs, list):
        raise ConfigError(f"{FILE}: material.course_dirs: expected a list of folders, not {fields.shown(dirs)}")
    library = os.environ.get(LIBRARY_ENV)
    return Settings(
        database=_database(storage, base),
        course_dirs=tuple(path(d, f"{FILE}: material.course_dirs[{i}]") for i, d in enumerate(dirs)),
        library_dir=path(library, LIBRARY_ENV) if library else path(material.get("library_dir", "data/library"),
                                                                     f"{FILE}: material.library_dir"),
        max_upload_mb=max_mb,
        connect_timeout=_connect_timeout(storage),
    )


def _connect_timeout(storage: dict[str, object]) -> int:
    """``storage.connect_timeout``: a whole number of seconds, at least libpq's least (2)."""
    value = storage.get("connect_timeout", CONNECT_TIMEOUT)
    if isinstance(value, bool) or not isinstance(value, int) or value < LEAST_CONNECT_TIMEOUT:
        raise ConfigError("application.yml: storage.connect_timeout: expected a whole number of seconds, at least "
                          f"{LEAST_CONNECT_TIMEOUT} (not {value!r})")
    return value


def _database(storage: dict[str, object], base: Path) -> StoreUrl:
    """The store: ``$CITATION_STUDIO_DB`` over ``storage.database``; a path, ``sqlite:///…`` or ``postgresql://…``."""
    if os.environ.get(DB_ENV):
        return store_url(os.environ[DB_ENV], base, field=DB_ENV)
    value = storage.get("database", "data/citation_studio.sqlite3")
    if not isinstance(value, str):
        raise ConfigError("application.yml: storage.database: expected a path or a URL")
    return store_url(value, base, field="application.yml: storage.database")
