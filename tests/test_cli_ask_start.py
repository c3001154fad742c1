"""``citation-studio ask`` with a model writer: the meaning model (the multilingual encoder, about 1 s of CPU in
a fresh process) loads while the model writes its first reply, not after it, when the writer's lookup searches
the course and then has to wait for it before the answer's first word can be asked for.

The command runs in a fresh interpreter together with the model's server (``LocalChatServer``), so that the
server's handler can see the command's own process: it holds the writer's first reply (a lookup) until the
encoder has started loading, or for at most 30 seconds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from citation_core.llm.config import OVERRIDE_ENV

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_decks"

PROBE = r"""
import contextlib, io, json, sys, threading, yaml
from pathlib import Path
from citation_core.cli.main import main
from citation_core.contract import strip_markers
from citation_core.llm.config import defaults_dir
from citation_core.testing.server import LocalChatServer, Reply
from citation_core.text import encoder

folder, course, answer = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
loading = threading.Event()
load = encoder._loaded


def observed_load():
    loading.set()
    return load()


encoder._loaded = observed_load
seen = {}


def handler(body):
    if body.task == "writer" and not any(m.get("role") == "tool" for m in body["messages"]):
        seen["loading while the writer wrote"] = loading.wait(30)
        return Reply(tool_calls=[{"id": "c1", "type": "function", "function": {
            "name": "lecture_retrieval", "arguments": json.dumps({"query": "merging two sorted halves"})}}])
    if body.task == "writer":
        return Reply(content=answer, token_rate=200)
    if body.task == "placement":
        text = body["messages"][0]["content"].split("\n\nAnswer:\n", 1)[1].strip()
        return Reply(content=text)
    return Reply(content="Merge sort")


with LocalChatServer(handler) as srv:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "application.yml").write_text(defaults_dir().joinpath("application.yml").read_text("utf-8"), "utf-8")
    models = {"models": [{"id": "offline", "type": "offline", "model": "offline-extractive-1"},
                         {"id": "local", "type": "openai_chat", "model": "m", "base_url": srv.base_url,
                          "timeout": 120, "max_retries": 0}]}
    (folder / "llm_config.yml").write_text(yaml.safe_dump(models), "utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["--config-dir", str(folder), "ask", "--course", course, "--unit", "101", "--page", "6",
                       "--question", "How does merging work?", "--stream"])
print(json.dumps({"status": status, "output": out.getvalue(), **seen}))
"""


@pytest.mark.timeout(240)
def test_ask_loads_the_meaning_model_while_the_model_writes_its_first_reply(tmp_path: Path) -> None:
    answer = "Merging walks both sorted halves once and copies the smaller head each time."
    done = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "config"), str(SAMPLES), answer],
                          capture_output=True, text=True, timeout=200, check=False, cwd=ROOT,
                          env={**os.environ, OVERRIDE_ENV: "local"})
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["status"] == 0
    # the answer streams, then the cited answer follows: the same as before, the encoder only loaded sooner
    assert result["output"].startswith(answer + "\n\n" + answer[:20])
    assert result["loading while the writer wrote"] is True
