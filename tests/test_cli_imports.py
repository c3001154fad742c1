"""What a small ``citation-studio cite`` loads: the offline pipeline only, none of the heavy libraries.

Start-up cost is the modules a command imports. ``cite`` with the offline model needs numpy (and the
embedding model's safetensors and tokenizers) for meaning, but neither retrieval (bm25s), PDF or
transcript reading (pypdf, pypdfium2, webvtt), the openai SDK and its HTTP and async stack, nor Python
YAKE with networkx: each run below is a fresh interpreter that cites a tiny input and then reports which
of those modules it holds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("scipy", "networkx", "bm25s", "yake", "pypdf", "pypdfium2", "webvtt", "openai", "httpx",
         "httpx2", "pydantic", "asyncio", "PIL", "pytesseract", "streamlit", "lingua")

RUN = f"""
import contextlib, io, json, sys
from citation_core.cli.main import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    status = main(sys.argv[1:])
heavy = {HEAVY!r}
print(json.dumps({{"status": status, "output": out.getvalue(),
                   "loaded": sorted(m for m in heavy if m in sys.modules)}}))
"""

ANSWER = "Merge sort splits the list in halves.\n"
SOURCES = {"lecture": {"pages": [{"uuid": "p", "lecture_unit_id": 1, "page_number": 1,
                                  "text": "Merge sort splits the list in halves."}]}}


def cite(tmp_path: Path, *options: str, answer_text: str = ANSWER) -> dict[str, object]:
    sources, answer = tmp_path / "sources.json", tmp_path / "answer.md"
    sources.write_text(json.dumps(SOURCES), encoding="utf-8")
    answer.write_text(answer_text, encoding="utf-8")
    args = ["cite", "--sources", str(sources), "--answer", str(answer), *options]
    env = {**os.environ, "CITATION_STUDIO_DECK_CACHE": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", RUN, *args], capture_output=True, text=True, check=True, env=env)
    result: dict[str, object] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize("options", [(), ("--json",)], ids=["text", "json"])
def test_cite_on_a_tiny_input_loads_no_heavy_library(tmp_path: Path, options: tuple[str, ...]) -> None:
    result = cite(tmp_path, *options)
    assert result["status"] == 0
    output = str(result["output"])
    text = json.loads(output)["answer"] if options else output
    # the offline pipeline really ran: the sentence got its citation with a keyword and a summary
    assert text.startswith("Merge sort splits the list in halves.[cite:L:1:1:::Merge sort:Merge sort splits")
    assert result["loaded"] == []


def test_citing_across_languages_loads_no_heavy_library(tmp_path: Path) -> None:
    """A German sentence about the English slide: the encoder decides and its statement vectors are kept in
    the vector cache, which is found and written without any PDF or image library."""
    result = cite(tmp_path, answer_text="Das Verfahren zerlegt die Folge in zwei Hälften.\n")
    assert str(result["output"]).startswith("Das Verfahren zerlegt die Folge in zwei Hälften.[cite:L:1:1:::")
    assert list((tmp_path / "cache" / "vectors" / "placement").glob("*.npy"))
    assert result["loaded"] == []


def test_the_check_sees_a_heavy_import() -> None:
    """The same report after building a search index, as ``cite --json`` once did: bm25s is named."""
    code = ("import json, sys\n"
            "from citation_core.retrieval import LectureIndex\n"
            "from citation_core.sources import PageChunk\n"
            "LectureIndex([PageChunk('p1', 1, 1, 'Merge sort splits the list in halves.')])\n"
            f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert {"bm25s"} <= set(json.loads(done.stdout))


def test_the_package_loads_its_parts_on_first_use() -> None:
    """``import citation_core`` is cheap (``ask`` sends its model request before the citation stage has
    loaded), and every public name still resolves, to the same object as its home module's."""
    probe = """
import json, sys
import citation_core
before = sorted(m for m in sys.modules if m.startswith("citation_core."))
from citation_core import CitationPipeline, Sources, cite, errors
from citation_core.pipeline import CitationPipeline as home
import citation_core as package
missing = [n for n in package.__all__ if not hasattr(package, n)]
try:
    package.no_such_name
    unknown = "resolved"
except AttributeError as err:
    unknown = str(err)
print(json.dumps({"before": before, "same": CitationPipeline is home, "errors": errors.__name__,
                  "missing": missing, "unknown": unknown, "listed": set(package.__all__) <= set(dir(package))}))
"""
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    result = json.loads(done.stdout)
    assert not [m for m in result["before"] if m.startswith(("citation_core.pipeline", "citation_core.llm"))]
    assert result["same"] and result["errors"] == "citation_core.errors" and result["missing"] == []
    assert result["unknown"] == "module 'citation_core' has no attribute 'no_such_name'" and result["listed"]
