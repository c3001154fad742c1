"""One chip per claim: a list that quotes one slide is cited once, behind its last item, and a chip's summary
is about the passage the chip quotes (its evidence), not the slide's first lines."""

from __future__ import annotations

from citation_core import cite
from citation_core.contract import parse, strip_markers
from citation_core.llm.base import LlmRequest
from citation_core.pipeline import CitationPipeline
from citation_core.sources import PageChunk, Sources
from citation_core.testing import ScriptedModel

RESOLVE = PageChunk("p15", 7, 15, "Merge-Konflikte lösen\n• Konfliktmarker in der Datei suchen\n"
                    "• Die gewünschte Version der Zeilen behalten\n• Die Konfliktmarker aus der Datei entfernen\n"
                    "• Datei mit git add als gelöst markieren", "15")
REBASE = PageChunk("p16", 7, 16, "Rebase\n• Rebase setzt Commits auf einen neuen Basis-Commit\n"
                   "• Die Historie bleibt dabei linear und übersichtlich", "16")
HASHING = PageChunk("p3", 9, 3, "Hashing\nEine Hashfunktion bildet Schlüssel auf Plätze der Tabelle ab.\n"
                    "Kollisionen entstehen, wenn zwei Schlüssel denselben Platz bekommen.\n"
                    "Beim Verketten speichert jeder Platz eine verkettete Liste seiner Schlüssel.\n"
                    "Offene Adressierung sucht stattdessen einen freien Platz in der Tabelle.", "3")
SOURCES = Sources(lecture=(RESOLVE, REBASE, HASHING))

LIST = ("Folie 15 sagt:\n\n"
        "- Konfliktmarker in der Datei suchen\n"
        "- Die gewünschte Version der Zeilen behalten\n"
        "- Die Konfliktmarker aus der Datei entfernen\n"
        "- Datei mit git add als gelöst markieren\n"
        "- Rebase setzt Commits auf einen neuen Basis-Commit\n"
        "- Die Historie bleibt dabei linear und übersichtlich")


def _cited_lines(answer: str) -> list[tuple[str, list[str]]]:
    """Each line of the answer with the pages its markers cite."""
    return [(strip_markers(line), [m.page or "" for m in parse(line, "client")]) for line in answer.split("\n")]


def test_a_list_quoting_one_slide_gets_one_chip_behind_its_last_item() -> None:
    result = cite(LIST, SOURCES, language="de")
    assert strip_markers(result.answer) == LIST
    lines = dict(_cited_lines(result.answer))
    assert [page for pages in lines.values() for page in pages] == ["15", "16"]
    assert lines["- Datei mit git add als gelöst markieren"] == ["15"]  # the last item of slide 15's run
    assert lines["- Die Historie bleibt dabei linear und übersichtlich"] == ["16"]  # another source: own chip
    # the trace says which markers were left out and which run the kept one stands for
    validate = next(p for p in result.traces["lecture"].to_json()["phases"] if p["name"] == "validate")
    (run, other) = validate["outputs"]["runs"]
    assert LIST[run["start"] : run["end"]].startswith("Konfliktmarker in der Datei suchen\n")
    assert LIST[run["start"] : run["end"]].endswith("als gelöst markieren")
    assert LIST[other["start"] : other["end"]].startswith("Rebase setzt") and other["end"] == len(LIST)
    assert len(validate["outputs"]["merged_in_lists"]) == 4  # three of slide 15, one of slide 16


def test_the_chip_of_a_run_quotes_the_run_and_its_summary_comes_from_the_quote() -> None:
    result = cite(LIST, SOURCES, language="de")
    chip = next(c for c in result.citations if c.ref.page == 15)
    assert chip.sentence.startswith("Konfliktmarker in der Datei suchen")  # the claim is the whole run
    assert chip.evidence is not None and chip.evidence.text.count("\n") >= 1
    assert chip.summary and all(part.rstrip(".") in chip.evidence.text for part in chip.summary.split(". "))


def test_prose_sentences_and_items_cut_by_an_uncited_one_keep_their_chips() -> None:
    prose = "Konfliktmarker in der Datei suchen. Die Konfliktmarker aus der Datei entfernen."
    assert len(parse(cite(prose, SOURCES, language="de").answer, "client")) == 2
    cut = ("- Konfliktmarker in der Datei suchen\n- Das Wetter ist heute schön und warm\n"
           "- Die Konfliktmarker aus der Datei entfernen")
    assert [pages for _, pages in _cited_lines(cite(cut, SOURCES, language="de").answer)] == [["15"], [], ["15"]]


def test_runs_follow_lists_items_and_code_blocks_inside_items() -> None:
    from citation_core.pipeline.placement import Insertion, list_items, one_chip_per_run

    answer = "Intro:\n\n- a\n- b:\n  ```\n  - not an item\n  ```\n- c\n\nText.\n\n1. d\n2. e"
    items = list_items(answer)
    assert [answer[i.start : i.end].split("\n")[0] for i in items] == ["a", "b:", "c", "d", "e"]
    assert [i.list_no for i in items] == [1, 1, 1, 2, 2]
    ends = [i.end for i in items]
    same = tuple(Insertion(e, 1) for e in ends)
    kept, merged = one_chip_per_run(answer, same)
    assert [k.offset for k in kept] == [ends[2], ends[4]]  # one per list
    assert kept[0].claim_start == items[0].start and merged == (1, 1, 1)
    mixed = (Insertion(ends[0], 1), Insertion(ends[1], 1), Insertion(ends[1], 2), Insertion(ends[2], 1))
    assert one_chip_per_run(answer, mixed)[0] == mixed  # {1} then {1, 2} then {1}: no run


def test_a_summary_is_about_the_passage_the_chip_quotes_not_the_first_lines() -> None:
    answer = "Beim Verketten speichert jeder Platz eine Liste seiner Schlüssel."
    (chip,) = cite(answer, SOURCES, language="de").citations
    assert chip.evidence is not None and "Verketten" in chip.evidence.text
    assert "Verketten" in chip.summary and "Hashfunktion" not in chip.summary


def test_every_model_is_given_the_passage_its_summary_is_about() -> None:
    seen: list[dict[str, object]] = []

    def summary(request: LlmRequest) -> str:
        seen.append(dict(request.inputs))
        return "Beim Verketten hat jeder Platz eine Liste."

    model = ScriptedModel({"placement": "Beim Verketten speichert jeder Platz eine Liste.[cite:L:9:3::!1]",
                           "keyword": "Verketten", "summary": summary})
    result = CitationPipeline(placement=model, enrichment=model).run_pass(
        "Beim Verketten speichert jeder Platz eine Liste.", [HASHING])
    assert result.citations[0].summary == "Beim Verketten hat jeder Platz eine Liste."
    assert seen[0]["paragraph"] == HASHING.text
    assert seen[0]["evidence"] == "Beim Verketten speichert jeder Platz eine verkettete Liste seiner Schlüssel."


def test_the_summary_prompt_asks_about_the_quoted_part_of_the_paragraph() -> None:
    # a model reading the prompt alone (the OpenAI path) sees which part of the slide the chip quotes
    prompts: list[str] = []

    def summary(request: LlmRequest) -> str:
        prompts.append("\n".join(m.content for m in request.messages))
        return "Beim Verketten hat jeder Platz eine Liste."

    model = ScriptedModel({"placement": "Beim Verketten speichert jeder Platz eine Liste.[cite:L:9:3::!1]",
                           "keyword": "Verketten", "summary": summary})
    CitationPipeline(placement=model, enrichment=model).run_pass("Beim Verketten speichert jeder Platz eine Liste.",
                                                                 [HASHING])
    quoted = prompts[0].split("Quoted part:", 1)[1]
    assert "Beim Verketten speichert jeder Platz eine verkettete Liste seiner Schlüssel." in quoted
    assert "Hashfunktion" not in quoted and "Hashfunktion" in prompts[0]  # the whole paragraph is its context


def test_a_chip_quoting_code_is_summarised_by_the_statement_introducing_the_code() -> None:
    from citation_core.llm.offline import summarize

    slide = ("Merge-Konflikte\nWenn zwei Branches dieselbe Zeile ändern, kann Git nicht automatisch mergen.\n"
             "Git markiert den Konflikt in der Datei:\n<<<<<<< HEAD\nSystem.out.println(\"Hallo Welt\");\n=======\n"
             "System.out.println(\"Hello World\");\n>>>>>>> branch:file.java")
    quote = "<<<<<<< HEAD\nSystem.out.println(\"Hallo Welt\");\n======="
    assert summarize(slide, evidence=quote) == "Git markiert den Konflikt in der Datei."
    assert summarize(slide).startswith("Wenn zwei Branches")  # without a quote: the slide's first statements
