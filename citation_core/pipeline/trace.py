"""What a run records: phases, model calls, failures, usage. Lives in the run, shown as is by the app."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

FailureKind = Literal["summary", "keyword_task", "enrichment_or_rewrite", "placement", "validation", "internal",
                      "writer"]


@dataclass(frozen=True)
class Failure:
    kind: FailureKind
    message: str
    seq: int | None = None
    outcome: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CallRecord:
    task: str
    model_id: str
    model_name: str
    variant: str
    offline: bool
    prompt: str
    output: str
    started: float  # seconds since the run started
    duration: float
    prompt_tokens: int
    completion_tokens: int
    cost: float
    estimated: bool
    seq: int | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ProgressEvent:
    pass_name: str  # "faq" or "lecture" (or "chat" for the writer)
    phase: str
    status: Literal["start", "done", "failed"]
    detail: str = ""


ProgressCallback = Callable[[ProgressEvent], None]


@dataclass
class PhaseRecord:
    name: str
    started: float
    duration: float = 0.0
    inputs: dict[str, Any] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    status: str = "done"


class Trace:
    """Thread-safe record of one citation pass (or one chat turn)."""

    def __init__(self, pass_name: str, progress: ProgressCallback | None = None) -> None:
        self.pass_name = pass_name
        self.t0 = time.monotonic()
        self.phases: list[PhaseRecord] = []
        self.calls: list[CallRecord] = []
        self.failures: list[Failure] = []
        self.warnings: list[str] = []
        self.info: dict[str, Any] = {}
        self._lock = threading.RLock()
        self._progress = progress

    def now(self) -> float:
        return time.monotonic() - self.t0

    def begin(self, name: str, **inputs: Any) -> PhaseRecord:
        rec = PhaseRecord(name, self.now(), inputs=dict(inputs))
        with self._lock:
            self.phases.append(rec)
        self.emit(name, "start")
        return rec

    def end(self, rec: PhaseRecord, status: str = "done", **outputs: Any) -> None:
        rec.duration = self.now() - rec.started
        rec.outputs.update(outputs)
        rec.status = status
        self.emit(rec.name, "failed" if status == "failed" else "done")

    def emit(self, phase: str, status: Literal["start", "done", "failed"], detail: str = "") -> None:
        if self._progress is not None:
            # a broken progress display must never break a run
            with contextlib.suppress(Exception):
                self._progress(ProgressEvent(self.pass_name, phase, status, detail))

    def add_call(self, call: CallRecord) -> None:
        with self._lock:  # token usage is appended from several threads at once
            self.calls.append(call)

    def fail(self, failure: Failure) -> None:
        with self._lock:
            self.failures.append(failure)

    def usage(self) -> dict[str, Any]:
        with self._lock:
            calls = list(self.calls)
        return {
            "calls": len(calls),
            "prompt_tokens": sum(c.prompt_tokens for c in calls),
            "completion_tokens": sum(c.completion_tokens for c in calls),
            "cost": round(sum(c.cost for c in calls), 8),
            "estimated": any(c.estimated for c in calls),
        }

    def to_json(self) -> dict[str, Any]:
        with self._lock:
            return {
                "pass": self.pass_name,
                "info": dict(self.info),
                "warnings": list(self.warnings),
                "phases": [asdict(p) for p in self.phases],
                "calls": [c.to_json() for c in sorted(self.calls, key=lambda c: c.started)],
                "failures": [f.to_json() for f in self.failures],
                "usage": self.usage(),
            }
