"""How long ``citation-studio cite`` and ``ask`` take against a chat-completions server that trickles its
replies a byte at a time (``python -m bench.hostile_model``).

The configuration is the one a probe used: every role on the local server, ``timeout: 5``, no retries,
``citation.deadline_seconds: 20``. Each case runs the installed command as a fresh process and reports its
wall time beside the bound it must stay under: a call ends at the model's timeout (however its bytes
arrive), the citation stage at its deadline, ``ask`` at the writer's timeout plus the deadline. Before
calls were cut in flight, each case ran past 240 s (the reply is a few hundred bytes at one every 2 s).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from citation_core.llm.config import CONFIG_DIR_ENV, OVERRIDE_ENV, defaults_dir
from citation_core.testing import ChatRequest, LocalChatServer, Reply, cooperative_handler

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT, DEADLINE, PAUSE = 5, 20, 2.0
WRITTEN = "Merge sort divides the list into two halves and sorts each half recursively."
SOURCES = {"lecture": {"pages": [{"uuid": "p3", "lecture_unit_id": 12, "page_number": 3, "text":
                                  "Merge sort\nDivide the list into two halves, sort each half recursively."}]}}

# case: (tasks whose replies trickle, command, the bound in seconds)
CASES: dict[str, tuple[frozenset[str], str, float]] = {
    "cite, placement trickles": (frozenset({"placement"}), "cite", TIMEOUT),
    "cite, keywords and summaries trickle": (frozenset({"keyword", "keywords_batched", "summary"}), "cite", DEADLINE),
    "ask, the writer trickles": (frozenset({"writer"}), "ask", TIMEOUT),
    "ask, the citation stage trickles": (frozenset({"placement", "keyword", "keywords_batched", "summary"}), "ask",
                                         TIMEOUT + DEADLINE),
}


def handler(tasks: frozenset[str]):  # type: ignore[no-untyped-def]
    base = cooperative_handler()

    def answer(request: ChatRequest) -> Reply:
        reply = Reply(WRITTEN) if request.task == "writer" else base(request)
        return dataclasses.replace(reply, trickle=PAUSE) if request.task in tasks else reply

    return answer


def run(case: str, folder: Path) -> tuple[float, int]:
    tasks, command, _ = CASES[case]
    with LocalChatServer(handler(tasks)) as srv:
        cfg = folder / "config"
        cfg.mkdir(exist_ok=True)
        app = yaml.safe_load(defaults_dir().joinpath("application.yml").read_text(encoding="utf-8"))
        app.setdefault("citation", {})["deadline_seconds"] = DEADLINE
        (cfg / "application.yml").write_text(yaml.safe_dump(app), encoding="utf-8")
        (cfg / "llm_config.yml").write_text(yaml.safe_dump({"models": [
            {"id": "offline", "type": "offline", "model": "offline-extractive-1"},
            {"id": "local", "type": "openai_chat", "model": "m", "base_url": srv.base_url, "timeout": TIMEOUT,
             "max_retries": 0}]}), encoding="utf-8")
        (folder / "sources.json").write_text(json.dumps(SOURCES), encoding="utf-8")
        args = (["cite", "--sources", str(folder / "sources.json"), "--answer", "-"] if command == "cite" else
                ["ask", "--course", str(ROOT / "sample_decks"), "--unit", "101", "--page", "6", "--question",
                 "How does merge sort split the list?"])
        env = {**os.environ, CONFIG_DIR_ENV: str(cfg), OVERRIDE_ENV: "local"}
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "citation_core.cli.main", *args], input=WRITTEN, env=env,
                              capture_output=True, text=True, timeout=600)
        return time.monotonic() - started, done.returncode


def main() -> None:
    argparse.ArgumentParser(description=__doc__).parse_args()
    print(f"model timeout {TIMEOUT} s, citation deadline {DEADLINE} s, one byte every {PAUSE:g} s\n")
    print("| case | wall time | bound + 5 s | exit |\n|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            wall, code = run(case, Path(tmp))
            print(f"| {case} | {wall:.1f} s | {CASES[case][2] + 5:g} s | {code} |", flush=True)


if __name__ == "__main__":
    main()
