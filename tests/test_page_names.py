"""A slide that prints no number is named by its place in the deck ("page 12 of 20", "Seite 12 von 20"), with its
title beside it only when no other page has that title; everywhere a person reads its name."""

from __future__ import annotations

import shutil

import pytest

from citation_core.chat.chat_pipeline import ChatPipeline
from citation_core.chat.view import ViewPosition
from citation_core.contract import parse
from citation_core.llm.config import default_config
from citation_core.lms.sources_list import source_lines
from citation_core.material.library import CourseMaterial, load_material
from tests.conftest import REAL_DIR
from tests.material_fixtures import write_yaml

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def cython(tmp_path_factory: pytest.TempPathFactory) -> CourseMaterial:
    """A LibreOffice deck (CC BY-SA) that prints no numbers; pages 3-18 are all titled "Cython"."""
    root = tmp_path_factory.mktemp("cython")
    (root / "decks").mkdir()
    shutil.copy(REAL_DIR / "decks" / "en_tut_python_lec8.pdf", root / "decks" / "lec8.pdf")
    write_yaml(root / "course.yml", {"id": 8, "name": "Python 3", "language": "en", "lectures": [
        {"id": 1, "name": "Lecture 8", "units": [
            {"id": 80, "name": "HPC in Python", "deck": "decks/lec8.pdf", "language": "en"}]}]})
    return load_material(root)


def test_pages_sharing_a_title_are_named_by_their_place_alone(cython: CourseMaterial) -> None:
    um = cython.unit(80)
    assert um.page_label(12) == "page 12 of 20"
    assert um.page_label(2) == "page 2 of 20 (“HPC in Python”)"


@pytest.mark.parametrize(("language", "lead"), [("en", "Page {p} of 20"), ("de", "Seite {p} von 20")])
def test_the_answer_names_an_unnumbered_slide_by_its_place(
        cython: CourseMaterial, language: str, lead: str) -> None:
    result = ChatPipeline(default_config(), cython)(
        "How do I declare the type of a variable in Cython?", ViewPosition(80, page=5), language=language)
    markers = parse(result.answer, "stored")
    pages = [m.page for m in markers if m.page is not None]
    assert pages, result.answer
    assert lead.format(p=pages[0]) in result.answer
    assert "“Cython”" not in result.answer  # 16 pages share it: it tells none of them apart


def test_the_sources_list_names_an_unnumbered_slide_by_its_place(cython: CourseMaterial) -> None:
    answer = ("Cython compiles Python. [cite:L:80:12::::v1:va1] It has a title page. [cite:L:80:2::::v1:va1]")
    lines = source_lines(answer, cython)
    assert "📄 HPC in Python (page 2 of 20, “HPC in Python”)" in lines
    assert "📄 HPC in Python (page 12 of 20)" in lines
    assert not any("section:" in line for line in lines)
