"""The command line: real files, exit codes (2 for bad input, 1 for a failed run) and one-line errors.

``main(argv)`` runs in-process with stdin, stdout and stderr of its own; two smoke tests start the
installed ``citation-studio`` as a real process.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from citation_core.cli.main import main
from citation_core.contract import parse, strip_markers
from citation_core.llm.config import CONFIG_DIR_ENV, OVERRIDE_ENV, defaults_dir

SOURCES = {
    "lecture": {
        "pages": [
            {"uuid": "p3", "lecture_unit_id": 12, "page_number": 3, "display_page_number": "1",
             "text": "Merge sort\nDivide the list into two halves, sort each half recursively, then merge them."},
            {"uuid": "p4", "lecture_unit_id": 12, "page_number": 4, "display_page_number": "2",
             "text": "Merge step\nThe merge step combines two sorted lists in linear time using two pointers."},
            {"uuid": "p5", "lecture_unit_id": 12, "page_number": 5, "display_page_number": "3", "text": ""},
        ],
        "transcriptions": [
            {"uuid": "t1", "lecture_unit_id": 12, "start": 75.6, "end": 92.9, "page_number": 5,
             "text": "The recursion tree of merge sort has log n levels and each level costs n in total."},
        ],
    },
    "faqs": [{"id": 17, "question": "Is the exam open book?",
              "answer": "Yes, the final exam is open book and printed notes are allowed."}],
}
ANSWER = (
    "Merge sort divides the list into two halves and sorts each half recursively.\n\n"
    "The merge step combines two sorted lists in linear time. The recursion tree has log n levels "
    "and each level costs n. The final exam is open book and printed notes are allowed.\n"
)


@dataclass(frozen=True)
class Ran:
    returncode: int
    stdout: str
    stderr: str


Cli = Callable[..., Ran]


@pytest.fixture()
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, repo_root: Path) -> Cli:
    """``cli(*args, stdin=None)``: ``citation-studio ARGS`` in-process, with the packaged default configuration."""
    monkeypatch.delenv(CONFIG_DIR_ENV, raising=False)
    monkeypatch.delenv(OVERRIDE_ENV, raising=False)
    monkeypatch.chdir(repo_root)

    def run(*args: str, stdin: str | None = None) -> Ran:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((stdin or "").encode("utf-8")), "utf-8"))
        capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse: usage errors and --help
            code = exc.code if isinstance(exc.code, int) else 1
        out, err = capsys.readouterr()
        return Ran(code, out, err)

    return run


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path]:
    src = tmp_path / "sources.json"
    src.write_text(json.dumps(SOURCES), encoding="utf-8")
    ans = tmp_path / "answer.md"
    ans.write_text(ANSWER, encoding="utf-8")
    return src, ans


def test_cite_json_gives_final_markers_with_unique_keywords(cli: Cli, files: tuple[Path, Path]) -> None:
    src, ans = files
    out = cli("cite", "--sources", str(src), "--answer", str(ans), "--json")
    assert out.returncode == 0, out.stderr
    data: dict[str, Any] = json.loads(out.stdout)
    assert set(data) >= {"answer", "citations", "used_sequence_numbers", "failures", "usage"}
    assert strip_markers(data["answer"]) == ANSWER
    cites = data["citations"]
    assert {(c["type"], c["page"], c["start"], c["end"]) for c in cites} == {
        ("F", None, None, None), ("L", 3, None, None), ("L", 4, None, None), ("L", None, 75, 92)}
    lecture_keywords = [c["keyword"] for c in cites if c["type"] == "L"]
    assert all(lecture_keywords) and len(set(lecture_keywords)) == len(lecture_keywords)
    assert data["used_sequence_numbers"] == {"faq": [1], "lecture": [1, 2, 3]}
    assert data["failures"] == [] and data["usage"]["calls"] > 0
    # the FAQ pass runs first: its marker is written before the lecture pass sees the answer
    assert [m.type for m in parse(data["answer"], "client")] == ["L", "L", "L", "F"]


def test_cite_plain_prints_the_final_answer(cli: Cli, files: tuple[Path, Path]) -> None:
    src, ans = files
    out = cli("cite", "--sources", str(src), "--answer", str(ans), "--lang", "de")
    assert out.returncode == 0
    assert strip_markers(out.stdout) == ANSWER
    assert len(parse(out.stdout, "client")) == 4


@pytest.mark.parametrize(
    ("mutate", "needle"),
    [
        (lambda d: d["lecture"]["pages"][0].pop("uuid"), "lecture.pages[0]: missing field 'uuid'"),
        (lambda d: d["faqs"][0].pop("id"), "faqs[0]: missing field 'id'"),
        (lambda d: d["lecture"]["transcriptions"][0].update(start="soon"), "transcriptions[0].start: expected"),
    ],
)
def test_cite_bad_sources_exit_2_with_one_line(cli: Cli, tmp_path: Path, mutate: Any, needle: str) -> None:
    data = json.loads(json.dumps(SOURCES))
    mutate(data)
    src = tmp_path / "s.json"
    src.write_text(json.dumps(data))
    ans = tmp_path / "a.md"
    ans.write_text(ANSWER)
    out = cli("cite", "--sources", str(src), "--answer", str(ans))
    assert out.returncode == 2 and out.stdout == ""
    assert needle in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_cite_missing_file_and_invalid_json(cli: Cli, tmp_path: Path) -> None:
    out = cli("cite", "--sources", str(tmp_path / "nope.json"), "--answer", str(tmp_path / "a.md"))
    assert out.returncode == 2 and "nope.json: file not found" in out.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    (tmp_path / "a.md").write_text("x")
    out = cli("cite", "--sources", str(bad), "--answer", str(tmp_path / "a.md"))
    assert out.returncode == 2 and "bad.json: invalid JSON at line 1" in out.stderr


def test_parse_prints_matches_per_pattern(cli: Cli) -> None:
    text = "A [cite:L:12:3::!1] B [cite:L:12:3:::Split:Ratio: 2:1:va4] C [cite:F:1::::k:s]"
    stored = json.loads(cli("parse", "--pattern", "stored", "-", stdin=text).stdout)
    assert [(m["type"], m["summary"], m["version"]) for m in stored] == [("L", "Ratio: 2:1", "va4"), ("F", "s", None)]
    iris = json.loads(cli("parse", "--pattern", "iris", "-", stdin=text).stdout)
    assert iris == [{"span": [2, 19], "type": "L", "entity_id": "12", "page": "3", "start": "", "end": "",
                     "keyword": None, "summary": None, "seq": "1", "version": None}]
    server = json.loads(cli("parse", "--pattern", "server", "-", stdin=text).stdout)
    assert [m["summary"] for m in server] == ["Ratio: 2:1:va4"]
    out = cli("parse", "--pattern", "nope", "-", stdin=text)
    assert out.returncode == 2 and "invalid choice" in out.stderr


def test_deck_json_gives_deck_index_and_printed_number(cli: Cli, sample_course: Path, repo_root: Path) -> None:
    out = cli("deck", str(sample_course / "decks" / "merge_sort.pdf"), "--json")
    assert out.returncode == 0, out.stderr
    pages = json.loads(out.stdout)["pages"]
    assert len(pages) == 17
    assert [(p["page_number"], p["display_page_number"], p["display_source"]) for p in pages[:3]] == [
        (1, None, "none"), (2, None, "none"), (3, "1", "page_labels")]
    assert pages[5]["display_page_number"] == "4"
    assert json.loads(out.stdout)["language"] == "en"
    out = cli("deck", str(sample_course / "decks" / "merge_sort.pdf"))
    assert out.stdout.splitlines()[0] == "merge_sort.pdf: 17 pages, language en"
    out = cli("deck", str(repo_root / "README.md"))
    assert out.returncode == 2 and "README.md" in out.stderr


def test_transcript_json_on_the_real_srt(cli: Cli, real_dir: Path) -> None:
    out = cli("transcript", str(real_dir / "transcripts" / "en_google_PainlessPython_part1.srt"), "--json")
    segs = json.loads(out.stdout)["segments"]
    assert len(segs) == 919 and segs[0]["start"] == 3.0 and isinstance(segs[-1]["end"], float)
    assert json.loads(out.stdout)["language"] == "en"
    out = cli("transcript", str(real_dir / "transcripts" / "en_google_PainlessPython_part1.srt"))
    assert out.stdout.splitlines()[0] == "en_google_PainlessPython_part1.srt: 919 cues, language en"


def test_course_json_lists_units_with_relative_paths(cli: Cli, sample_course: Path) -> None:
    data = json.loads(cli("course", str(sample_course), "--json").stdout)
    assert data["course"] == {"id": 1, "name": "Algorithms and Data Structures", "language": "en"}
    units = {u["id"]: u for u in data["units"]}
    assert units[101]["deck"] == "decks/merge_sort.pdf" and units[101]["video"] == "videos/merge_sort.mp4"
    assert units[201]["video"] is None and units[101]["versions"] == {"attachment": 1, "video": 1}
    assert cli("course", str(sample_course / "nope")).returncode == 2


def test_course_with_a_deck_outside_its_folder_lists_the_full_path(cli: Cli, sample_course: Path,
                                                                    tmp_path: Path) -> None:
    root = tmp_path / "course"
    root.mkdir()
    deck = (sample_course / "decks" / "merge_sort.pdf").resolve()
    (root / "course.yml").write_text(
        "id: 5\nname: Elsewhere\nlanguage: en\nlectures:\n  - id: 50\n    name: L\n    units:\n"
        f"      - id: 501\n        name: Merge\n        deck: {deck}\n", encoding="utf-8")
    out = cli("course", str(root), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["units"][0]["deck"] == str(deck)


def test_ask_cites_deck_index_while_the_text_names_printed_numbers(cli: Cli, sample_course: Path) -> None:
    out = cli("ask", "--course", str(sample_course), "--unit", "101", "--page", "6", "--question",
              "How does the merge procedure on this slide combine two sorted halves?", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["current_view"]["page"] == 6 and data["current_view"]["display_page_number"] == "4"
    assert "Slide 4" in data["answer"] and "page 6" not in data["answer"].lower()
    slide_cites = [c for c in data["citations"] if c["page"] is not None]
    assert 6 in [c["page"] for c in slide_cites]
    assert data["context_switched"] is False


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--unit", "999", "--page", "1"], "unit 999"),
        (["--unit", "101", "--page", "99"], "page 99: out of range"),
        (["--unit", "201", "--time", "5"], "unit 201: has no transcript"),
    ],
)
def test_ask_bad_input_exit_2(cli: Cli, sample_course: Path, args: list[str], needle: str) -> None:
    out = cli("ask", "--course", str(sample_course), *args, "--question", "What?")
    assert out.returncode == 2 and needle in out.stderr and len(out.stderr.strip().splitlines()) == 1


def unreachable_model_config(root: Path) -> Path:
    """The packaged configuration with every role on a chat server nobody listens to (port 9)."""
    cfg = root / "config"
    cfg.mkdir()
    packaged = defaults_dir().joinpath("application.yml").read_text(encoding="utf-8")
    (cfg / "application.yml").write_text(packaged, encoding="utf-8")
    models = {"models": [{"id": "offline", "type": "offline", "model": "offline-extractive-1"},
                         {"id": "nobody", "type": "openai_chat", "model": "m", "base_url": "http://127.0.0.1:9/v1",
                          "timeout": 5, "max_retries": 0}]}
    (cfg / "llm_config.yml").write_text(yaml.safe_dump(models), encoding="utf-8")
    return cfg


def test_a_failed_run_exits_1_with_one_line(cli: Cli, sample_course: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = unreachable_model_config(tmp_path)
    ask = ("ask", "--course", str(sample_course), "--unit", "101", "--page", "6", "--question", "What?")
    monkeypatch.setenv(OVERRIDE_ENV, "nobody")
    out = cli("--config-dir", str(cfg), *ask)
    assert out.returncode == 1 and out.stdout == ""
    assert "answer writer failed" in out.stderr and "127.0.0.1:9" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    # $CITATION_STUDIO_CONFIG_DIR picks the same configuration
    monkeypatch.setenv(CONFIG_DIR_ENV, str(cfg))
    assert cli(*ask).returncode == 1


def test_a_broken_configuration_exits_2_with_one_line(cli: Cli, files: tuple[Path, Path], tmp_path: Path) -> None:
    src, ans = files
    cfg = unreachable_model_config(tmp_path)
    (cfg / "application.yml").write_text("llm_configuration: [not, a, mapping]\n", encoding="utf-8")
    out = cli("--config-dir", str(cfg), "cite", "--sources", str(src), "--answer", str(ans))
    assert out.returncode == 2 and out.stdout == ""
    assert "application.yml: llm_configuration" in out.stderr and len(out.stderr.strip().splitlines()) == 1


# --- the installed command as a real process ----------------------------------------------------


def command() -> list[str]:
    script = Path(sys.executable).parent / "citation-studio"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "citation_core.cli.main"]


def test_process_help_lists_the_commands(repo_root: Path) -> None:
    out = subprocess.run([*command(), "--help"], capture_output=True, text=True, cwd=repo_root, timeout=120)
    assert out.returncode == 0 and out.stderr == ""
    for name in ("cite", "parse", "deck", "transcript", "course", "ask", "render", "bench"):
        assert name in out.stdout


def test_process_cite_reads_the_answer_from_stdin(files: tuple[Path, Path], repo_root: Path) -> None:
    src, _ = files
    env = {k: v for k, v in os.environ.items() if k not in (CONFIG_DIR_ENV, OVERRIDE_ENV)}
    out = subprocess.run([*command(), "cite", "--sources", str(src), "--answer", "-"], input=ANSWER,
                         capture_output=True, text=True, cwd=repo_root, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert strip_markers(out.stdout) == ANSWER and len(parse(out.stdout, "client")) == 4
