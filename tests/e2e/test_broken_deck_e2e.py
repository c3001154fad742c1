"""A course with one deck that cannot be read: the Library names it once, Ask still answers in the other unit."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.material_fixtures import make_course, make_pdf, write_yaml

from .harness import ask, choose, open_ask, wait_idle

pytestmark = pytest.mark.e2e


def course_with_a_bad_deck(root: Path) -> Path:
    make_course(root)
    make_pdf(root / "decks" / "quicksort.pdf", [["Quicksort", "Partition around a pivot"]])
    (root / "decks" / "broken.pdf").write_bytes(b"%PDF-1.7\n% a deck cut off while it was copied\n1 0 obj <<")
    data: dict[str, Any] = yaml.safe_load((root / "course.yml").read_text(encoding="utf-8"))
    data.update(id=77, name="Sorting demo")
    data["lectures"][0]["units"] += [{"id": 102, "name": "Broken deck", "deck": "decks/broken.pdf"},
                                     {"id": 103, "name": "Quicksort", "deck": "decks/quicksort.pdf"}]
    write_yaml(root / "course.yml", data)
    return root


def test_one_unreadable_deck_leaves_the_rest_of_the_course_working(
    tmp_path: Path, start_app: Callable[..., str], new_page: Callable[..., tuple[Any, list[str]]]
) -> None:
    url = start_app({"CITATION_STUDIO_LIBRARY": str(course_with_a_bad_deck(tmp_path / "lib"))})
    page, errors = new_page()
    open_ask(page, url)
    choose(page, "Course", "Sorting demo (id 77)")
    page.get_by_label("Lecture unit").click()
    offered = page.get_by_role("option").all_inner_texts()
    page.keyboard.press("Escape")
    assert any("Merge sort" in o for o in offered) and any("Quicksort" in o for o in offered)
    assert not any("Broken deck" in o for o in offered)
    ask(page, "How are two sorted halves merged?")
    answer = page.locator("[data-testid=stChatMessage]").last
    answer.locator("button.cite-chip--slide").first.wait_for(timeout=15_000)
    assert page.get_by_test_id("stException").count() == 0

    page.get_by_role("link", name="Library").click()
    page.get_by_text("Upload a deck").wait_for(timeout=60_000)
    wait_idle(page)
    choose(page, "Course", "Sorting demo (id 77)")
    said = page.get_by_test_id("stAlertContentWarning").filter(has_text="broken.pdf")
    said.first.wait_for(timeout=15_000)
    assert said.count() == 1
    assert "unit 102 “Broken deck” is left out" in said.first.inner_text()
    assert page.get_by_test_id("stException").count() == 0
    assert errors == []
