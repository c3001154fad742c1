"""Helpers that build small (and deliberately bad or odd) material files in a test's tmp_path.

The real decks and transcripts live outside the repository, in REAL_DIR (see tests/conftest.py); they
are read in place and never copied into the project. Tests that read them carry ``@pytest.mark.real``
(or use the ``real_dir`` fixture) and are skipped on a machine without that folder.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pypdf
import yaml
from fpdf import FPDF
from pypdf.constants import PageLabelStyle

from tests.conftest import REAL_DIR

REAL_DECKS = REAL_DIR / "decks"
REAL_TRANSCRIPTS = REAL_DIR / "transcripts"
METROPOLIS = REAL_DECKS / "en_metropolis_demo.pdf"
ELTE = REAL_DECKS / "en_elte_nlp_4-ngram_lm.pdf"
TUT_PYTHON = REAL_DECKS / "en_tut_python_lec8.pdf"
PAINLESS_SRT = REAL_TRANSCRIPTS / "en_google_PainlessPython_part1.srt"


def make_pdf(path: Path, pages: Sequence[Sequence[str]]) -> Path:
    """A PDF with one page per entry; each page shows its lines top to bottom (blank: no text)."""
    pdf = FPDF(orientation="landscape")
    pdf.set_auto_page_break(False)
    for lines in pages:
        pdf.add_page()
        pdf.set_font("helvetica", size=14)
        for line in lines:
            pdf.cell(text=line)
            pdf.ln(10)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(pdf.output()))
    return path


DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")  # fonts-dejavu-core


def make_pdf_reading_as(path: Path, pages: Sequence[Sequence[str]], read_as: dict[str, str]) -> Path:
    """Like ``make_pdf`` (in DejaVu Sans), but the text layer reads each drawn character ``c`` of ``read_as``
    as ``read_as[c]`` (its ``/ToUnicode`` entry rewritten): a PDF whose text layer holds a stray glyph, an
    invisible character or a lone surrogate where the page shows something else."""
    pdf = FPDF(orientation="landscape")
    pdf.set_auto_page_break(False)
    pdf.set_compression(False)
    pdf.add_font("dejavu", fname=str(DEJAVU))
    for lines in pages:
        pdf.add_page()
        pdf.set_font("dejavu", size=14)
        for line in lines:
            pdf.cell(text=line)
            pdf.ln(10)
    data = bytes(pdf.output())
    for drawn, read in read_as.items():
        # one bfchar line per glyph "<gid> <unicode>"; the same length keeps every xref offset right
        before, after = f"> <{ord(drawn):04X}>".encode(), f"> <{ord(read):04X}>".encode()
        assert data.count(before) == 1 and len(before) == len(after), drawn
        data = data.replace(before, after)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def add_page_labels(src: Path, dst: Path, ranges: Sequence[tuple[int, int, str, str, int]]) -> Path:
    """Copy ``src`` with /PageLabels: (first_index, last_index, style, prefix, start) ranges."""
    writer = pypdf.PdfWriter(clone_from=src)
    for first, last, style, prefix, start in ranges:
        writer.set_page_label(first, last, style=PageLabelStyle(style), prefix=prefix or None, start=start)
    writer.write(dst)
    return dst


def without_page_labels(src: Path, dst: Path) -> Path:
    """Copy the pages of ``src`` into a new PDF whose catalog has no /PageLabels."""
    writer = pypdf.PdfWriter()
    for page in pypdf.PdfReader(src).pages:
        writer.add_page(page)
    writer.write(dst)
    return dst


def encrypted_pdf(src: Path, dst: Path, user_password: str = "secret") -> Path:
    """Copy ``src`` encrypted (RC4, no extra dependency). An empty user password opens freely."""
    writer = pypdf.PdfWriter(clone_from=src)
    writer.encrypt(user_password, "owner-password", algorithm="RC4-128")
    writer.write(dst)
    return dst


def truncated_copy(src: Path, dst: Path, fraction: float = 0.5) -> Path:
    data = src.read_bytes()
    dst.write_bytes(data[: int(len(data) * fraction)])
    return dst


def write_text(path: Path, text: str, *, bom: bool = False, crlf: bool = False) -> Path:
    """Write UTF-8 text, optionally with a byte order mark and CRLF line ends."""
    if crlf:
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    data = text.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data)
    return path


def write_yaml(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


SMALL_VTT = """WEBVTT

1
00:00:00.000 --> 00:00:04.000
Merge sort splits the list

2
00:00:04.000 --> 00:00:09.500
and merges the sorted halves.
"""

# a short German lecture transcript about hash tables (written for these tests)
GERMAN_VTT = """WEBVTT

1
00:00:00.000 --> 00:00:06.000
Heute geht es um Hashtabellen und darum, wie ein Schlüssel seinen Platz in der Tabelle findet.

2
00:00:06.000 --> 00:00:13.000
Die Hashfunktion berechnet aus dem Schlüssel eine Zahl, und diese Zahl ist der Index des Eimers.

3
00:00:13.000 --> 00:00:21.000
Wenn zwei Schlüssel im selben Eimer landen, sprechen wir von einer Kollision; bei der Verkettung hängen wir
beide an eine Liste.

4
00:00:21.000 --> 00:00:28.000
Ist die Tabelle zu voll, wird sie vergrößert und jeder Schlüssel wird neu eingeordnet.
"""


def make_course(root: Path, **unit_fields: Any) -> Path:
    """A one-lecture course with a 3-page deck, a VTT transcript, a video file and FAQs.

    ``unit_fields`` replace or add keys of the single unit (use ``None`` to drop a key).
    """
    make_pdf(
        root / "decks" / "merge_sort.pdf",
        [
            ["Merge sort", "Divide and conquer"],
            ["Merging", "Two sorted halves", "2"],
            ["Complexity", "O(n log n) comparisons", "3"],
        ],
    )
    write_text(root / "transcripts" / "merge_sort.vtt", SMALL_VTT)
    (root / "videos").mkdir(parents=True, exist_ok=True)
    (root / "videos" / "merge_sort.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42")
    write_yaml(
        root / "faqs.yml",
        [
            {"id": 1, "question": "Is merge sort stable?", "answer": "Yes, it is stable."},
            {"id": 2, "question": "Wann ist die Klausur?", "answer": "Im Juli.", "language": "de"},
        ],
    )
    unit: dict[str, Any] = {
        "id": 101,
        "name": "Merge sort",
        "deck": "decks/merge_sort.pdf",
        "display_numbers": {1: None},
        "video": "videos/merge_sort.mp4",
        "transcript": "transcripts/merge_sort.vtt",
        "timeline": [{"at": 0, "page": 1}, {"at": 4, "page": 2}, {"at": 8.5, "page": 3}],
        "versions": {"attachment": 2, "video": 1},
    }
    for key, value in unit_fields.items():
        if value is None:
            unit.pop(key, None)
        else:
            unit[key] = value
    course = {
        "id": 1,
        "name": "Algorithms and Data Structures",
        "language": "en",
        "faqs": "faqs.yml",
        "lectures": [{"id": 10, "name": "Sorting", "units": [unit]}],
    }
    return write_yaml(root / "course.yml", course)
