"""The Ask page's status while a question is answered: what happens now, in the words of the citation mode
that runs.

Cited by placement, the writer writes and then the FAQ and lecture passes place the citations, phase by
phase. Cited inline (``citation.mode: inline``), the model puts its citations behind its sentences while it
writes, and no placement pass runs: the status says so, then how many chips are still being finished
(their keywords and summaries) once the text is complete.
"""

from __future__ import annotations

from dataclasses import dataclass

from citation_core.pipeline.trace import ProgressEvent

from .text import plural

WRITING = "Writing the answer…"
WRITING_INLINE = "The model writes and cites its sources as it goes…"


@dataclass(frozen=True)
class StatusLine:
    label: str  # the status's label from now on
    log: str | None = None  # a line for the status's log: a step that ended


def status_line(event: ProgressEvent, inline: bool) -> StatusLine:
    """What the status shows after ``event`` of a turn cited inline (``inline``) or by placement."""
    ok = "✅" if event.status == "done" else "⚠️"
    if event.pass_name == "chat":  # the writer
        if event.status == "start":
            return StatusLine(WRITING_INLINE if inline else WRITING)
        if event.status == "failed":
            return StatusLine("Writing failed", f"{ok} writing failed")
        if inline:
            return StatusLine("Written · finishing the chips…", f"{ok} written and cited as it went")
        return StatusLine("Adding citations…", f"{ok} answer written")
    if event.pass_name == "inline" and event.phase == "finish":
        if event.status == "start":
            chips = int(event.detail) if event.detail.isdigit() else 0
            what = "its keyword and summary" if chips == 1 else "their keywords and summaries"
            return StatusLine(f"Finishing {plural(chips, 'chip')} · {what}…")
        return StatusLine("Finishing the answer…", f"{ok} chips finished")
    if event.status == "start":
        return StatusLine(f"Adding citations · {event.pass_name} pass · {event.phase}…")
    return StatusLine(f"Adding citations · {event.pass_name} pass · {event.phase}…",
                      f"{ok} {event.pass_name} · {event.phase}")
