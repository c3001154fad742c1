"""How often the offline tutor leads with a slide that answers, on real decks nobody here wrote.

``python -m bench.real_decks`` uploads each deck of ``tests/material_real/decks`` the way the Library does
(``add_upload``), then asks its learner questions with an unrelated slide open, in the deck's language. A
question counts as *led* when the answer's first citation of that deck is one of the slides that answer it,
and as *hit* when any citation is.

Two question sets per deck:

* ``*.questions.yml``: the questions the offline writer was tuned on (``--show`` lists each one);
* ``*.heldout.yml``: questions written apart from them and never used for tuning. Only their totals are
  printed, never a question, so that looking at the result cannot tune on them.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from citation_core.chat.chat_pipeline import ChatPipeline
from citation_core.chat.view import ViewPosition
from citation_core.contract import parse
from citation_core.llm.config import CITATION_MODES, CitationMode, load_config
from citation_core.material.library import load_material
from citation_core.material.uploads import Upload, add_upload

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "material_real"
SETS = {"tuning": "questions", "heldout": "heldout"}


@dataclass(frozen=True)
class Asked:
    deck: str
    question: str
    answers: tuple[int, ...]
    cited: tuple[int, ...]
    language: str = "en"  # the learner's
    deck_language: str = "en"

    @property
    def led(self) -> bool:
        return bool(self.cited) and self.cited[0] in self.answers

    @property
    def hit(self) -> bool:
        return bool(set(self.cited) & set(self.answers))


def ask_all(kind: str, root: Path, citation_mode: CitationMode = "placement") -> list[Asked]:
    """Every question of the ``kind`` set of every real deck, asked in one fresh library under ``root``, the
    answers cited by ``citation_mode``."""
    specs = sorted(REAL.glob(f"*.{SETS[kind]}.yml"))
    units: dict[str, int] = {}
    for spec_path in specs:
        spec = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
        deck = REAL / spec["deck"]
        if deck.name not in units:
            up = add_upload(root, Upload(deck.name, deck.read_bytes()))
            units[deck.name] = int(up.unit_id)
    material = load_material(root)
    chat = ChatPipeline(dataclasses.replace(load_config(ROOT, override=""), citation_mode=citation_mode), material)
    out: list[Asked] = []
    for spec_path in specs:
        spec = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
        uid = units[Path(spec["deck"]).name]
        for q in spec["questions"]:
            asked_in = str(q.get("language") or spec["language"])  # a German learner on an English deck
            result = chat(q["question"], ViewPosition(uid, page=int(q["open"])), language=asked_in)
            cited = tuple(int(m.page) for m in parse(result.answer, "client")
                          if m.page and m.entity_id == str(uid))
            out.append(Asked(Path(spec["deck"]).stem, q["question"], tuple(q["answers"]), cited, asked_in,
                             str(spec["language"])))
    return out


def table(kind: str, asked: Sequence[Asked]) -> str:
    rows = ["| deck | questions | answering slide first | answering slide cited |", "|---|---:|---:|---:|"]
    for deck in sorted({a.deck for a in asked}):
        mine = [a for a in asked if a.deck == deck]
        rows.append(f"| {deck} ({kind}) | {len(mine)} | {sum(a.led for a in mine)} | {sum(a.hit for a in mine)} |")
    rows.append(f"| all ({kind}) | {len(asked)} | {sum(a.led for a in asked)} | {sum(a.hit for a in asked)} |")
    other = [a for a in asked if a.language != a.deck_language]
    rows.append(f"| asked in another language than the deck ({kind}) | {len(other)} | {sum(a.led for a in other)} "
                f"| {sum(a.hit for a in other)} |")
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", dest="kind", default="tuning", choices=sorted(SETS))
    parser.add_argument("--show", action="store_true", help="each question of the tuning set with what it cited")
    parser.add_argument("--citation-mode", default="placement", choices=list(CITATION_MODES),
                        help="inline: the offline writer puts each quoted slide's handle behind its quote")
    args = parser.parse_args(argv)
    if args.show and args.kind != "tuning":
        parser.error("--show lists the tuning questions only: the held-out ones stay unseen")
    with tempfile.TemporaryDirectory() as tmp:
        asked = ask_all(args.kind, Path(tmp), args.citation_mode)
    print(table(args.kind, asked))
    if args.show:
        for a in asked:
            print(f"{'led ' if a.led else 'hit ' if a.hit else 'miss'} {a.deck}: {a.question} "
                  f"answers {list(a.answers)} cited {list(a.cited)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
