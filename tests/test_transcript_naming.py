"""A cited second of a unit with a transcript but no video is named "transcript" wherever it is listed, as
its chip names it ("Transcript · 3:14–3:21"); a unit with a video keeps "video"."""

from __future__ import annotations

from pathlib import Path

from citation_core.lms.sources_list import source_lines
from citation_core.material.library import load_material
from citation_core.material.uploads import Upload, add_upload
from studio.audit_table import audit_rows
from tests.conftest import SAMPLE_COURSE

DECK = (SAMPLE_COURSE / "decks" / "merge_sort.pdf").read_bytes()
VTT = (SAMPLE_COURSE / "transcripts" / "merge_sort.vtt").read_bytes()
CITED = "The tree has log n levels.[cite:L:9001::194:201:Recursion tree:The lecturer draws it.]"
AUDIT = {"citation": {"type": "L", "entity_id": "9001", "start": 194, "end": 201, "keyword": "Recursion tree"},
         "sentence": "The tree has log n levels.", "verdict": "supported"}


def test_a_transcript_without_a_video_is_the_transcript_in_the_sources_list_and_the_audit(tmp_path: Path) -> None:
    add_upload(tmp_path, Upload("merge_sort.pdf", DECK), Upload("talk.vtt", VTT))
    material = load_material(tmp_path)
    assert material.unit(9001).unit.video is None and material.unit(9001).transcript is not None
    assert source_lines(CITED, material) == ["📝 merge sort (transcript 3:14–3:21)"]
    (row,) = audit_rows([AUDIT], material)
    assert row.chip == "Recursion tree · Transcript 3:14–3:21 of “merge sort”"
    assert material.unit(9001).timed_source == "transcript"


def test_a_unit_with_a_video_keeps_the_video() -> None:
    material = load_material(SAMPLE_COURSE)
    assert material.unit(101).unit.video is not None
    answer = CITED.replace("9001", "101")
    assert source_lines(answer, material) == ["🎬 Merge Sort and the Master Theorem (video 3:14–3:21)"]
    (row,) = audit_rows([{**AUDIT, "citation": {**AUDIT["citation"], "entity_id": "101"}}], material)
    assert row.chip == "Recursion tree · Video 3:14–3:21 of “Merge Sort and the Master Theorem”"
    assert material.unit(101).timed_source == "video"
