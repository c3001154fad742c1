"""Reading a user's text file: the YAML reader and the transcript reader say the same line for the same fault."""

from __future__ import annotations

from pathlib import Path

import pytest

from citation_core.errors import ConfigError, MaterialError
from citation_core.material.transcript import load_transcript
from citation_core.text_file import read_text_file
from citation_core.yaml_file import read_yaml

VTT = "WEBVTT\n\n00:00:01.000 --> 00:00:03.000\nHello.\n"


def faults(tmp_path: Path, suffix: str) -> dict[str, Path]:
    folder = tmp_path / f"folder{suffix}"
    folder.mkdir()
    latin = tmp_path / f"latin{suffix}"
    latin.write_bytes(b"WEBVTT\n\ncaf\xe9: 1\n")
    return {"missing": tmp_path / f"gone{suffix}", "folder": folder, "latin": latin}


@pytest.mark.parametrize(("read", "suffix", "kind"), [
    (lambda p: read_yaml(p, ConfigError), ".yml", "YAML file"),
    (load_transcript, ".vtt", "transcript file"),
])
def test_both_readers_name_the_file_and_the_fault_in_one_line(tmp_path: Path, read, suffix: str, kind: str) -> None:
    paths = faults(tmp_path, suffix)
    expected = {
        "missing": f"gone{suffix}: file not found ({paths['missing']})",
        "folder": f"folder{suffix}: is a directory, not a {kind}",
        "latin": f"latin{suffix}: not UTF-8 text (invalid continuation byte at byte 11)",
    }
    for fault, path in paths.items():
        with pytest.raises((ConfigError, MaterialError)) as caught:
            read(path)
        assert str(caught.value) == expected[fault], fault


def test_an_unreadable_file_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied", str(self))

    yml, vtt = tmp_path / "locked.yml", tmp_path / "locked.vtt"
    yml.write_text("a: 1\n", encoding="utf-8")
    vtt.write_text(VTT, encoding="utf-8")
    monkeypatch.setattr(Path, "read_bytes", denied)  # as for a file without read permission (tests may run as root)
    with pytest.raises(ConfigError, match=r"^locked\.yml: cannot read the file \(Permission denied\)$"):
        read_yaml(yml, ConfigError)
    with pytest.raises(MaterialError, match=r"^locked\.vtt: cannot read the file \(Permission denied\)$"):
        load_transcript(vtt)


def test_a_bom_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "talk.vtt"
    path.write_bytes(b"\xef\xbb\xbf" + VTT.encode())
    assert read_text_file(path, MaterialError) == VTT
    assert load_transcript(path).cues[0].text == "Hello."
