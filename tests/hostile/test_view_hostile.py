"""A video second from the URL, a chip or the number field that no player can start at: the Ask page opens
the video at a second it has (from 0 to the end of its transcript, at most a day), never an exception."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import studio.view_state as vs
from tests.conftest import ROOT

CATALOG = vs.Catalog((vs.CourseInfo(1, "Algorithms", (
    vs.UnitInfo(101, "Merge sort", 17, has_video=True, length=380.2),
    vs.UnitInfo(102, "A video without transcript", 0, has_video=True),
)),))


@pytest.fixture(autouse=True)
def isolated_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("CITATION_STUDIO_DB", str(tmp_path / "lms.sqlite3"))
    monkeypatch.chdir(ROOT)
    st.cache_resource.clear()
    yield
    st.cache_resource.clear()


@pytest.mark.parametrize(("second", "opened"), [
    ("2147483648", 380.2), ("1e308", 380.2), ("inf", 0.0), ("nan", 0.0), ("-5", 0.0), ("99999999999999999999", 380.2),
    ("120", 120.0),
])
def test_a_url_second_opens_within_the_video(second: str, opened: float) -> None:
    state = vs.reload(CATALOG, {"course": "1", "unit": "101", "view": "video", "second": second}, lambda _: None, None)
    assert (state.mode, state.second) == ("video", opened)


def test_without_a_known_length_a_second_is_at_most_a_day() -> None:
    state = vs.reload(CATALOG, {"course": "1", "unit": "102", "view": "video", "second": "2147483648"},
                      lambda _: None, None)
    assert state.second == vs.MAX_SECOND
    clicked = vs.apply_click(state, CATALOG, {"kind": "video", "unitId": 102, "start": 1e300, "end": 1e301,
                                              "nonce": "n1"})
    assert clicked.second == clicked.until == vs.MAX_SECOND
    assert vs.select_second(state, CATALOG, 5e9).second == vs.MAX_SECOND


@pytest.mark.parametrize("second", ["2147483648", "1e308"])
def test_the_ask_page_opens_a_url_second_past_the_end_at_the_end(second: str) -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "ask.py"), default_timeout=60)
    for name, value in {"course": "1", "unit": "101", "view": "video", "second": second}.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, at.exception
    captions = " ".join(m.value for m in at.markdown)
    assert "Video · opened at 6:20" in captions  # the sample transcript's last cue ends at 6:20.2


def test_a_url_quote_that_is_not_on_the_slide_is_shown_as_text() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "ask.py"), default_timeout=60)
    quote = "<img src=x onerror=alert(1)> **bold** [link](javascript:alert(1))"
    for name, value in {"course": "1", "unit": "101", "view": "slides", "page": "6", "lit": quote}.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, at.exception
    caption = next(c.value for c in at.caption if "could not be found" in c.value)
    # every Markdown-active character escaped: no image, no emphasis, no link
    assert caption.endswith(r"they read: \<img src=x onerror=alert\(1\)\> \*\*bold\*\* "
                            r"\[link\]\(javascript\:alert\(1\)\)")
