"""The Library page with a deck of 2,000 pages: a first view renders a bounded number of thumbnails."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from citation_core.material.uploads import Upload, add_upload
from tests.conftest import ROOT
from tests.material_fixtures import make_pdf

PAGES = 2000
LIBRARY_COURSE = "My uploads (id 900)"


@pytest.fixture()
def big_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    pdf = make_pdf(tmp_path / "big.pdf", [[f"Topic {n}", "text", f"{n} / {PAGES}"] for n in range(1, PAGES + 1)])
    library = tmp_path / "library"
    add_upload(library, Upload("big_deck.pdf", pdf.read_bytes()))
    monkeypatch.setenv("CITATION_STUDIO_DB", str(tmp_path / "lms.sqlite3"))
    monkeypatch.setenv("CITATION_STUDIO_LIBRARY", str(library))
    monkeypatch.chdir(ROOT)
    st.cache_resource.clear()
    st.cache_data.clear()
    yield library
    st.cache_resource.clear()
    st.cache_data.clear()


def shown_pages(at: AppTest) -> list[int]:
    return [int(c.value.split(" · ")[0].removeprefix("page ")) for c in at.caption if c.value.startswith("page ")]


@pytest.mark.timeout(240)
def test_a_2000_page_deck_shows_24_thumbnails_and_a_range_selector(big_library: Path) -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "library.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    at.selectbox(key="w_library_course").select(LIBRARY_COURSE).run()
    assert not at.exception, at.exception
    assert f"Deck 9001\\_big\\_deck\\.pdf · {PAGES} pages" in [m.value for m in at.markdown]
    assert len(at.image) == 24
    assert shown_pages(at) == list(range(1, 25))

    ranges = at.selectbox(key="thumbnails_900_9001")
    assert ranges.label == "Pages shown"
    assert len(ranges.options) == 84  # 83 ranges of 24 pages and the last 8
    assert (ranges.options[0], ranges.options[-1]) == ("pages 1–24", "pages 1993–2000")

    ranges.select((1992, 2000)).run()
    assert not at.exception, at.exception
    assert len(at.image) == 8
    assert shown_pages(at) == list(range(1993, 2001))
    ranges = at.selectbox(key="thumbnails_900_9001")
    ranges.select((24, 48)).run()
    assert shown_pages(at) == list(range(25, 49))


def test_a_small_deck_has_no_range_selector(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITATION_STUDIO_DB", str(tmp_path / "lms.sqlite3"))
    monkeypatch.setenv("CITATION_STUDIO_LIBRARY", str(tmp_path / "library"))
    monkeypatch.chdir(ROOT)
    st.cache_resource.clear()
    at = AppTest.from_file(str(ROOT / "pages" / "library.py"), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    # the sample course: 17, 16 and 15 pages, every one shown, and only the course selector
    assert len(at.image) == 17 + 16 + 15
    assert [s.label for s in at.selectbox if not (s.key or "").startswith("up_")] == ["Course"]  # no range picker
    st.cache_resource.clear()
