"""The places mode over real HTTP: ``openai_chat`` models against a LocalChatServer on 127.0.0.1.

A scripted model answers the placement request with places JSON (valid, fenced, with invented ids, not
JSON at all); a cooperative one answers every task in both modes, so that the output tokens the server
reports for placement can be compared between the modes on a short and a 300-word answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citation_core.contract import parse, strip_markers
from citation_core.llm.config import LlmConfig, load_config
from citation_core.pipeline import CitationPipeline, CitationResult
from citation_core.sources import Sources
from citation_core.testing import ChatRequest, LocalChatServer, Reply, cooperative_handler

from .fakes import ANSWER, MERGE, MERGE_STEP, TREE

SOURCES = Sources(lecture=(MERGE, MERGE_STEP, TREE))  # numbered 1, 2, 3 in the prompt
COOPERATIVE = cooperative_handler()

# General remarks that no source supports (no two words of four letters or more shared with any of them).
REMARKS = (
    "Take a moment to work through a small example on paper before moving on.",
    "Drawing pictures of what happens often helps more than reading the definition again.",
    "If something is unclear, write down the exact question and bring it to the tutorial.",
    "Comparing your own notes with a classmate is a good way to find gaps early.",
    "Practice problems from earlier weeks are a useful warm-up before the exercises.",
    "Try to explain the idea aloud to yourself, as if teaching a friend who missed class.",
)


def long_answer(words: int = 300) -> str:
    """``ANSWER`` followed by general remarks, ``words`` words in all."""
    parts, k = [ANSWER], 0
    while len(" ".join(parts).split()) < words:
        parts.append(REMARKS[k % len(REMARKS)])
        k += 1
    return " ".join(parts)


def write_config(tmp_path: Path, base_url: str, mode: str) -> LlmConfig:
    (tmp_path / "llm_config.yml").write_text(
        f"""models:
  - id: local
    type: openai_chat
    model: small-model-1
    base_url: {base_url}
    timeout: 5
    max_retries: 0
""",
        encoding="utf-8",
    )
    (tmp_path / "application.yml").write_text(
        f"""llm_configuration:
  citation_pipeline:
    default: {{chat: local, keyword_summary: local}}
    advanced: {{chat: local}}
  chat_pipeline:
    default: {{chat: local}}
    advanced: {{chat: local}}
citation:
  placement_mode: {mode}
""",
        encoding="utf-8",
    )
    return load_config(tmp_path, override="")


def places_then_cooperative(placement: str):  # type: ignore[no-untyped-def]
    """A server handler: ``placement`` for the places request, the cooperative LLM for everything else."""
    def handler(request: ChatRequest) -> Reply:
        return Reply(placement) if request.task == "placement_places" else COOPERATIVE(request)
    return handler


def pages(answer: str) -> list[str]:
    return [m.page or m.start or "" for m in parse(answer, "client")]


@pytest.mark.parametrize(("reply", "cited", "failure"), [
    ('{"1": [1], "3": [3, 2]}', ["3", "75", "4"], None),
    ('```json\n{"1": [1], "3": [3]}\n```', ["3", "75"], ("validation", "reply wrapped in a Markdown fence: 1")),
    ('{"1": [1, 9], "2": [7], "3": [3]}', ["3", "75"], ("validation", "unknown ids removed: 2")),
    ("Sentence 1 is supported by paragraph 1.", [], ("placement", "the placement reply is not JSON")),
])
def test_a_scripted_places_reply_over_http(tmp_path: Path, reply: str, cited: list[str],
                                           failure: tuple[str, str] | None) -> None:
    with LocalChatServer(places_then_cooperative(reply)) as srv:
        result = CitationPipeline.from_config(write_config(tmp_path, srv.base_url, "places"))(ANSWER, SOURCES)
        requests = srv.requests
    placement = [r for r in requests if r.task and r.task.startswith("placement")]
    assert [r.task for r in placement] == ["placement_places"]
    prompt = placement[0].body["messages"][0]["content"]
    assert '{"n": 3, "text": "The recursion tree has log n levels' in prompt and "\nAnswer:" not in prompt
    assert result.traces["lecture"].calls[0].output == reply  # as the server sent it
    assert strip_markers(result.answer) == ANSWER
    assert pages(result.answer) == cited
    if failure is None:
        assert result.failures == ()
        return
    assert [(f.kind, failure[1] in f.message) for f in result.failures] == [(failure[0], True)]
    if failure[0] == "placement":
        assert result.answer == ANSWER and result.citations == ()


def placement_tokens(result: CitationResult) -> int:
    (call,) = [c for t in result.traces.values() for c in t.calls if c.task.startswith("placement")]
    assert not call.estimated  # the server's count
    return call.completion_tokens


def test_places_output_does_not_grow_with_the_answer(tmp_path: Path) -> None:
    long = long_answer()
    assert len(long.split()) >= 300
    out: dict[tuple[str, str], CitationResult] = {}
    for mode in ("iris", "places"):
        folder = tmp_path / mode
        folder.mkdir()
        with LocalChatServer(cooperative_handler()) as srv:
            pipe = CitationPipeline.from_config(write_config(folder, srv.base_url, mode))
            for name, answer in (("short", ANSWER), ("long", long)):
                out[(mode, name)] = pipe(answer, SOURCES)
    for result in out.values():  # the same three sentences cited, the remarks not at all, in both modes
        assert pages(result.answer) == ["3", "4", "75"] and result.failures == ()
    tokens = {key: placement_tokens(result) for key, result in out.items()}
    # Iris: the model writes the whole answer again, so its output grows with the answer ...
    assert tokens[("iris", "long")] >= 5 * tokens[("iris", "short")]
    # ... places: the same sentences cited, the same small reply, however long the answer
    assert tokens[("places", "long")] == tokens[("places", "short")]
    assert tokens[("places", "long")] * 20 <= tokens[("iris", "long")]
    turn = {key: result.usage()["completion_tokens"] for key, result in out.items()}
    assert turn[("places", "long")] < turn[("iris", "long")] - tokens[("iris", "long")] // 2
    assert json.loads(out[("places", "long")].traces["lecture"].calls[0].output) == {"1": [1], "2": [2], "3": [3]}
