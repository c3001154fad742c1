"""Reading printed numbers from the page images (OCR) against poisoned cache entries and degenerate pages.

* A cache entry is a JSON file anyone with access to the cache folder can change: coordinates that are NaN,
  Infinity or strings, a text that is a number, a structure nested 100,000 deep. Any entry that is not what
  the reader writes counts as missing: the deck is read again and the entry rewritten, and asking whether a
  deck still needs reading never raises.
* A page of a degenerate size (2 x 4000 pt, 1 x 100000 pt) among normal ones has no bands worth reading: it is
  skipped (no printed number), and the other pages keep theirs.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pypdf
import pypdfium2
import pytest

from citation_core.cli.main import main
from citation_core.material import ocr
from citation_core.material.deck import load_deck, needs_reading
from tests.material_decks import CONTENT, TITLE, DeckSpec, GeneratedDeck, build_deck

pytestmark = pytest.mark.skipif(ocr.ocr_unavailable() is not None, reason=f"OCR: {ocr.ocr_unavailable()}")


@pytest.fixture(scope="module")
def numbered(tmp_path_factory: pytest.TempPathFactory) -> GeneratedDeck:
    """Nine slides whose numbers are drawn as vector shapes at the bottom right (no number in the text)."""
    spec = DeckSpec("drawn_numbers", (TITLE, *([CONTENT] * 8)), style="lone", place="bottom right",
                    drawn_as="vector", seed=31)
    return build_deck(tmp_path_factory.mktemp("decks"), spec)


@pytest.fixture(scope="module")
def clean(numbered: GeneratedDeck, tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str | None], Any]:
    """The printed numbers read from a cold cache, and the entry written."""
    folder = tmp_path_factory.mktemp("clean_cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ocr.CACHE_ENV, str(folder))
        numbers = printed(load_deck(numbered.path, cache=False))
        entry = json.loads(entry_file(numbered.path).read_text(encoding="utf-8"))
    assert sum(1 for n in numbers if n is not None) >= 6, numbers
    return numbers, entry


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(ocr.CACHE_ENV, str(tmp_path / "ocr"))
    return tmp_path / "ocr"


def printed(deck: Any) -> list[str | None]:
    return [page.display_page_number for page in deck.pages]


def entry_file(pdf: Path) -> Path:
    return ocr.cache_dir() / f"{ocr.content_digest(pdf.read_bytes())}.json"


def first_segment(entry: dict[str, Any]) -> dict[str, Any]:
    return next(segment for page in entry["pages"] for segment in page)


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def set_in_first(key: str, value: Any) -> Callable[[dict[str, Any]], str]:
    def poison(entry: dict[str, Any]) -> str:
        first_segment(entry)[key] = value
        return json.dumps(entry)  # NaN and Infinity are written as the bare words json accepts

    return poison


POISONS: dict[str, Callable[[dict[str, Any]], str]] = {
    "nan-coordinate": set_in_first("x0", math.nan),
    "infinite-coordinate": set_in_first("y1", math.inf),
    "negative-infinite-coordinate": set_in_first("x1", -math.inf),
    "string-coordinate": set_in_first("y0", "0.9"),
    "coordinate-off-the-page": set_in_first("x1", 1e300),
    "text-a-number": set_in_first("text", 12),
    "band-unknown": set_in_first("band", "left margin"),
    "segment-a-list": lambda entry: json.dumps({**entry, "pages": [[[1, 2]], *entry["pages"][1:]]}),
    "missing-key": lambda entry: json.dumps({**entry, "pages": [[{"text": "1"}], *entry["pages"][1:]]}),
    "pages-nested-100000-deep": lambda entry: json.dumps({**entry, "pages": None}).replace(
        '"pages": null', '"pages": ' + nested(100_000)),
    "whole-entry-nested-100000-deep": lambda entry: nested(100_000),
    "needed-a-string": lambda entry: json.dumps({**entry, "needed": "yes"}),
}


@pytest.mark.parametrize("poison", list(POISONS), ids=list(POISONS))
def test_a_poisoned_entry_counts_as_missing_and_the_deck_is_read_again(
        numbered: GeneratedDeck, clean: tuple[list[str | None], Any], cache: Path, poison: str) -> None:
    numbers, entry = clean
    target = entry_file(numbered.path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(POISONS[poison](json.loads(json.dumps(entry))), encoding="utf-8")

    assert needs_reading(numbered.path) is True  # never a RecursionError on the Library page
    deck = load_deck(numbered.path, cache=False)
    assert printed(deck) == numbers
    assert deck.warnings == ()
    assert json.loads(target.read_text(encoding="utf-8"))["pages"] == entry["pages"]  # rewritten
    assert needs_reading(numbered.path) is False


def test_the_command_line_reads_past_a_poisoned_entry(numbered: GeneratedDeck, clean: tuple[list[str | None], Any],
                                                      cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    numbers, entry = clean
    target = entry_file(numbered.path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(POISONS["text-a-number"](json.loads(json.dumps(entry))), encoding="utf-8")
    capsys.readouterr()
    assert main(["deck", "--json", str(numbered.path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert [page["display_page_number"] for page in json.loads(out)["pages"]] == numbers


@pytest.mark.parametrize("size", [(2.0, 4000.0), (1.0, 100000.0), (4000.0, 1.0)], ids=["2x4000", "1x100000", "4000x1"])
def test_one_degenerate_page_is_skipped_and_the_others_keep_their_numbers(
        numbered: GeneratedDeck, clean: tuple[list[str | None], Any], cache: Path, tmp_path: Path,
        size: tuple[float, float]) -> None:
    numbers, _ = clean
    writer = pypdf.PdfWriter(clone_from=numbered.path)
    writer.insert_blank_page(width=size[0], height=size[1], index=4)
    odd = tmp_path / "odd_page.pdf"
    writer.write(odd)
    deck = load_deck(odd, cache=False)
    assert printed(deck) == [*numbers[:4], None, *numbers[4:]]
    assert deck.pages[4].display_source == "none"
    assert deck.warnings == ("odd_page.pdf: page 5: no extractable text (image-only page?)",)


def test_a_page_that_cannot_be_rendered_is_skipped_alone(
        numbered: GeneratedDeck, clean: tuple[list[str | None], Any], cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    numbers, _ = clean
    page_groups = ocr._page_groups

    def fifth_fails(document: Any, index: int, declared: Any) -> Any:
        if index == 4:
            raise pypdfium2.PdfiumError("Failed to load page.")
        return page_groups(document, index, declared)

    monkeypatch.setattr(ocr, "_page_groups", fifth_fails)
    deck = load_deck(numbered.path, cache=False)
    assert printed(deck) == [*numbers[:4], None, *numbers[5:]] and deck.warnings == ()

    def every_page_fails(document: Any, index: int, declared: Any) -> Any:
        raise pypdfium2.PdfiumError("Failed to load page.")

    monkeypatch.setattr(ocr, "_page_groups", every_page_fails)
    monkeypatch.setenv(ocr.CACHE_ENV, str(cache.parent / "other"))
    deck = load_deck(numbered.path, cache=False)
    assert printed(deck) == [None] * len(numbers)
    assert deck.warnings == ("drawn_numbers.pdf: printed numbers drawn on the pages cannot be read "
                             "(cannot render the pages (Failed to load page.))",)
