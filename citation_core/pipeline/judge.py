"""An optional model that judges support (the ``judge`` role), with its verdicts cached per sentence and source.

The lexical verdict of ``evidence.judge_support`` is always computed; with a judge configured, the
model reads the sentence and the evidence passage and its verdict replaces the lexical one. A failed or
unreadable judge call keeps the lexical verdict and says so in the reason.
"""

from __future__ import annotations

import re
import threading

from ..errors import ModelCallError
from ..sources import FaqSource, Source
from .evidence import Evidence, Support
from .model_calls import RoleModel, call_model
from .prompts import Prompts
from .trace import Trace

_VERDICT = re.compile(r"^\W*(supported|partial|unsupported)\b\W*(.*)", re.I | re.S)
_SCORES = {"supported": 1.0, "partial": 0.5, "unsupported": 0.0}


def _key(sentence: str, source: Source) -> tuple[str, str]:
    return sentence, f"F{source.id}" if isinstance(source, FaqSource) else source.uuid


class ModelJudge:
    """Asks the judge model once per (sentence, source); thread-safe, shared by the runs of one pipeline."""

    def __init__(self, role: RoleModel, prompts: Prompts) -> None:
        self.role = role
        self.prompts = prompts
        self._cache: dict[tuple[str, str], Support] = {}
        self._lock = threading.Lock()

    def judge(self, trace: Trace, sentence: str, evidence: Evidence | None, source: Source,
              lexical: Support) -> Support:
        if evidence is None:
            return lexical
        key = _key(sentence, source)
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None:
            return cached
        prompt = self.prompts.render("judge", "", Sentence=sentence, Evidence=evidence.text).lstrip()
        try:
            reply = call_model(trace, self.role, "judge", prompt, {"sentence": sentence, "evidence": evidence.text})
        except ModelCallError as exc:
            return Support(lexical.verdict, lexical.score, f"{lexical.reason} (judge failed: {exc})")
        m = _VERDICT.match(reply.content.strip())
        if m is None:
            return Support(lexical.verdict, lexical.score, f"{lexical.reason} (judge reply unreadable)")
        verdict = m.group(1).lower()
        reason = " ".join(m.group(2).split()).lstrip("-–: ") or "no reason given"
        support = Support(verdict, _SCORES[verdict], f"judge {self.role.model_id}: {reason}")  # type: ignore[arg-type]
        with self._lock:
            self._cache[key] = support
        return support
