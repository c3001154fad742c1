"""Hostile course folders: linked manifests, deep nesting, non-files, huge and negative numbers.

Each problem is one MaterialError line naming the file and field; nothing else escapes.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from citation_core.cli.main import main as cli
from citation_core.errors import MaterialError
from citation_core.material.course import load_course, load_faqs
from tests.material_fixtures import make_course

SECRET = "api_key: sk-TOPSECRET-0123456789\n"


def error_of(root: Path) -> str:
    with pytest.raises(MaterialError) as err:
        load_course(root)
    message = str(err.value)
    assert "\n" not in message
    return message


def course_with(tmp_path: Path, old: str, new: str) -> Path:
    """The fixture course with one piece of its manifest text replaced."""
    root = tmp_path / "course"
    manifest = make_course(root)
    text = manifest.read_text(encoding="utf-8")
    assert old in text
    manifest.write_text(text.replace(old, new, 1), encoding="utf-8")
    return root


@pytest.mark.parametrize("target", ["secret.yml", "passwd"])
def test_a_manifest_linked_to_a_file_outside_the_course_is_not_read(tmp_path: Path, target: str) -> None:
    root = tmp_path / "course"
    root.mkdir()
    secret = tmp_path / target
    secret.write_text(SECRET if target == "secret.yml" else "root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    (root / "course.yml").symlink_to(secret)
    message = error_of(root)
    assert message == "course.yml: is a symbolic link to a file outside the course folder; not read"
    assert error_of(root / "course.yml") == message  # the manifest itself given


def test_the_course_command_does_not_echo_a_linked_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "course"
    root.mkdir()
    (tmp_path / "secret.yml").write_text(SECRET, encoding="utf-8")
    (root / "course.yml").symlink_to(tmp_path / "secret.yml")
    assert cli(["course", str(root)]) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        "citation-studio: course.yml: is a symbolic link to a file outside the course folder; not read\n"
    )
    assert "TOPSECRET" not in captured.out + captured.err


def test_a_manifest_linked_within_the_course_folder_still_loads(tmp_path: Path) -> None:
    root = tmp_path / "course"
    make_course(root)
    (root / "course.yml").rename(root / "course.v2.yml")
    (root / "course.yml").symlink_to("course.v2.yml")
    assert [u.id for u in load_course(root).units] == [101]


@pytest.mark.parametrize(
    "text",
    [
        "[" * 5000 + "]" * 5000,
        "{a: " * 5000 + "1" + "}" * 5000,
        "- " * 5000 + "1",
        "".join("  " * i + "a:\n" for i in range(5000)),
        "[" * 100_000 + "]" * 100_000,
    ],
    ids=["flow-lists", "flow-mappings", "block-lists", "block-mappings", "100000-deep"],
)
def test_yaml_nested_thousands_deep_is_one_line(tmp_path: Path, text: str) -> None:
    root = tmp_path / "course"
    root.mkdir()
    (root / "course.yml").write_text(text, encoding="utf-8")
    assert error_of(root) == "course.yml: invalid YAML: nested too deeply"
    (root / "faqs.yml").write_text(text, encoding="utf-8")
    with pytest.raises(MaterialError) as err:
        load_faqs(root / "faqs.yml")
    assert str(err.value) == "faqs.yml: invalid YAML: nested too deeply"


def test_a_deep_faq_file_named_by_a_manifest_is_one_line(tmp_path: Path) -> None:
    root = tmp_path / "course"
    make_course(root)
    (root / "faqs.yml").write_text("[" * 5000 + "]" * 5000, encoding="utf-8")
    assert error_of(root) == "faqs.yml: invalid YAML: nested too deeply"


def test_a_manifest_that_is_a_directory_or_a_fifo_says_so(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "course.yml").mkdir()
    assert error_of(tmp_path / "a") == (
        f"course.yml: is a directory, not a course manifest ({tmp_path / 'a' / 'course.yml'})"
    )
    (tmp_path / "b").mkdir()
    os.mkfifo(tmp_path / "b" / "course.yml")
    assert error_of(tmp_path / "b") == (
        f"course.yml: is not a regular file (a device, pipe or socket?) ({tmp_path / 'b' / 'course.yml'})"
    )
    assert error_of(tmp_path / "c") == f"course.yml: course manifest not found in {tmp_path / 'c'}"


def test_a_unit_path_that_is_a_directory_says_so(tmp_path: Path) -> None:
    root = course_with(tmp_path, "deck: decks/merge_sort.pdf", "deck: decks")
    assert error_of(root) == "course.yml: lectures[0].units[0].deck: is a directory: decks"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("- at: 4\n", "- at: -4\n", "timeline[1].at: must not be negative, got -4"),
        ("- at: 4\n", "- at: -0x10\n", "timeline[1].at: must not be negative, got -16"),
        ("- at: 4\n", "- at: -1:30\n", "timeline[1].at: must not be negative, got -90"),
        ("- at: 4\n", "- at: -.inf\n", "timeline[1].at: expected a number of seconds, got -inf"),
        ("- at: 4\n", "- at: " + "9" * 400 + "\n", "timeline[1].at: the number of seconds is too large"),
        ("page: 2\n", "page: -2\n", "timeline[1].page: pages start at 1, got -2"),
        ("page: 2\n", "page: 0\n", "timeline[1].page: pages start at 1, got 0"),
        ("1: null", "-1: '3'", "display_numbers: page -1 is not a page number >= 1"),
        ("1: null", "'-1': '3'", "display_numbers: page '-1' is not a page number >= 1"),
        ("1: null", "0: '3'", "display_numbers: page 0 is not a page number >= 1"),
        ("1: null", "'²': '3'", "display_numbers: page '²' is not a page number >= 1"),
        ("1: null", "'" + "9" * 40 + "': '3'", "display_numbers: page '" + "9" * 40 + "' is not a page number >= 1"),
        ("attachment: 2", "attachment: -2", "versions.attachment: versions start at 1, got -2"),
    ],
    ids=["negative-at", "negative-hex-at", "negative-sexagesimal-at", "minus-infinity", "400-digit-at",
         "negative-page", "page-zero", "negative-display-page", "negative-display-page-text", "display-page-zero",
         "superscript-display-page", "40-digit-display-page",
         "negative-version"],
)
def test_negative_and_impossible_pages_and_seconds_are_one_line_errors(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    root = course_with(tmp_path, old, new)
    assert error_of(root) == f"course.yml: lectures[0].units[0].{message}"


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        ("id: 101", "id: " + "9" * 5000, "a number with thousands of digits"),
        ("id: 101", "id: 2024-13-45", "month must be in 1..12"),
    ],
    ids=["5000-digit-id", "impossible-date"],
)
def test_values_python_cannot_build_are_one_line(tmp_path: Path, old: str, new: str, reason: str) -> None:
    root = course_with(tmp_path, old, new)
    assert error_of(root) == f"course.yml: invalid YAML: a value cannot be read ({reason})"
