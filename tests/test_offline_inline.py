"""The offline writer cites inline (``citation.mode: inline``): it knows what it quotes, so it puts each
quoted source's handle behind its quote and the turn's registry expands it. No placement pass guesses the
sources of a text the writer copied; the text a reader sees is the writer's, untouched."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from citation_core.chat.chat_pipeline import ChatPipeline, ChatResult
from citation_core.chat.offline_writer import _cited
from citation_core.chat.view import ViewPosition
from citation_core.contract import Marker, Text, segments, strip_markers
from citation_core.material.library import CourseMaterial, load_material

from .fakes import config

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def material() -> CourseMaterial:
    return load_material(ROOT / "sample_decks")


def ask(material: CourseMaterial, question: str, position: ViewPosition, mode: str = "inline") -> ChatResult:
    cfg = dataclasses.replace(config(), citation_modes={"default": mode})  # type: ignore[arg-type]
    return ChatPipeline(cfg, material)(question, position)


def quoted_before_markers(answer: str) -> list[tuple[str, Marker]]:
    """Each marker with the line of text right before it (the end of the quote it stands behind)."""
    out: list[tuple[str, Marker]] = []
    text = ""
    for piece in segments(answer, "stored"):
        if isinstance(piece, Text):
            text = piece.text
        else:
            assert isinstance(piece, Marker)
            out.append((text.rstrip().rsplit("\n", 1)[-1], piece))
    return out


def flat(text: str) -> str:
    return " ".join(text.split())


def test_each_quoted_slide_is_cited_behind_its_quote(material: CourseMaterial) -> None:
    result = ask(material, "How does merging work?", ViewPosition(101, page=6))
    assert "chat" in result.traces and "inline" in result.traces
    assert not any(name.startswith(("lecture", "faq")) for name in result.traces), "a placement pass ran"
    assert strip_markers(result.answer) == result.writer_answer, "the writer's text was changed"
    cited = quoted_before_markers(result.answer)
    assert len(cited) >= 2
    pages = {c.page_number: c.text for c in material.unit(101).chunks}
    for line, marker in cited:
        m = marker.match
        assert m.page
        quote = line.removeprefix("- ").rstrip("…")
        assert flat(quote)[:40] in flat(pages[int(m.page)]), f"{quote!r} is not on page {m.page}"
        assert m.keyword and m.summary


def test_a_transcript_window_is_cited_cue_by_cue(material: CourseMaterial) -> None:
    result = ask(material, "What does the lecturer say about merging?", ViewPosition(101, second=100))
    assert strip_markers(result.answer) == result.writer_answer
    segments_ = material.unit(101).segments
    cited = [(line, m) for line, m in quoted_before_markers(result.answer) if m.match.start]
    assert len(cited) >= 2
    for line, marker in cited:
        start = float(marker.match.start or 0)
        cue = min(segments_, key=lambda s: abs(s.start - start)).text
        # the marker stands right behind the sentence that says what the cue says
        assert line.endswith(cue.strip()), f"{cue!r} cited behind {line[-80:]!r}"


def test_the_open_slide_is_cited_as_placement_cites_it(material: CourseMaterial) -> None:
    """On the open slide's own question, inline and placement cite the same slides."""
    position = ViewPosition(101, page=6)
    inline = ask(material, "How does the merge step work?", position)
    placed = ask(material, "How does the merge step work?", position, "placement")
    assert inline.writer_answer == placed.writer_answer
    assert {c.match.page for _, c in quoted_before_markers(inline.answer)} == \
        {c.match.page for _, c in quoted_before_markers(placed.answer)}


def test_a_quote_that_ends_in_code_is_cited_behind_its_lead() -> None:
    part = "Slide 3 (“Git”) says:\n\n- Resolve the conflict:\n\n```\ngit add file.txt\n```"
    cited = _cited(part, "[cite:2]")
    assert cited == "Slide 3 (“Git”) says:[cite:2]\n\n- Resolve the conflict:\n\n```\ngit add file.txt\n```"
    html = MarkdownIt().render(cited)
    assert "<code>git add file.txt\n</code>" in html and "[cite:2]" not in html.split("<pre>", 1)[1]
    assert _cited("Slide 3 says:\n\n- one\n- two", "[cite:2]") == "Slide 3 says:\n\n- one\n- two[cite:2]"
    assert _cited("Slide 3 says:\n\n- one", "") == "Slide 3 says:\n\n- one"
