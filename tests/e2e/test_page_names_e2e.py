"""A real LibreOffice deck that prints no numbers, 16 of its 20 pages titled "Cython": the answer, the chip and the
viewer name a slide by its place in the deck, and the chip's click opens that page."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REAL_DIR
from tests.material_fixtures import write_yaml

from .harness import ask, caption_text, choose, open_ask, wait_caption

pytestmark = [pytest.mark.e2e, pytest.mark.real]


def cython_course(root: Path) -> Path:
    (root / "decks").mkdir(parents=True)
    shutil.copy(REAL_DIR / "decks" / "en_tut_python_lec8.pdf", root / "decks" / "lec8.pdf")
    write_yaml(root / "course.yml", {"id": 88, "name": "Python 3", "language": "en", "lectures": [
        {"id": 1, "name": "Lecture 8", "units": [
            {"id": 80, "name": "HPC in Python", "deck": "decks/lec8.pdf", "language": "en"}]}]})
    return root


def test_unnumbered_slides_are_named_by_their_place_in_answer_chip_and_viewer(
    tmp_path: Path, start_app: Callable[..., str], new_page: Callable[..., tuple[Any, list[str]]]
) -> None:
    url = start_app({"CITATION_STUDIO_LIBRARY": str(cython_course(tmp_path / "lib"))})
    page, errors = new_page()
    open_ask(page, url)
    choose(page, "Course", "Python 3 (id 88)")
    assert caption_text(page) == "Unnumbered slide (page 1 of 20)"
    ask(page, "How do I declare the type of a variable in Cython?")
    answer = page.locator("[data-testid=stChatMessage]").last
    text = answer.locator(".cite-answer__body").first.inner_text()
    lead = text.strip().splitlines()[0]
    # 16 pages share the title "Cython": the lead names the slide by its place alone
    assert re.fullmatch(r"Page \d+ of 20 says:", lead), text
    chip = answer.locator("button.cite-chip--slide").first
    chip.hover()
    where = answer.locator(".cite-tip__where").first
    where.wait_for(state="visible")
    named = re.fullmatch(r"Page (\d+) of 20( “.+”)?", where.text_content() or "")
    assert named, where.text_content()
    page.mouse.move(0, 0)
    chip.click()
    wait_caption(page, f"(page {named.group(1)} of 20)")
    assert errors == []
