"""Slide images reach the browser as the PNG the app rendered: no decoding and re-encoding on each rerun."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit as st
from PIL import Image
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture()
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[bytes, str]]]:
    """Every (file, mimetype) Streamlit's media file manager is given while the test runs."""
    seen: list[tuple[bytes, str]] = []
    add = MediaFileManager.add

    def spy(self: MediaFileManager, path_or_data: bytes | str, mimetype: str, *args: object, **kwargs: object) -> str:
        if isinstance(path_or_data, bytes):
            seen.append((path_or_data, mimetype))
        return add(self, path_or_data, mimetype, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(MediaFileManager, "add", spy)
    yield seen


def png_of(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (40, 90, 160)).save(out, format="PNG")
    return out.getvalue()


SCRIPT = """
import streamlit as st
from studio.widgets import slide_image

slide_image(st.session_state["png"])
"""


def test_slide_image_registers_the_png_untouched(registered: list[tuple[bytes, str]]) -> None:
    png = png_of(960, 540)  # no transparency: left to itself, st.image would send a JPEG
    at = AppTest.from_string(SCRIPT, default_timeout=30)
    at.session_state["png"] = png
    at.run()
    assert not at.exception, at.exception
    assert registered == [(png, "image/png")]
    assert len(at.get("image")) == 1


def test_slide_image_in_a_narrow_width_still_sends_a_png(registered: list[tuple[bytes, str]]) -> None:
    at = AppTest.from_string(SCRIPT.replace('st.session_state["png"])', 'st.session_state["png"], width=200)'),
                             default_timeout=30)
    at.session_state["png"] = png_of(960, 540)
    at.run()
    assert not at.exception, at.exception
    ((data, mimetype),) = registered
    assert mimetype == "image/png" and data.startswith(PNG_SIGNATURE)
    with Image.open(io.BytesIO(data)) as image:
        assert image.width == 200


@pytest.fixture()
def library_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("CITATION_STUDIO_DB", str(tmp_path / "lms.sqlite3"))
    monkeypatch.setenv("CITATION_STUDIO_LIBRARY", str(tmp_path / "library"))
    monkeypatch.chdir(ROOT)
    st.cache_resource.clear()
    yield
    st.cache_resource.clear()


def test_library_thumbnails_are_the_rendered_pngs(library_store: None, registered: list[tuple[bytes, str]]) -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "library.py"), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert len(registered) >= 17  # every page of the first unit's deck, at least
    assert {mimetype for _, mimetype in registered} == {"image/png"}
    assert all(data.startswith(PNG_SIGNATURE) for data, _ in registered)
