"""Meaning offline: the static embedding model is read from the wheel's files, touches no network, and its
absence only turns semantic matching off (with one warning), never an answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from citation_core import cite
from citation_core.pipeline.evidence import find_evidence, judge_support, meaning_matcher
from citation_core.retrieval import LectureIndex
from citation_core.sources import PageChunk, Sources
from citation_core.text.similarity import ModelUnavailable, load_model, model_folder, semantic_model

ROOT = Path(__file__).resolve().parents[1]

PRIME = PageChunk("p4", 201, 4, "Division method\n• h(k) = k mod m\n• Choose m prime, not close to a power of 2")
STABLE = PageChunk("p6", 101, 6, "Merge\n• Ties are taken from L first\n• Hence merge sort is stable")
LOAD = PageChunk("p7", 201, 7, "Chaining\n• Each slot holds a linked list\n• Load factor α = n / m")
RECURSION = PageChunk("p10", 101, 10, "Recursion tree\n• The tree has log n + 1 levels\n• Each level costs cn")


def test_the_model_is_read_from_the_installed_wheel_and_embeds_meaning() -> None:
    model = semantic_model()
    assert model is not None, "wordllama's files should be installed with the package"
    assert model.dimensions == 256
    vectors = model.embed(["Why should the table size be prime?", "choose m prime", "merge sort is stable"])
    assert vectors.shape == (3, 256)
    near = model.similarity("Why should the table size be prime?", "Division method: choose m prime")
    far = model.similarity("Why should the table size be prime?", "Merge: hence merge sort is stable")
    assert near > far + 0.2


def test_loading_touches_no_network_and_no_wordllama_code() -> None:
    """In a fresh process whose sockets all fail, the model loads and embeds; wordllama's own package (its
    loader would download) is never imported."""
    code = """
import socket, sys
def refuse(*a, **k):
    raise OSError("network used")
socket.socket.connect = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
from citation_core.text.similarity import semantic_model
m = semantic_model()
assert m is not None
v = m.embed(["lecture slides offline"])
assert v.shape == (1, 256)
assert "wordllama" not in sys.modules, "the wordllama package was imported"
print("ok")
"""
    env = {"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "HOME": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


@pytest.mark.parametrize("model", ["semantic_model", "sentence_encoder"])
def test_once_a_meaning_model_is_loaded_numpy_multiplies_on_one_thread(model: str) -> None:
    """Meaning's products are small: BLAS helper threads would only spin beside them (and take a second
    core's CPU). In a fresh process, whatever BLAS started with, loading either model leaves it one thread."""
    code = f"""
from threadpoolctl import threadpool_info
from citation_core.text.encoder import sentence_encoder
from citation_core.text.similarity import semantic_model
assert {model}() is not None
print(sorted({{i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}}))
"""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[1]"


@pytest.mark.parametrize("breakage", ["missing", "corrupt weights", "corrupt tokenizer"])
def test_a_missing_or_corrupt_model_is_refused_with_the_file_named(tmp_path: Path, breakage: str) -> None:
    source = model_folder()
    (tmp_path / "weights").mkdir()
    (tmp_path / "tokenizers").mkdir()
    weights = tmp_path / "weights" / "l2_supercat_256.safetensors"
    tokenizer = tmp_path / "tokenizers" / "l2_supercat_tokenizer_config.json"
    if breakage != "missing":
        weights.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json" if breakage == "corrupt weights"
                            else (source / "weights" / "l2_supercat_256.safetensors").read_bytes())
        tokenizer.write_text("{}" if breakage == "corrupt tokenizer"
                             else (source / "tokenizers" / tokenizer.name).read_text(encoding="utf-8"))
    with pytest.raises(ModelUnavailable) as err:
        load_model(tmp_path)
    named = {"missing": "l2_supercat_256.safetensors", "corrupt weights": "l2_supercat_256.safetensors",
             "corrupt tokenizer": "l2_supercat_tokenizer_config.json"}[breakage]
    assert named in str(err.value)


def test_without_the_model_cite_falls_back_to_shared_words_with_one_warning(tmp_path: Path) -> None:
    """The command line with a broken model folder: one warning on stderr, the answer cited lexically and
    kept word for word."""
    sources = tmp_path / "sources.json"
    sources.write_text(json.dumps({"lecture": {"pages": [
        {"uuid": "a", "lecture_unit_id": 101, "page_number": 6, "display_page_number": "6",
         "text": "Merge\n• Ties are taken from L first\n• Hence merge sort is stable"}]}}), encoding="utf-8")
    answer = tmp_path / "answer.md"
    text = "Merge sort is stable because ties are taken from L first."
    answer.write_text(text, encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CITATION_STUDIO_EMBEDDING_MODEL": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "citation_core.cli.main", "cite", "--sources", str(sources),
                           "--answer", str(answer), "--json"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    warnings = [ln for ln in done.stderr.splitlines() if "semantic matching is off" in ln]
    assert len(warnings) == 1, done.stderr
    assert "l2_supercat_256.safetensors" in warnings[0]
    result = json.loads(done.stdout)
    assert "[cite:L:101:6" in result["answer"]
    assert result["answer"].startswith(text.rstrip("."))


def test_switched_off_the_pipeline_gives_the_same_answer_text(monkeypatch: pytest.MonkeyPatch) -> None:
    answer = "Ties are taken from the left half first, so equal keys keep their order."
    on = cite(answer, Sources.of([STABLE, PRIME]))
    monkeypatch.setenv("CITATION_STUDIO_EMBEDDINGS", "off")
    off = cite(answer, Sources.of([STABLE, PRIME]))
    from citation_core.contract import strip_markers

    assert strip_markers(on.answer) == strip_markers(off.answer) == answer


def test_retrieval_finds_the_slide_a_question_asks_about_in_other_words() -> None:
    """ "Why should the table size be prime?" reaches "Division method: Choose m prime" first with either fusion
    of BM25 and meaning."""
    for fusion in ("rrf", "sum"):
        hits = LectureIndex([STABLE, LOAD, PRIME, RECURSION], fusion=fusion).search(
            "Why should the table size be prime?", k=2)
        assert hits and hits[0].uuid == "p4", fusion


def test_retrieval_does_not_answer_nonsense_by_meaning() -> None:
    index = LectureIndex([STABLE, LOAD, PRIME, RECURSION])
    assert index.search("What is the capital of Mongolia?", k=3) == []


def test_a_faithful_paraphrase_is_supported_and_a_wrong_citation_is_not() -> None:
    pool = (STABLE, LOAD, PRIME, RECURSION)
    matcher = meaning_matcher(pool)  # as the audit reads them: tokens weighted by their rarity among the sources
    for paraphrase, source in (("Pick a prime number of slots that lies far from any power of two.", PRIME),
                               ("Every slot keeps its colliding keys in a linked list.", LOAD)):
        for other in pool:
            verdict = judge_support(paraphrase, find_evidence(paraphrase, other, matcher=matcher), other,
                                    matcher=matcher)
            if other is source:
                assert verdict.verdict != "unsupported" and "meaning" in verdict.reason, verdict
            else:
                assert verdict.verdict == "unsupported", (other.uuid, verdict)


def test_a_sentence_in_other_words_is_cited_to_its_slide_and_an_unrelated_one_to_none(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Shared words alone miss "a prime number of slots … far from any power of two" (it shares two words
    with "Choose m prime, not close to a power of 2"); meaning cites it, and cites nothing behind a remark
    no slide makes. The answer text is kept word for word either way."""
    from citation_core.contract import strip_markers

    answer = ("Pick a prime number of slots that lies far from any power of two. "
              "Every slot keeps its colliding keys in a linked list. Java was released in 1995.")
    pool = Sources.of([STABLE, LOAD, PRIME, RECURSION])
    result = cite(answer, pool)
    at_second, at_third = result.answer.index("Every slot"), result.answer.index("Java")
    first, second, third = (result.answer[:at_second], result.answer[at_second:at_third],
                            result.answer[at_third:])
    assert "[cite:L:201:4:" in first and "[cite:L:201:7:" in second and "[cite:" not in third
    assert strip_markers(result.answer) == answer
    monkeypatch.setenv("CITATION_STUDIO_EMBEDDINGS", "off")
    words_only = cite(answer, pool)
    assert "[cite:L:201:4:" not in words_only.answer and strip_markers(words_only.answer) == answer
