"""Shared fixtures: repository paths, the contract vectors, the real material, the browser and the app.

* ``repo_root``, ``sample_course``: the checkout and its sample course (``sample_decks/``).
* ``contract_vectors`` / ``contract_cases``: ``citation_core/contract/vectors.json``; a test with a
  ``contract_case`` argument runs once per case (ids are the case names).
* ``real_dir`` and the ``real`` marker: the real decks and transcripts copied into ``tests/material_real``;
  both skip the test with a reason when that folder is absent.
* ``chromium``: one headless Chromium (Debian's /usr/bin/chromium) for the whole session; skips when
  it is missing. ``new_page`` opens pages in their own contexts and closes them afterwards.
* ``start_app``: the real app (``tests.e2e.harness.running_app``) with its own database, stopped at
  the end of the test.
* ``postgres_server``: one real PostgreSQL server per test worker (``citation_core.testing.postgres``);
  skips the test with a reason when the PostgreSQL server programs are not installed.
  ``postgres_url``: the SQLAlchemy URL of a fresh database of that server for one test, dropped after it.

Code that needs a path at import time (module constants, ``parametrize`` lists) imports ``ROOT``,
``SAMPLE_COURSE``, ``CONTRACT_VECTORS`` or ``REAL_DIR`` from here; everything else takes the fixtures.

Tests that use ``chromium`` and everything under ``tests/e2e`` carry the ``e2e`` marker; the tests that
use ``chromium`` run last, so that the rest of the suite runs before (and without) the browser.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from citation_core.testing.postgres import PostgresServer, find_bindir, running_postgres
from tests.e2e.harness import CHROMIUM, launch, running_app

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_COURSE = ROOT / "sample_decks"
CONTRACT_VECTORS = ROOT / "citation_core" / "contract" / "vectors.json"
REAL_DIR = ROOT / "tests" / "material_real"  # copies of the real decks and transcript (README there)
REAL_MISSING = f"needs the real decks and transcripts in {REAL_DIR}"
E2E_DIR = Path(__file__).resolve().parent / "e2e"


def _contract_cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads(CONTRACT_VECTORS.read_text(encoding="utf-8"))["cases"]
    return cases


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "contract_case" in metafunc.fixturenames:
        cases = _contract_cases()
        metafunc.parametrize("contract_case", cases, ids=[c["name"] for c in cases])


def _uses_chromium(item: pytest.Item) -> bool:
    return "chromium" in getattr(item, "fixturenames", ())


@pytest.hookimpl(tryfirst=True)  # before ``-m`` selects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _uses_chromium(item) or E2E_DIR in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.e2e)
    # The shared browser starts with the first test that needs it and lives to the end of the session:
    # those tests run last (in their own order), after every test that does without it.
    items[:] = [i for i in items if not _uses_chromium(i)] + [i for i in items if _uses_chromium(i)]


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("real") is not None and not REAL_DIR.is_dir():
        pytest.skip(REAL_MISSING)


@pytest.fixture(scope="session", autouse=True)
def own_caches(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Parsed decks and page-image readings go to folders of this test run (the apps it starts inherit them),
    never to the user's ``~/.cache``: a run starts cold and leaves nothing behind. A test may point them
    elsewhere with ``monkeypatch``."""
    from citation_core.material import deck_cache, ocr

    base = tmp_path_factory.mktemp("caches")
    saved = {name: os.environ.get(name) for name in (deck_cache.CACHE_ENV, ocr.CACHE_ENV)}
    os.environ[deck_cache.CACHE_ENV] = str(base / "decks")
    os.environ[ocr.CACHE_ENV] = str(base / "ocr")
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def sample_course() -> Path:
    return SAMPLE_COURSE


@pytest.fixture(scope="session")
def contract_vectors() -> Path:
    return CONTRACT_VECTORS


@pytest.fixture(scope="session")
def contract_cases() -> list[dict[str, Any]]:
    return _contract_cases()


@pytest.fixture(scope="session")
def real_dir() -> Path:
    if not REAL_DIR.is_dir():
        pytest.skip(REAL_MISSING)
    return REAL_DIR


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium to run the browser tests")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = launch(pw)
        yield browser
        browser.close()


@pytest.fixture()
def new_page(chromium: Any) -> Iterator[Callable[..., tuple[Any, list[str]]]]:
    """``new_page(width=1280, height=800)``: a page in a fresh context and the list its uncaught errors go to."""
    contexts: list[Any] = []

    def make(width: int = 1280, height: int = 800) -> tuple[Any, list[str]]:
        ctx = chromium.new_context(viewport={"width": width, "height": height})
        contexts.append(ctx)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        return page, errors

    yield make
    for ctx in contexts:
        ctx.close()


@pytest.fixture()
def start_app(tmp_path: Path) -> Iterator[Callable[..., str]]:
    """``start_app(env=None)``: the app's URL; it has its own database unless ``env`` names one."""
    with ExitStack() as stack:

        def start(env: dict[str, str] | None = None) -> str:
            url: str = stack.enter_context(
                running_app({"CITATION_STUDIO_DB": str(tmp_path / "lms.sqlite3"), **(env or {})}))
            return url

        yield start


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One PostgreSQL server for this test worker, stopped and removed at the end of the session."""
    try:
        find_bindir()
    except RuntimeError as e:  # only a missing installation skips: a server that fails to start is an error
        pytest.skip(str(e))
    with running_postgres() as server:
        yield server


@pytest.fixture()
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """The SQLAlchemy URL (``postgresql+psycopg://``) of a new, empty database of its own for this test."""
    name = f"t{uuid.uuid4().hex}"
    yield postgres_server.new_database(name)
    postgres_server.drop_database(name)
