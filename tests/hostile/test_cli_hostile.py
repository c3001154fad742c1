"""The command line on hostile input: exit 2, exactly one line on stderr, never a traceback.

Every case runs ``main(argv)`` in-process (stdout and stderr captured by ``capsys``); the lone
surrogate also runs once as a real process writing to a real pipe.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from citation_core.cli.main import main
from citation_core.contract import strip_markers
from citation_core.llm.config import CONFIG_DIR_ENV, OVERRIDE_ENV, defaults_dir
from citation_core.lms.render import MAX_ANSWER_CHARS

SOURCES: dict[str, Any] = {
    "lecture": {
        "pages": [{"uuid": "p3", "lecture_unit_id": 12, "page_number": 3,
                   "text": "Merge sort divides the list into two halves and merges them."}],
        "transcriptions": [{"uuid": "t1", "lecture_unit_id": 12, "start": 75.5, "end": 92.5,
                            "text": "The recursion tree has log n levels."}],
    },
    "faqs": [{"id": 17, "question": "Is the exam open book?", "answer": "Yes, it is open book."}],
}
ANSWER = "Merge sort divides the list into two halves and merges them.\n"


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str


@pytest.fixture()
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, repo_root: Path) -> Any:
    monkeypatch.delenv(CONFIG_DIR_ENV, raising=False)
    monkeypatch.delenv(OVERRIDE_ENV, raising=False)
    monkeypatch.chdir(repo_root)

    def run(*args: str) -> Ran:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b""), "utf-8"))
        capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else 1
        out, err = capsys.readouterr()
        return Ran(code, out, err)

    return run


def one_line(ran: Ran, code: int = 2) -> str:
    """The single stderr line of a run that failed with ``code`` and printed nothing else."""
    assert ran.code == code, ran
    assert "Traceback" not in ran.err and ran.out == ""
    assert ran.err.endswith("\n") and ran.err.count("\n") == 1, ran.err
    return ran.err.rstrip("\n")


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.fixture()
def answer(tmp_path: Path) -> str:
    return write(tmp_path / "answer.md", ANSWER)


def sources_with(tmp_path: Path, old: str, new: str) -> str:
    text = json.dumps(SOURCES)
    assert old in text
    return write(tmp_path / "sources.json", text.replace(old, new, 1))


def test_yaml_nested_5000_deep_in_the_config_folder(cli: Any, tmp_path: Path, answer: str) -> None:
    cfg = tmp_path / "config"
    cfg.mkdir()
    shutil.copy(str(defaults_dir().joinpath("llm_config.yml")), cfg / "llm_config.yml")
    write(cfg / "application.yml", "llm_configuration: " + "[" * 5000 + "]" * 5000 + "\n")
    src = write(tmp_path / "sources.json", json.dumps(SOURCES))
    line = one_line(cli("--config-dir", str(cfg), "cite", "--sources", src, "--answer", answer))
    assert line == "citation-studio: application.yml: invalid YAML: nested too deeply"


def test_json_nested_100000_deep_as_sources(cli: Any, tmp_path: Path, answer: str) -> None:
    src = write(tmp_path / "deep.json", "[" * 100_000 + "]" * 100_000)
    line = one_line(cli("cite", "--sources", src, "--answer", answer))
    assert line.startswith(f"citation-studio: {src}: invalid JSON: ")


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("75.5", "NaN", "{src}: invalid JSON: NaN is not a number JSON allows"),
        ("75.5", "1e400", "sources.json: lecture.transcriptions[0].start: expected a second >= 0, got inf"),
        ('"id": 17', '"id": ' + "7" * 5000, "{src}: invalid JSON: Exceeds the limit (4300 digits)"),
        ('"lecture_unit_id": 12', '"lecture_unit_id": ' + "7" * 19,
         "sources.json: lecture.pages[0].lecture_unit_id: a number of more than 18 digits"),
        ('"faqs": [', '"faqs": 5, "x": [', "sources.json.faqs: expected a list, got int"),
    ],
    ids=["NaN", "1e400", "5000-digit id", "19-digit id", "faqs is 5"],
)
def test_bad_numbers_and_shapes_in_sources(cli: Any, tmp_path: Path, answer: str, old: str, new: str,
                                           expected: str) -> None:
    src = sources_with(tmp_path, old, new)
    line = one_line(cli("cite", "--sources", src, "--answer", answer))
    assert line.startswith("citation-studio: " + expected.format(src=src)), line


def test_a_directory_as_sources_answer_or_input(cli: Any, tmp_path: Path, answer: str) -> None:
    src = write(tmp_path / "sources.json", json.dumps(SOURCES))
    folder = tmp_path / "folder"
    folder.mkdir()
    assert one_line(cli("cite", "--sources", str(folder), "--answer", answer)) == (
        f"citation-studio: {folder}: a directory, not a sources file")
    assert one_line(cli("cite", "--sources", src, "--answer", str(folder))) == (
        f"citation-studio: {folder}: answer file is a directory")
    assert one_line(cli("render", str(folder))) == f"citation-studio: {folder}: input file is a directory"


def test_an_unreadable_answer_file(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path / "a.md", "x")

    def denied(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", denied)
    assert one_line(cli("render", path)) == f"citation-studio: {path}: cannot read the input file (Permission denied)"


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        (["--page", "-3"], "argument --page: expected a page number >= 1, got '-3'"),
        (["--page", "0"], "argument --page: expected a page number >= 1, got '0'"),
        (["--time", "-5"], "argument --time: expected a second >= 0, got '-5'"),
        (["--time", "nan"], "argument --time: expected a second >= 0, got 'nan'"),
        (["--time", "1e400"], "argument --time: expected a second >= 0, got '1e400'"),
    ],
    ids=["page -3", "page 0", "time -5", "time nan", "time 1e400"],
)
def test_negative_page_or_second(cli: Any, sample_course: Path, where: list[str], expected: str) -> None:
    line = one_line(cli("ask", "--course", str(sample_course), "--unit", "101", *where, "--question", "What?"))
    assert line == f"citation-studio ask: error: {expected}"


def test_a_5000_digit_unit_id(cli: Any, sample_course: Path) -> None:
    line = one_line(cli("ask", "--course", str(sample_course), "--unit", "9" * 5000, "--page", "1", "--question", "x"))
    assert line == ("citation-studio ask: error: argument --unit: expected a unit id (a whole number >= 0), "
                    "got '99999999999999999999…'")


def test_render_refuses_an_answer_over_the_limit(cli: Any, tmp_path: Path) -> None:
    path = write(tmp_path / "big.md", "[" * (MAX_ANSWER_CHARS + 1))
    assert one_line(cli("render", path)) == (
        f"citation-studio: {path}: 200,001 characters, more than the limit of 200,000 characters (MAX_ANSWER_CHARS)")


def test_an_unexpected_error_is_one_line_with_exit_1(cli: Any, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(text: str) -> str:
        raise ValueError("boom\nsecond line")

    monkeypatch.setattr("citation_core.lms.render.render_markdown", broken)
    line = one_line(cli("render", write(tmp_path / "a.md", "x")), code=1)
    assert line == "citation-studio: internal error: ValueError: boom second line"


# --- a lone surrogate in the answer (from a sources file's \ud800 escape) -------------------------


@pytest.fixture()
def surrogate_sources(tmp_path: Path) -> str:
    data = {"lecture": {"pages": [{"uuid": "p3", "lecture_unit_id": 12, "page_number": 3,
                                   "text": "Merge sort divides the list \ud800 into two halves and merges them."}]}}
    return write(tmp_path / "sources.json", json.dumps(data))  # ensure_ascii: the file holds "\ud800"


def test_a_lone_surrogate_reaches_stdout_escaped(cli: Any, surrogate_sources: str, answer: str) -> None:
    ran = cli("cite", "--sources", surrogate_sources, "--answer", answer)
    assert (ran.code, ran.err) == (0, "")
    assert "\\ud800" in ran.out and "\ud800" not in ran.out
    assert strip_markers(ran.out.replace("\\ud800", "\ud800")) == ANSWER  # nothing else changed
    ran = cli("cite", "--sources", surrogate_sources, "--answer", answer, "--json")
    assert (ran.code, ran.err) == (0, "")
    data = json.loads(ran.out)  # the escape is JSON's own: the surrogate comes back as it was
    assert "\ud800" in data["answer"] and strip_markers(data["answer"]) == ANSWER


def command() -> list[str]:
    script = Path(sys.executable).parent / "citation-studio"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "citation_core.cli.main"]


def test_a_lone_surrogate_on_a_real_pipe(surrogate_sources: str, answer: str, repo_root: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in (CONFIG_DIR_ENV, OVERRIDE_ENV, "PYTHONIOENCODING")}
    out = subprocess.run([*command(), "cite", "--sources", surrogate_sources, "--answer", answer],
                         capture_output=True, cwd=repo_root, env=env, timeout=120)
    assert (out.returncode, out.stderr) == (0, b"")
    text = out.stdout.decode("utf-8")  # valid UTF-8 on the pipe
    assert "\\ud800" in text and strip_markers(text.replace("\\ud800", "\ud800")) == ANSWER


def test_control_characters_in_names_never_reach_the_terminal(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A unit named with ESC sequences (set the window title, clear the screen), BEL, NUL, a right-to-left override
    and a zero-width space is read clean; what the terminal is sent holds no control character."""
    import yaml

    from citation_core.material.library import load_material
    from tests.material_fixtures import make_course, write_yaml

    root = tmp_path / "course"
    make_course(root)
    data = yaml.safe_load((root / "course.yml").read_text(encoding="utf-8"))
    data["name"] = "Algo\x1b]0;pwned\x07rithms"
    data["lectures"][0]["name"] = "Sort\x1b[2J\x1b[Hing\x00"
    data["lectures"][0]["units"][0]["name"] = "Merge\u202e tros\u200b\x9b31m"
    write_yaml(root / "course.yml", data)
    material = load_material(root)
    assert material.course.name == "Algo ]0;pwned rithms"
    assert material.units[101].unit.lecture_name == "Sort [2J [Hing"
    assert material.units[101].unit.name == "Merge tros 31m"
    for args in (["course", str(root)], ["course", str(root), "--json"]):
        assert main(args) == 0
        out, err = capsys.readouterr()
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200b]", out + err), out
    # what reaches a terminal from elsewhere (an answer, a warning) is escaped, JSON stays valid JSON
    from citation_core.cli import main as cli_module

    cli_module._print("title\x1b]0;x\x07 \u202eevil\x9b")
    cli_module._emit({"name": "a\x1b[2Jb\x9bc\u202ed"})
    out, _ = capsys.readouterr()
    first, rest = out.split("\n", 1)
    assert first == "title\\x1b]0;x\\x07 \\u202eevil\\x9b"
    assert json.loads(rest) == {"name": "a\x1b[2Jb\x9bc\u202ed"}
    assert "\x1b" not in rest and "\x9b" not in rest and "\u202e" not in rest
