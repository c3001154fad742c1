"""Parsed decks kept on disk by content: a second load does not parse the PDF again, gives the same deck,
and a damaged entry or a changed PDF is parsed again."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from citation_core.material import deck as deck_module
from citation_core.material import deck_cache, ocr
from citation_core.material.deck import load_deck
from citation_core.material.deck_cache import ParsedDeck
from tests.conftest import SAMPLE_COURSE
from tests.material_fixtures import add_page_labels, make_pdf

HASH_TABLES = SAMPLE_COURSE / "decks" / "hash_tables.pdf"


@pytest.fixture(autouse=True)
def cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "deck_cache"
    monkeypatch.setenv(deck_cache.CACHE_ENV, str(folder))
    return folder


@pytest.fixture()
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files parsed from now on (the parser still runs)."""
    calls: list[str] = []
    real = deck_module._parse

    def counted(name: str, data: bytes, text_engine: deck_cache.TextEngine = "pdfium") -> ParsedDeck:
        calls.append(name)
        return real(name, data, text_engine)

    monkeypatch.setattr(deck_module, "_parse", counted)
    return calls


def never_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> ParsedDeck:
        raise AssertionError("the PDF was parsed again")

    monkeypatch.setattr(deck_module, "_parse", refuse)


def entry_of(folder: Path, pdf: Path) -> Path:
    return folder / f"{ocr.content_digest(pdf.read_bytes())}.json"


def copy_of(src: Path, dst: Path) -> Path:
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_bytes(src.read_bytes())
    return dst


# --- a second load reads the cache ----------------------------------------------------------------


def test_a_second_load_reads_the_cache_and_gives_an_equal_deck(
    tmp_path: Path, cache_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pdf = copy_of(HASH_TABLES, tmp_path / "hash_tables.pdf")
    first = load_deck(pdf)
    assert entry_of(cache_folder, pdf).is_file()
    never_parse(monkeypatch)
    again = load_deck(pdf)
    assert again == first
    assert [p.display_source for p in again.pages] == [p.display_source for p in first.pages]
    assert any(p.display_page_number is not None for p in again.pages)


def test_the_cache_survives_a_restart(tmp_path: Path, cache_folder: Path) -> None:
    """A new process (an app restart) finds the entry the first one wrote and does not parse."""
    import subprocess
    import sys

    pdf = copy_of(HASH_TABLES, tmp_path / "hash_tables.pdf")
    first = load_deck(pdf)
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from citation_core.material import deck\n"
        "def refuse(*a, **k): raise SystemExit('parsed again')\n"
        "deck._parse = refuse\n"
        "loaded = deck.load_deck(Path(sys.argv[1]))\n"
        "print(len(loaded.pages), loaded.pages[-1].title)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(pdf)], capture_output=True, text=True, check=True,
                         env={**os.environ, deck_cache.CACHE_ENV: str(cache_folder)})
    assert out.stdout.strip() == f"{len(first.pages)} {first.pages[-1].title}"


def test_the_same_content_under_another_name_is_read_from_the_cache_and_named_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pdf = make_pdf(tmp_path / "first.pdf", [["Intro"], [], ["Outro"]])
    load_deck(pdf)
    never_parse(monkeypatch)
    other = copy_of(pdf, tmp_path / "elsewhere" / "renamed.pdf")
    deck = load_deck(other)
    assert deck.path == other
    assert deck.warnings == ("renamed.pdf: page 2: no extractable text (image-only page?)",)


def test_overrides_apply_to_a_cached_deck(tmp_path: Path, parses: list[str]) -> None:
    pages = [["Course title", "Winter term"]] + [[f"Topic {n}", "Some text", f"Folie {n}"] for n in range(2, 6)]
    pdf = make_pdf(tmp_path / "deck.pdf", pages)
    plain = load_deck(pdf)
    overridden = load_deck(pdf, {1: "0", 3: None, 9: "9"})
    assert parses == ["deck.pdf"]
    assert [(p.display_page_number, p.display_source) for p in plain.pages] == [
        (None, "none"), ("2", "text"), ("3", "text"), ("4", "text"), ("5", "text")]
    assert [(p.display_page_number, p.display_source) for p in overridden.pages] == [
        ("0", "manifest"), ("2", "text"), (None, "manifest"), ("4", "text"), ("5", "text")]
    assert overridden.warnings == ("deck.pdf: display number override for page 9 ignored: the deck has 5 pages",)


def test_a_labels_warning_is_kept_with_the_entry(tmp_path: Path, parses: list[str]) -> None:
    plain = make_pdf(tmp_path / "plain.pdf", [[f"Topic {n}", f"Folie {n}"] for n in range(1, 4)])
    labelled = add_page_labels(plain, tmp_path / "labelled.pdf", [(0, 2, "/D", "", 10)])
    first, again = load_deck(labelled), load_deck(labelled)
    assert parses == ["labelled.pdf"]
    assert again == first
    assert [p.display_page_number for p in again.pages] == ["10", "11", "12"]
    assert any("/PageLabels differ" in w for w in again.warnings)


def test_the_entry_holds_the_parsed_pages(tmp_path: Path, cache_folder: Path) -> None:
    pdf = copy_of(HASH_TABLES, tmp_path / "hash_tables.pdf")
    deck = load_deck(pdf)
    entry = json.loads(entry_of(cache_folder, pdf).read_text(encoding="utf-8"))
    assert entry["parser"] == deck_cache.parser_id()
    assert str(deck_cache.PARSER_VERSION) in entry["parser"]
    assert [p["text"] for p in entry["pages"]] == [p.text for p in deck.pages]
    assert [p["title"] for p in entry["pages"]] == [p.title for p in deck.pages]
    assert {p["engine"] for p in entry["pages"]} == {"pdfium"}


# --- what is parsed again ------------------------------------------------------------------------


def test_a_changed_pdf_is_parsed_again(tmp_path: Path, parses: list[str]) -> None:
    pdf = make_pdf(tmp_path / "deck.pdf", [["Before", "Folie 1"], ["Middle", "Folie 2"]])
    assert [p.title for p in load_deck(pdf).pages] == ["Before", "Middle"]
    make_pdf(pdf, [["After", "Folie 1"], ["Middle", "Folie 2"]])  # same name, other content
    assert [p.title for p in load_deck(pdf).pages] == ["After", "Middle"]
    assert parses == ["deck.pdf", "deck.pdf"]
    assert load_deck(pdf).page(1).title == "After"
    assert parses == ["deck.pdf", "deck.pdf"]


def corrupt_json(entry: Path) -> None:
    entry.write_text('{"parser": "1; pypdf', encoding="utf-8")


def not_utf8(entry: Path) -> None:
    entry.write_bytes(b"\xff\xfe\x00garbage")


def empty(entry: Path) -> None:
    entry.write_bytes(b"")


def wrong_shape(entry: Path) -> None:
    data = json.loads(entry.read_text(encoding="utf-8"))
    data["pages"] = [{"text": 3, "title": None, "engine": "pdfium"}]
    entry.write_text(json.dumps(data), encoding="utf-8")


def pages_missing(entry: Path) -> None:
    data = json.loads(entry.read_text(encoding="utf-8"))
    del data["pages"]
    entry.write_text(json.dumps(data), encoding="utf-8")


def labels_of_another_length(entry: Path) -> None:
    data = json.loads(entry.read_text(encoding="utf-8"))
    data["labels"] = ["1"]
    entry.write_text(json.dumps(data), encoding="utf-8")


def older_parser(entry: Path) -> None:
    data = json.loads(entry.read_text(encoding="utf-8"))
    data["parser"] = "0; pypdf 1.0; pypdfium2 1.0"
    data["pages"][0]["title"] = "Stale title"
    entry.write_text(json.dumps(data), encoding="utf-8")


def a_list(entry: Path) -> None:
    entry.write_text("[1, 2, 3]", encoding="utf-8")


def deeply_nested(entry: Path) -> None:
    entry.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")


def a_folder(entry: Path) -> None:
    entry.unlink()
    entry.mkdir()


@pytest.mark.parametrize("damage", [corrupt_json, not_utf8, empty, wrong_shape, pages_missing,
                                    labels_of_another_length, older_parser, a_list, deeply_nested, a_folder])
def test_a_damaged_or_stale_entry_is_ignored_and_the_deck_parsed_again(
    tmp_path: Path, cache_folder: Path, parses: list[str], damage: Callable[[Path], None]
) -> None:
    pdf = copy_of(HASH_TABLES, tmp_path / "hash_tables.pdf")
    first = load_deck(pdf)
    entry = entry_of(cache_folder, pdf)
    damage(entry)
    again = load_deck(pdf)
    assert again == first
    assert parses == ["hash_tables.pdf", "hash_tables.pdf"]
    if entry.is_file():  # rewritten whole: the next load reads it
        load_deck(pdf)
        assert parses == ["hash_tables.pdf", "hash_tables.pdf"]


def test_a_cache_that_cannot_be_written_is_no_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      parses: list[str]) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the cache folder would be", encoding="utf-8")
    monkeypatch.setenv(deck_cache.CACHE_ENV, str(blocker / "cache"))
    pdf = copy_of(HASH_TABLES, tmp_path / "hash_tables.pdf")
    assert load_deck(pdf) == load_deck(pdf)
    assert parses == ["hash_tables.pdf", "hash_tables.pdf"]


def test_writes_leave_no_temporary_files(tmp_path: Path, cache_folder: Path) -> None:
    for i in range(3):
        load_deck(make_pdf(tmp_path / f"deck{i}.pdf", [[f"Deck {i}", "Folie 1"], ["Next", "Folie 2"]]))
    assert sorted(p.suffix for p in cache_folder.iterdir()) == [".json"] * 3
    assert not [p for p in cache_folder.iterdir() if p.name.startswith(".")]


def test_without_the_cache_nothing_is_read_or_written(tmp_path: Path, cache_folder: Path, parses: list[str]) -> None:
    pdf = copy_of(HASH_TABLES, tmp_path / "hash_tables.pdf")
    load_deck(pdf, cache=False)
    load_deck(pdf, text_engine="pypdf")
    assert not cache_folder.exists()
    load_deck(pdf)
    load_deck(pdf, cache=False)
    assert parses == ["hash_tables.pdf"] * 4


def test_bad_files_are_not_cached(tmp_path: Path, cache_folder: Path) -> None:
    from citation_core.errors import MaterialError

    scanned = make_pdf(tmp_path / "scanned.pdf", [[], []])
    for _ in range(2):
        with pytest.raises(MaterialError, match="no extractable text"):
            load_deck(scanned)
    assert not cache_folder.exists() or not list(cache_folder.iterdir())


# --- where the cache lives ------------------------------------------------------------------------


def test_the_cache_folder_follows_its_variable_then_the_ocr_cache(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    monkeypatch.setenv(deck_cache.CACHE_ENV, str(tmp_path / "decks_here"))
    assert deck_cache.cache_dir() == tmp_path / "decks_here"
    monkeypatch.delenv(deck_cache.CACHE_ENV)
    monkeypatch.setenv(ocr.CACHE_ENV, str(tmp_path / "ocr_here"))
    assert deck_cache.cache_dir() == tmp_path / "ocr_here" / "decks"
    monkeypatch.delenv(ocr.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert deck_cache.cache_dir() == tmp_path / "xdg" / "citation-studio" / "decks"
    assert ocr.cache_dir() == tmp_path / "xdg" / "citation-studio" / "ocr"
