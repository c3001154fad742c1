"""A deck or transcript that cannot be read leaves its unit out of the course; every other unit works."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import pytest

from citation_core.chat.chat_pipeline import ChatPipeline
from citation_core.chat.view import ViewPosition
from citation_core.cli.main import main
from citation_core.errors import UnknownUnitError
from citation_core.llm.config import default_config
from citation_core.material import library
from citation_core.material.library import load_material
from tests.material_fixtures import make_course, make_pdf, write_yaml


def two_units(root: Path, second_deck: bytes | None = None) -> Path:
    """The sample one-unit course plus a second unit "Quicksort" (id 102) whose deck is ``second_deck``."""
    make_course(root)
    deck = root / "decks" / "quicksort.pdf"
    if second_deck is None:
        make_pdf(deck, [["Quicksort", "Partition around a pivot"]])
    else:
        deck.write_bytes(second_deck)
    import yaml

    data: dict[str, Any] = yaml.safe_load((root / "course.yml").read_text(encoding="utf-8"))
    data["lectures"][0]["units"].append({"id": 102, "name": "Quicksort", "deck": "decks/quicksort.pdf"})
    write_yaml(root / "course.yml", data)
    return root


def test_a_corrupt_deck_leaves_only_its_unit_out(tmp_path: Path) -> None:
    root = two_units(tmp_path, b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer <<>>\n%%EOF\n")
    material = load_material(root)
    assert list(material.units) == [101]
    assert set(material.broken) == {102}
    assert "quicksort.pdf" in material.broken[102]
    said = [w for w in material.warnings if "quicksort.pdf" in w]
    assert len(said) == 1 and "unit 102 “Quicksort” is left out" in said[0] and "\n" not in said[0]
    with pytest.raises(UnknownUnitError, match="unit 102: left out of the course: quicksort.pdf"):
        material.unit(102)
    result = ChatPipeline(default_config(), material)("How does merging work?", ViewPosition(101, page=2))
    assert "[cite:" in result.answer


def test_a_deck_that_breaks_the_reader_leaves_only_its_unit_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader failing in a way nobody foresaw (a PowerPoint export's text layer once raised
    UnicodeEncodeError) breaks neither the course nor its other units."""
    root = two_units(tmp_path)
    real = library.load_deck

    def reader(path: Path, *args: Any, **kwargs: Any) -> Any:
        if path.name == "quicksort.pdf":
            "\ud800".encode()  # what a lone surrogate does when written out
        return real(path, *args, **kwargs)

    monkeypatch.setattr(library, "load_deck", reader)
    material = load_material(root)
    assert list(material.units) == [101]
    assert material.broken[102].startswith("quicksort.pdf: cannot be read (UnicodeEncodeError")
    assert material.lecture_index is not None
    assert all(s.lecture_unit_id == 101 for s in material.sources().lecture)


def test_the_command_line_answers_the_other_units_and_says_once_what_was_left_out(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    root = two_units(tmp_path, b"not a pdf at all")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b""), "utf-8"))
    code = main(["ask", "--course", str(root), "--unit", "101", "--page", "2", "--question", "How does merging work?"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "[cite:" in out
    assert err.count("quicksort.pdf") == 1
    assert "unit 102 is left out of the course: quicksort.pdf: not a PDF file" in err

    code = main(["course", str(root)])
    out, _ = capsys.readouterr()
    assert code == 0 and "unit 101: Merge sort" in out and "unit 102: left out: quicksort.pdf" in out


def test_a_page_whose_text_cannot_be_read_stays_in_its_deck_without_text(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pypdf

    from citation_core.material import deck as deck_module

    pdf = make_pdf(tmp_path / "three.pdf", [["Intro", "Welcome"], ["Broken", "unreadable"], ["End", "Thanks"]])
    real = pypdf.PageObject.extract_text

    def extract(self: pypdf.PageObject, *args: Any, **kwargs: Any) -> str:
        if "unreadable" in real(self):
            raise KeyError("/Font")  # what a page with a malformed font dictionary raises
        return real(self, *args, **kwargs)

    monkeypatch.setattr(deck_module, "_pdfium_texts", lambda *args: None)  # every page read by pypdf
    monkeypatch.setattr(pypdf.PageObject, "extract_text", extract)
    deck = deck_module.load_deck(pdf, cache=False, read_images=False)
    assert [p.title for p in deck.pages] == ["Intro", "", "End"]
    assert deck.warnings == ("three.pdf: page 2: its text cannot be read (KeyError: '/Font'); "
                             "the page is kept without text",)


@pytest.mark.real
def test_a_powerpoint_export_with_lone_surrogates_in_its_text_layer_loads_and_is_cited(tmp_path: Path) -> None:
    """The IoT lesson deck (PowerPoint, MIT) has lone UTF-16 surrogates in the text layer of page 22: they are
    read as U+FFFD, so its text can be written out, cached and cited."""
    from citation_core.material.deck import load_deck
    from tests.conftest import REAL_DIR

    deck = load_deck(REAL_DIR / "decks" / "en_iot_sensors.pdf", cache=False, read_images=False)
    assert len(deck.pages) == 24
    assert "\ufffd" in deck.page(22).text
    for page in deck.pages:
        page.text.encode("utf-8")  # raises on a lone surrogate
    root = tmp_path / "course"
    (root / "decks").mkdir(parents=True)
    (root / "decks" / "iot.pdf").write_bytes((REAL_DIR / "decks" / "en_iot_sensors.pdf").read_bytes())
    write_yaml(root / "course.yml", {"id": 5, "name": "IoT", "language": "en", "lectures": [
        {"id": 1, "name": "Sensors", "units": [{"id": 7, "name": "Lesson 7", "deck": "decks/iot.pdf"}]}]})
    material = load_material(root)
    assert material.broken == {}
    result = ChatPipeline(default_config(), material)("Why calibrate a sensor?", ViewPosition(7, page=22))
    assert "[cite:" in result.answer
