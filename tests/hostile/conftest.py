"""Fixtures of the hostile tests: ``run_cli`` runs the command line against a model server of a test's own."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

from citation_core.cli.main import main
from citation_core.llm.config import CONFIG_DIR_ENV, OVERRIDE_ENV, defaults_dir


@pytest.fixture()
def run_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
            repo_root: Path) -> Iterator[Callable[..., tuple[int, str, str]]]:
    """``run_cli(base_url, *args)``: ``citation-studio ARGS`` in-process, every role on the model at
    ``base_url`` (timeout 1.5 s, no retries) and a citation deadline of 3 s."""
    monkeypatch.chdir(repo_root)

    def run(base_url: str, *args: str, stdin: str = "") -> tuple[int, str, str]:
        cfg = tmp_path / "config"
        cfg.mkdir(exist_ok=True)
        app = yaml.safe_load(defaults_dir().joinpath("application.yml").read_text(encoding="utf-8"))
        app.setdefault("citation", {})["deadline_seconds"] = 3
        (cfg / "application.yml").write_text(yaml.safe_dump(app), encoding="utf-8")
        models = {"models": [{"id": "offline", "type": "offline", "model": "offline-extractive-1"},
                             {"id": "local", "type": "openai_chat", "model": "m", "base_url": base_url,
                              "timeout": 1.5, "max_retries": 0}]}
        (cfg / "llm_config.yml").write_text(yaml.safe_dump(models), encoding="utf-8")
        monkeypatch.setenv(CONFIG_DIR_ENV, str(cfg))
        monkeypatch.setenv(OVERRIDE_ENV, "local")
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8")), "utf-8"))
        capsys.readouterr()
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    yield run
