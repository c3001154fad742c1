"""An answer file comes back byte for byte: carriage returns and odd line endings survive the citation stage."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from citation_core.contract import strip_markers

SOURCES = {"lecture": {"pages": [
    {"uuid": "p3", "lecture_unit_id": 12, "page_number": 3,
     "text": "Merge sort\nDivide the list into two halves, sort each half recursively, then merge them."},
    {"uuid": "p4", "lecture_unit_id": 12, "page_number": 4,
     "text": "Merge step\nThe merge step combines two sorted lists in linear time using two pointers."}]}}
ANSWER = ("Merge sort divides the list into two halves and sorts each half recursively.\r\n\r\n"
          "The merge step combines two sorted lists in linear time.\rDone.\n")


def test_cite_gives_back_an_answer_with_carriage_returns_byte_for_byte(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text(json.dumps(SOURCES), encoding="utf-8")
    (tmp_path / "a.md").write_bytes(ANSWER.encode("utf-8"))
    out = subprocess.run([sys.executable, "-m", "citation_core.cli.main", "cite", "--sources", str(tmp_path / "s.json"),
                          "--answer", str(tmp_path / "a.md"), "--json"], capture_output=True, check=True)
    answer = json.loads(out.stdout)["answer"]
    assert answer.count("[cite:L:12:") == 2
    assert strip_markers(answer).encode("utf-8") == ANSWER.encode("utf-8")
