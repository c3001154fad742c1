"""How well the support audit tells right citations from wrong ones, on the labelled evaluation set
(``python -m bench.audit``; README "Evidence and audit").

Every sentence of ``tests/eval/placement.yml`` with gold sources is cited twice: once to its own best
source (the first gold source: a right citation), once to a source of the same pool that is not among
its gold sources, chosen with a fixed seed (a wrong citation, as a careless model or a copy-paste
would make it). The audit (``citation_core.pipeline.audit``) judges both. Reported:

* flagging precision: of the citations the audit calls unsupported, the share that are wrong;
* flagging recall: of the wrong citations, the share the audit calls unsupported;
* right citations judged supported or partial (not flagged);
* evidence on copied sentences: the share whose evidence passage holds at least 80 % of the sentence's
  content terms (copied sentences quote their source, so their supporting lines are known by
  construction).
Targets (offline): precision and recall of flagging at least 0.9. Exits non-zero when one is missed.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from citation_core.pipeline.evidence import evidence_and_support, find_evidence, meaning_matcher, term_weights
from citation_core.text import stems

from .quality import LOW_OVERLAP, load_eval, material_of, pool, source_key, unit_id

TARGET = 0.93
PARAPHRASE_FLAGGED = 0.05  # at most this share of faithful paraphrases is called unsupported


@dataclass
class Counts:
    right_flagged: int = 0
    right_kept: int = 0
    wrong_flagged: int = 0
    wrong_kept: int = 0
    copied: int = 0
    copied_covered: int = 0
    skipped: int = 0
    paraphrases: int = 0  # right citations of sentences that restate their source in other words
    paraphrases_flagged: int = 0
    low_overlap: int = 0  # of those, sentences sharing at most a third of their words with the source
    low_overlap_flagged: int = 0

    @property
    def precision(self) -> float:
        flagged = self.wrong_flagged + self.right_flagged
        return self.wrong_flagged / flagged if flagged else 0.0

    @property
    def recall(self) -> float:
        wrong = self.wrong_flagged + self.wrong_kept
        return self.wrong_flagged / wrong if wrong else 0.0


def evaluate(seed: int = 11, split: str = "dev") -> Counts:
    rng = random.Random(seed)
    counts = Counts()
    for case in load_eval("placement", split):
        material = material_of(case.get("material", "sample"))
        if material is None:
            counts.skipped += len(case["sentences"])
            continue
        sources = pool(material, unit_id(case.get("material", "sample"), case.get("unit")), case.get("window"),
                       bool(case.get("faqs")))
        by_key = {source_key(s): s for s in sources}
        weight = term_weights(sources)
        matcher = meaning_matcher(sources)
        for sentence in case["sentences"]:
            gold = [g for g in sentence.get("gold", []) if g in by_key]
            if not gold:
                continue
            text = sentence["text"]
            right = by_key[gold[0]]
            wrong_pool = [s for k, s in by_key.items() if k not in sentence["gold"]]
            wrong = rng.choice(wrong_pool)
            for source, is_right in ((right, True), (wrong, False)):
                flagged = evidence_and_support(text, source, weight, matcher)[1].verdict == "unsupported"
                if is_right:
                    counts.right_flagged += flagged
                    counts.right_kept += not flagged
                    if sentence.get("style") == "paraphrase":
                        counts.paraphrases += 1
                        counts.paraphrases_flagged += flagged
                        if float(sentence.get("overlap", 1.0)) <= LOW_OVERLAP:
                            counts.low_overlap += 1
                            counts.low_overlap_flagged += flagged
                else:
                    counts.wrong_flagged += flagged
                    counts.wrong_kept += not flagged
            if sentence.get("style") == "copied":
                found = find_evidence(text, right, weight, matcher)
                words = stems(text)  # content terms, stemmed: "solves" and "solve" are the same claim
                held = stems(found.text) if found else set()
                counts.copied += 1
                counts.copied_covered += len(words & held) >= 0.8 * len(words)
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="dev", choices=["dev", "test", "all"])
    args = parser.parse_args(argv)
    c = evaluate(split=args.split)
    right = c.right_flagged + c.right_kept
    print(f"| measure ({args.split}) | value |")
    print("|---|---:|")
    print(f"| citations judged (right + wrong) | {right} + {c.wrong_flagged + c.wrong_kept} |")
    print(f"| flagging precision (flagged that are wrong) | {c.precision:.2f} |")
    print(f"| flagging recall (wrong that are flagged) | {c.recall:.2f} |")
    print(f"| right citations not flagged | {c.right_kept / right:.2f} |" if right else "| right citations | 0 |")
    if c.paraphrases:
        print(f"| faithful paraphrases flagged unsupported | {c.paraphrases_flagged / c.paraphrases:.3f} "
              f"({c.paraphrases_flagged} of {c.paraphrases}) |")
    if c.low_overlap:
        print(f"| of them sharing ≤ {LOW_OVERLAP:.2f} of their words with the source | "
              f"{c.low_overlap_flagged / c.low_overlap:.3f} ({c.low_overlap_flagged} of {c.low_overlap}) |")
    if c.copied:
        print(f"| evidence holds a copied sentence's terms (≥ 80 %) | {c.copied_covered / c.copied:.2f} "
              f"({c.copied_covered} of {c.copied}) |")
    if c.skipped:
        print(f"\n{c.skipped} sentences skipped: their material is absent", file=sys.stderr)
    paraphrase_ok = not c.paraphrases or c.paraphrases_flagged / c.paraphrases <= PARAPHRASE_FLAGGED
    return 0 if c.precision >= TARGET and c.recall >= TARGET and paraphrase_ok else 1


if __name__ == "__main__":
    sys.exit(main())
