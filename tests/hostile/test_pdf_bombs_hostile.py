"""Decks that are small on disk and costly to read: nested forms drawing millions of shapes, gigapixel images.

A few kilobytes of form XObjects, each drawing the one below it a hundred times, draw a million rectangles
per page; pdfium parses a page whole when it loads it and pypdf walks every operator in Python, so such a
deck took a minute and gigabytes. What the pages draw is now counted from the PDF's objects before any page
is parsed (``citation_core.material.page_cost``), and a deck past the limits is refused with one line that
names the file and the page. The tests show that no page was parsed (the parsers are replaced by functions
that fail), or measure the peak memory of a separate process; none measures time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pypdf
import pytest

from citation_core.cli.main import main
from citation_core.errors import MaterialError
from citation_core.material import deck as deck_module
from citation_core.material import ocr, page_cost
from citation_core.material.deck import load_deck
from citation_core.material.page_cost import LIMITS, Cost, page_costs
from tests.conftest import ROOT, SAMPLE_COURSE
from tests.hostile.hostile_pdfs import (
    _deck,
    flat_deflate,
    huge_image_deck,
    rectangle_bomb,
    self_drawing_form,
    stream,
    text_line,
)
from tests.material_fixtures import REAL_DECKS, make_pdf

MiB = 1 << 20


@pytest.fixture()
def no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any page parsed by pdfium or pypdf fails the test: a refused deck is refused before its pages are read."""

    def parsed(*_: object, **__: object) -> Any:
        raise AssertionError("a page was parsed")

    monkeypatch.setattr(deck_module, "_pdfium_texts", parsed)
    monkeypatch.setattr(pypdf.PageObject, "extract_text", parsed)


def refusal(path: Path) -> str:
    with pytest.raises(MaterialError) as caught:
        load_deck(path, cache=False)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{path.name}: ")
    assert message.endswith("too costly to read, refused")
    return message


# --- item: nested forms ------------------------------------------------------------------------------


@pytest.mark.usefixtures("no_parsing")
def test_a_million_rectangles_drawn_through_nested_forms_are_refused_before_any_page_is_parsed(
        tmp_path: Path) -> None:
    bomb = rectangle_bomb(tmp_path / "bomb.pdf")  # 3 pages of 10,000 rectangles drawn 100 times each
    assert bomb.stat().st_size < 4000
    assert refusal(bomb) == (
        "bomb.pdf: page 1 draws more than 250,000 shapes, text pieces and other drawing operators "
        "(forms drawn inside forms counted each time they are drawn): too costly to read, refused"
    )


@pytest.mark.usefixtures("no_parsing")
def test_the_command_line_refuses_the_bomb_with_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bomb = rectangle_bomb(tmp_path / "bomb.pdf")
    capsys.readouterr()
    assert main(["deck", str(bomb)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("citation-studio: bomb.pdf: page 1 draws more than 250,000 shapes")


@pytest.mark.usefixtures("no_parsing")
def test_forms_nested_forty_deep_are_counted_without_being_drawn(tmp_path: Path) -> None:
    # each level draws the one below twice: 2**40 rectangles; the count multiplies, it never walks them
    chain = rectangle_bomb(tmp_path / "chain.pdf", pages=1, fanout=(1, *([2] * 40)))
    assert "page 1 draws more than 250,000 shapes" in refusal(chain)


@pytest.mark.usefixtures("no_parsing")
def test_pages_each_within_the_page_limit_are_refused_together(tmp_path: Path) -> None:
    # 200,400 operators a page (one shared form, counted once), 13 pages pass the deck's 2,500,000
    many = rectangle_bomb(tmp_path / "many.pdf", pages=20, fanout=(1000, 100), in_order=True)
    costs = page_costs(pypdf.PdfReader(many).pages)
    assert all(cost is not None and cost.past(LIMITS.page) is None for cost in costs)
    assert refusal(many) == (
        "many.pdf: its first 13 pages draw more than 2,500,000 shapes, text pieces and other drawing operators "
        "(forms drawn inside forms counted each time they are drawn): too costly to read, refused"
    )


def test_pages_pypdf_would_read_are_limited_together(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pypdf reads a page ten times slower than pdfium: the pages left to it (pdfium reorders their words)
    have a lower limit together; the same pages with their words in order are read by pdfium alone."""

    def parsed(*_: object, **__: object) -> Any:
        raise AssertionError("pypdf read a page")

    monkeypatch.setattr(pypdf.PageObject, "extract_text", parsed)
    reordered = rectangle_bomb(tmp_path / "reordered.pdf", pages=2, fanout=(700, 100))
    assert refusal(reordered).startswith(
        "reordered.pdf: pages 1, 2, whose text is read in the order it is written, draw more than 250,000 shapes")
    in_order = rectangle_bomb(tmp_path / "in_order.pdf", pages=2, fanout=(700, 100), in_order=True)
    titles = [page.title for page in load_deck(in_order, cache=False, read_images=False).pages]
    assert titles == ["Rectangles drawn"] * 2


def test_a_deck_with_millions_of_characters_is_refused_as_its_text_pages_are_built(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(page_cost, "MAX_DECK_CHARS", 50_000)
    line = b"BT /F1 2 Tf 10 10 Td (" + b"abc " * 7_500 + b") Tj ET\n"  # 30,000 characters a page
    wordy = _deck(tmp_path / "wordy.pdf", [((720.0, 405.0), text_line("Words") + line, b"")] * 3)
    assert refusal(wordy) == ("wordy.pdf: its first 2 pages hold more than 50,000 characters of text: "
                              "too costly to read, refused")
    monkeypatch.setattr(page_cost, "MAX_DECK_CHARS", 200_000)
    assert len(load_deck(wordy, cache=False, read_images=False).pages) == 3


def test_a_form_that_draws_itself_is_read(tmp_path: Path) -> None:
    loop = self_drawing_form(tmp_path / "loop.pdf")
    assert [page.title for page in load_deck(loop, cache=False, read_images=False).pages] == [
        "Loop page A", "Loop page B"]


def test_normal_decks_stay_far_within_the_limits(tmp_path: Path) -> None:
    decks = sorted((SAMPLE_COURSE / "decks").glob("*.pdf"))
    decks.append(make_pdf(tmp_path / "plain.pdf", [[f"Topic {n}", "text", f"{n} / 40"] for n in range(1, 41)]))
    if REAL_DECKS.is_dir():
        decks.extend(sorted(REAL_DECKS.glob("*.pdf")))
    for deck_file in decks:
        costs = page_costs(pypdf.PdfReader(deck_file).pages)
        assert all(cost is not None for cost in costs), deck_file.name
        total = sum((cost for cost in costs if cost is not None), Cost())
        tenth = Cost(LIMITS.deck.operators // 10, LIMITS.deck.size // 10, LIMITS.deck.pixels)
        assert total.past(tenth) is None, (deck_file.name, total)
        for cost in costs:
            assert cost is not None and cost.past(Cost(LIMITS.page.operators // 10, LIMITS.page.size // 10,
                                                       LIMITS.page.pixels // 10)) is None, (deck_file.name, cost)


# --- item: gigapixel images ----------------------------------------------------------------------------


def peak_rss(argv: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], int]:
    """Run ``argv`` in a process of its own, started by a small Python process that reports the largest resident
    size of its children (in bytes)."""
    probe = ("import resource, subprocess, sys\n"
             "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
             "sys.stdout.write(done.stdout)\nsys.stderr.write(done.stderr)\n"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
             "sys.exit(done.returncode)\n")
    ran = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, env=env,
                         cwd=ROOT, check=False)
    *lines, peak = ran.stderr.rstrip("\n").split("\n")
    return subprocess.CompletedProcess(ran.args, ran.returncode, ran.stdout, "\n".join(lines)), int(peak) * 1024


def test_a_gigapixel_image_behind_the_footer_is_refused_in_one_line_within_500_mib(tmp_path: Path) -> None:
    """46,000 x 46,000 grey pixels in 2 MB: reading the printed numbers rendered the footer band with pdfium's
    grey mode, which converts the whole image (2.4 GiB). Such a page is now refused before it is rendered."""
    picture = huge_image_deck(tmp_path / "picture.pdf")
    assert picture.stat().st_size < 2_200_000
    env = dict(os.environ, **{ocr.CACHE_ENV: str(tmp_path / "cache")})
    ran, peak = peak_rss([sys.executable, "-m", "citation_core.cli.main", "deck", str(picture)], env)
    assert ran.returncode == 2 and ran.stdout == ""
    assert ran.stderr == ("citation-studio: picture.pdf: page 1 draws images of more than 100 megapixels: "
                          "too costly to read, refused")
    assert peak <= 500 * MiB


def test_page_images_within_the_limit_are_read_without_converting_them_whole(tmp_path: Path) -> None:
    """A 100-megapixel grey image behind the footer band (within the page limit): reading the page images
    (the bands rendered in colour, then turned grey) adds a few MiB, not the 100 MiB of a converted image."""
    picture = huge_image_deck(tmp_path / "picture.pdf", side=10_000)
    script = ("import json, resource, sys\nfrom pathlib import Path\n"
              "from citation_core.material.deck import load_deck\n"
              "path = Path(sys.argv[1])\n"
              "load_deck(path, read_images=False, cache=False)\n"
              "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
              "deck = load_deck(path, cache=False)\n"
              "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
              "print(json.dumps([(after - before) * 1024, [p.display_page_number for p in deck.pages],"
              " list(deck.warnings)]))\n")
    env = dict(os.environ, **{ocr.CACHE_ENV: str(tmp_path / "cache")})
    ran = subprocess.run([sys.executable, "-c", script, str(picture)], capture_output=True, text=True, env=env,
                         cwd=ROOT, check=False)
    assert ran.returncode == 0, ran.stderr
    grown, numbers, warnings = json.loads(ran.stdout)
    assert numbers == [None, None, None] and warnings == []
    assert grown < 48 * MiB
    assert len(list((tmp_path / "cache").glob("*.json"))) == 1  # the pages were read (and remembered)


def image_page(path: Path, side: tuple[int, int], mask: tuple[int, int] | None = None) -> Path:
    """One slide with a grey image (and a soft mask of ``mask`` pixels) behind its footer band."""
    width, height = side
    shared = []
    smask = b""
    if mask is not None:
        shared.append(stream(b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                             b"/BitsPerComponent 8 /Filter /FlateDecode" % mask, flat_deflate(0x80, mask[0] * mask[1])))
        smask = b" /SMask 4 0 R"
    shared.append(stream(b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                         b"/BitsPerComponent 8%s /Filter /FlateDecode" % (width, height, smask),
                         flat_deflate(0x20, width * height)))
    page = ((720.0, 405.0), text_line("A picture") + b"q 720 0 0 60 0 0 cm /Im0 Do Q\n",
            b"/XObject << /Im0 %d 0 R >>" % (4 + len(shared) - 1))
    return _deck(path, [page], shared)


def test_a_small_image_with_a_huge_soft_mask_is_refused(tmp_path: Path) -> None:
    masked = image_page(tmp_path / "masked.pdf", (10, 10), mask=(12_000, 9_000))
    assert "page 1 draws images of more than 100 megapixels" in refusal(masked)
    photo = image_page(tmp_path / "photo.pdf", (6_000, 4_000), mask=(6_000, 4_000))  # a 24-megapixel photo
    assert [page.title for page in load_deck(photo, cache=False, read_images=False).pages] == ["A picture"]
