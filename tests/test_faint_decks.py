"""The faint decks (tests/material_decks): small, thin, light numbers as slide tools print them.

These tests check the generator only (what is drawn and what ``expected`` says), not the reading.
"""

from __future__ import annotations

import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from tests.material_decks import (
    AGENDA,
    CLOSING,
    FAINT_DEV_SPECS,
    FAINT_HELDOUT_SPECS,
    NONE,
    REPEAT,
    FaintSpec,
    GeneratedDeck,
    build_faint_deck,
    build_faint_decks,
    faint_expected,
)

ALL_SPECS = FAINT_DEV_SPECS + FAINT_HELDOUT_SPECS


@pytest.fixture(scope="module")
def faint(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[GeneratedDeck]]:
    folder = tmp_path_factory.mktemp("faint")
    return {which: build_faint_decks(folder, which) for which in ("dev", "heldout")}


def page_texts(path: Path) -> list[str]:
    document = pdfium.PdfDocument(path)
    try:
        texts = []
        for page in document:
            textpage = page.get_textpage()
            texts.append(textpage.get_text_range())
            textpage.close()
            page.close()
        return texts
    finally:
        document.close()


def test_every_deck_lists_a_number_for_each_of_its_pages(faint: dict[str, list[GeneratedDeck]]) -> None:
    for deck in faint["dev"] + faint["heldout"]:
        with pdfium.PdfDocument(deck.path) as document:
            count = len(document)
        assert len(deck.expected) == count, deck.name
        assert 12 <= count <= 30, deck.name


def test_the_numbers_are_not_in_the_text_layer(faint: dict[str, list[GeneratedDeck]]) -> None:
    for deck in faint["dev"] + faint["heldout"]:
        for page, (text, number) in enumerate(zip(page_texts(deck.path), deck.expected, strict=True), start=1):
            assert text.strip(), f"{deck.name} page {page}: no text at all"
            if number is not None:
                assert number not in re.findall(r"\d+", text), f"{deck.name} page {page}: {text!r}"


def test_most_pages_are_numbered_and_numbers_never_go_back(faint: dict[str, list[GeneratedDeck]]) -> None:
    for deck in faint["dev"] + faint["heldout"]:
        assert deck.numbered >= 0.7 * len(deck.expected), (deck.name, deck.expected)
        numbers = [int(n) for n in deck.expected if n is not None]
        assert numbers == sorted(numbers) and numbers[0] >= 1, deck.name
        assert len(set(numbers)) < len(numbers), f"{deck.name}: no overlay step repeats a number"


def test_dev_and_heldout_are_disjoint() -> None:
    dev, heldout = FAINT_DEV_SPECS, FAINT_HELDOUT_SPECS
    assert len(dev) >= 5 and len(heldout) >= 5
    assert not {s.name for s in dev} & {s.name for s in heldout}
    assert len({s.name for s in ALL_SPECS}) == len(ALL_SPECS)
    assert not {s.seed for s in dev} & {s.seed for s in heldout}
    # the held-out decks use fonts, sizes and grey levels never seen in the dev decks
    assert not {s.font for s in dev} & {s.font for s in heldout}
    assert not {s.size_pt for s in dev} & {s.size_pt for s in heldout}
    assert not {s.color for s in dev} & {s.color for s in heldout}


def test_the_decks_cover_what_real_decks_print() -> None:
    for specs in (FAINT_DEV_SPECS, FAINT_HELDOUT_SPECS):
        assert {s.style for s in specs} == {"fraction", "lone"}
        assert {s.place for s in specs} == {"bottom right", "bottom centre", "top right"}
        assert {s.drawn_as for s in specs} == {"image", "vector"}
        assert any(s.size[0] / s.size[1] < 1.5 for s in specs)  # 4:3
        assert any(s.size[0] / s.size[1] > 1.7 for s in specs)  # 16:9
        assert any(s.bar for s in specs) and any(s.progress for s in specs) and any(s.logo for s in specs)
        assert any(s.footer for s in specs) and any(s.date for s in specs)
    for spec in ALL_SPECS:
        assert 5 <= spec.size_pt <= 9, spec.name
        assert 0x77 <= spec.color[0] <= 0xbb or spec.bar is not None, spec.name
        assert 150 <= spec.dpi <= 300, spec.name
    # a title, agenda or closing page repeats the last number in some decks and prints none in others
    assert {s.agenda for s in ALL_SPECS} >= {REPEAT, NONE}
    assert {s.closing for s in ALL_SPECS} >= {REPEAT, NONE}


def test_the_decks_are_the_same_every_time(tmp_path: Path) -> None:
    spec: FaintSpec = FAINT_HELDOUT_SPECS[4]
    first = build_faint_deck(tmp_path / "a", spec)
    second = build_faint_deck(tmp_path / "b", spec)
    assert first.path.read_bytes() == second.path.read_bytes()
    assert first.expected == second.expected


def test_repeated_pages_print_the_number_before_them() -> None:
    spec = next(s for s in ALL_SPECS if s.agenda == REPEAT)
    numbers = faint_expected(spec)
    agenda = spec.kinds.index(AGENDA)
    assert numbers[agenda] == numbers[agenda - 1] == "1"
    spec = next(s for s in ALL_SPECS if s.closing == NONE)
    assert faint_expected(spec)[spec.kinds.index(CLOSING)] is None
