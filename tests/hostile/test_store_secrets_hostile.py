"""The store's credentials never reach a visitor, a message or the log.

``CITATION_STUDIO_DB`` may carry a password in libpq's every form: in the user info (also with an
unencoded ``@`` in it), as the query parameter ``password=``, or as another secret-like parameter
(``sslpassword``, ``passfile``, a token, a key). Messages show the URL with each of them as ``***``;
visitors of the app see only that the store is unavailable and why, and the server log names the
setting with the masked URL.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from citation_core.errors import ConfigError, RunError
from citation_core.lms.store import LmsStore
from citation_core.lms.store_url import store_url
from studio.settings import load_settings
from tests.conftest import ROOT

SECRET = "S3cr3tPw"
NOWHERE = "127.0.0.1:9"  # the discard port: nothing listens, the connection is refused at once


def read(markdown: str) -> str:
    """What a reader sees of Markdown the app escaped (``studio.text.md_escape``)."""
    return re.sub(r"\\(.)", r"\1", markdown)


@pytest.mark.parametrize(("value", "shown"), [
    (f"postgresql://citation@{NOWHERE}/lms?password={SECRET}",
     f"postgresql+psycopg://citation@{NOWHERE}/lms?password=***"),
    (f"postgresql://citation:{SECRET}@{NOWHERE}/lms", f"postgresql+psycopg://citation:***@{NOWHERE}/lms"),
    (f"postgresql://citation:{SECRET}%40x@{NOWHERE}/lms", f"postgresql+psycopg://citation:***@{NOWHERE}/lms"),
    (f"postgres://citation@{NOWHERE}/lms?sslpassword={SECRET}&passfile=/run/{SECRET}&sslmode=require"
     f"&sslkey=/run/{SECRET}.key",
     f"postgresql+psycopg://citation@{NOWHERE}/lms?passfile=***&sslkey=***&sslmode=require&sslpassword=***"),
])
def test_every_credential_form_is_masked_in_the_url_shown_and_in_a_failure(value: str, shown: str) -> None:
    url = store_url(value, field="CITATION_STUDIO_DB")
    assert url.shown == shown
    assert SECRET not in repr(url)
    with pytest.raises(RunError) as err:
        LmsStore(url)
    assert str(err.value) == f"CITATION_STUDIO_DB: {shown}: the database server refused the connection"
    assert SECRET not in repr(err.value) and err.value.__cause__ is None and err.value.__context__ is None


@pytest.mark.parametrize(("value", "shown"), [
    # libpq, and SQLAlchemy after it, would read the host as "Pw@127.0.0.1"
    (f"postgresql://citation:{SECRET}@Pw@{NOWHERE}/lms", f"'postgresql://citation:***@{NOWHERE}/lms'"),
    (f"postgresql:citation:{SECRET}@localhost/lms", "'postgresql:citation:***@localhost/lms'"),
    (f"mysql://citation:{SECRET}@Pw@{NOWHERE}/lms?password={SECRET}",
     f"'mysql://citation:***@{NOWHERE}/lms?password=***'"),
])
def test_a_url_that_cannot_be_used_is_refused_with_its_credentials_masked(value: str, shown: str) -> None:
    with pytest.raises(ConfigError) as err:
        store_url(value, field="CITATION_STUDIO_DB")
    assert str(err.value).startswith(f"CITATION_STUDIO_DB: {shown}: ")
    assert SECRET not in str(err.value) and "Pw" not in str(err.value)


def test_a_secret_like_parameter_libpq_does_not_know_is_masked_too() -> None:
    value = (f"postgresql://citation@{NOWHERE}/lms?PASSWORD={SECRET}&api_token={SECRET}&client_secret={SECRET}"
             f"&pass%77ord={SECRET}&application_name=studio")
    url = store_url(value, field="CITATION_STUDIO_DB")
    assert url.shown == (f"postgresql+psycopg://citation@{NOWHERE}/lms?PASSWORD=***&api_token=***"
                         "&application_name=studio&client_secret=***&password=***")
    with pytest.raises(RunError) as err:
        LmsStore(url)
    assert str(err.value) == (f"CITATION_STUDIO_DB: {url.shown}: the URL has a parameter PostgreSQL does not know: "
                              'invalid connection option "PASSWORD"')


def test_a_libpq_key_value_string_is_refused_without_echoing_it() -> None:
    with pytest.raises(ConfigError) as err:
        store_url(f"host=db dbname=lms user=citation password={SECRET}", field="CITATION_STUDIO_DB")
    assert str(err.value) == ("CITATION_STUDIO_DB: a libpq key=value connection string: write it as a URL, "
                              "postgresql://user@host/database")


def test_an_unencoded_at_sign_in_the_password_is_named() -> None:
    with pytest.raises(ConfigError) as err:
        store_url(f"postgresql://citation:{SECRET}@Pw@{NOWHERE}/lms", field="CITATION_STUDIO_DB")
    assert str(err.value) == (f"CITATION_STUDIO_DB: 'postgresql://citation:***@{NOWHERE}/lms': the user or password "
                              "holds an @: write it as %40")


def test_the_settings_never_print_the_password(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("CITATION_STUDIO_DB", f"postgresql://citation:{SECRET}@db/lms?sslpassword={SECRET}")
    settings = load_settings()
    assert SECRET not in repr(settings) and SECRET not in str(settings)


@pytest.fixture
def server_log(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """What the app writes to its server log about the store."""
    logger = logging.getLogger("studio.store_status")
    logger.addHandler(caplog.handler)
    try:
        yield caplog
    finally:
        logger.removeHandler(caplog.handler)


@pytest.fixture
def app_at(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CITATION_STUDIO_CONFIG_DIR", str(ROOT))
    st.cache_resource.clear()
    yield tmp_path
    st.cache_resource.clear()


@pytest.mark.parametrize("value", [f"postgresql://citation@{NOWHERE}/lms?password={SECRET}",
                                   f"postgresql://citation:{SECRET}@Pw@{NOWHERE}/lms"])
def test_visitors_are_told_the_store_is_unavailable_and_the_server_log_names_the_setting(
        app_at: Path, monkeypatch: pytest.MonkeyPatch, server_log: pytest.LogCaptureFixture, value: str) -> None:
    monkeypatch.setenv("CITATION_STUDIO_DB", value)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception
    (shown,) = [read(e.value) for e in at.error]
    assert shown.startswith("The store is unavailable: CITATION_STUDIO_DB: ")
    assert shown.endswith(". The server log has the details.")
    assert "postgresql" not in shown and NOWHERE not in shown and SECRET not in shown
    (logged,) = [r.getMessage() for r in server_log.records if r.name == "studio.store_status"]
    assert logged.startswith("CITATION_STUDIO_DB: ") and "***" in logged and NOWHERE in logged
    assert SECRET not in logged and "Pw" not in logged
