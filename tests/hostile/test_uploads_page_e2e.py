"""The Library page in Chromium, with browser uploads whose names are hostile.

Playwright sets the file chooser's files with any ``name``; the page must answer each upload with
one line (success or error), never an exception box, and nothing may appear outside the library
folder the app was started with.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SAMPLE_COURSE
from tests.e2e.harness import wait_idle, wait_uploaded

DECK = (SAMPLE_COURSE / "decks" / "hash_tables.pdf").read_bytes()
# the unit is named after the PDF's title ("Hash Tables"), whatever the file is called
ADDED = ("Added “Hash Tables” to the course “My uploads”, lecture “Uploaded decks” (unit {id}, 16 pages, "
         "language English (en), attachment version 1).")


def files_outside(tmp_path: Path, library: Path) -> list[str]:
    found: list[str] = []
    for folder, _, files in os.walk(tmp_path):
        here = Path(folder)
        if here == library or library in here.parents:
            continue
        found.extend(str((here / f).relative_to(tmp_path)) for f in files if not f.startswith("lms.sqlite3"))
    return sorted(found)


def upload(page: Any, name: str, data: bytes) -> tuple[str, str]:
    """Upload one deck through the form; the kind and text of the one alert the page shows."""
    page.locator("input[type=file]").first.set_input_files(
        files=[{"name": name, "mimeType": "application/pdf", "buffer": data}])
    wait_uploaded(page.locator("[data-testid=stFileChip]").first)
    # the page reads the chosen deck (its title and language) in a rerun: the click waits for it to end, or
    # the rerun's new form can swallow it
    wait_idle(page)
    page.get_by_role("button", name="Add to library").click()
    try:
        page.locator("[data-testid=stAlert], [data-testid=stException]").first.wait_for(timeout=60_000)
    except Exception as exc:  # say what the page showed instead, so a failure can be read from the log
        shown = page.locator("[data-testid=stMain]").inner_text(timeout=5_000)
        raise AssertionError(f"no alert for the upload {name!r}; the page shows:\n{shown}") from exc
    wait_idle(page)
    assert page.locator("[data-testid=stException]").count() == 0, page.locator(
        "[data-testid=stException]").first.inner_text()
    alert = page.locator("[data-testid=stAlert]")
    assert alert.count() == 1
    kind = "success" if alert.locator("[data-testid=stAlertContentSuccess]").count() else (
        "error" if alert.locator("[data-testid=stAlertContentError]").count() else "other")
    return kind, alert.inner_text().strip()


@pytest.mark.timeout(300)
def test_hostile_upload_names_through_the_library_page(
    tmp_path: Path, start_app: Callable[..., str], new_page: Callable[..., tuple[Any, list[str]]]
) -> None:
    library, outside = tmp_path / "library", tmp_path / "outside"
    outside.mkdir()
    url = start_app({"CITATION_STUDIO_LIBRARY": str(library), "CITATION_STUDIO_DB": str(tmp_path / "lms.sqlite3")})
    page, errors = new_page()
    escape = "../" * 12 + str(outside).lstrip("/")

    cases = [
        (f"{escape}/ESCAPED.pdf", b"not a pdf", ("error", "ESCAPED.pdf: not a PDF file (no %PDF header)")),
        (f"{escape}/ESCAPED.pdf", DECK, ("success", ADDED.format(id=9001))),
        (f"{outside}/ABSOLUTE.pdf", DECK, ("success", ADDED.format(id=9002))),
        ("<script>alert(1)</script>.pdf", DECK, ("success", ADDED.format(id=9003))),
        ("..\\..\\outside\\nul\x00.pdf", b"%PDF-1.4 cut",
         ("error", "nul .pdf: corrupt or truncated PDF (Stream has ended unexpectedly)")),
        ("..", DECK, ("error", "..: a deck must be .pdf, got no extension")),
    ]
    for name, data, (kind, text) in cases:
        page.goto(f"{url}/library")
        page.get_by_text("Upload a deck").wait_for(timeout=60_000)
        wait_idle(page)
        page.get_by_text("Upload a deck").click()
        shown_kind, shown = upload(page, name, data)
        assert (shown_kind, shown) == (kind, text), name
        assert files_outside(tmp_path, library) == [], name
    assert sorted(p.name for p in (library / "decks").iterdir()) == [
        "9001_ESCAPED.pdf", "9002_ABSOLUTE.pdf", "9003_script.pdf"]
    assert errors == []
