"""What a change to the library did, in words: one message per upload, per transcript added, replaced or removed,
and the question asked before a transcript is removed.

Messages are plain text (names as they were uploaded); whoever shows them as Markdown escapes them.
"""

from __future__ import annotations

from ..text.languages import language_label, language_name
from .uploads import TranscriptChange, TranscriptResult, UploadResult


def upload_message(res: UploadResult) -> str:
    """What an upload did: the unit added or its deck replaced (or left as it was, the same file), naming the
    course and lecture it is in, then what happened to the transcript uploaded with it."""
    name = f"“{res.unit_name}”"
    place = f"the course “{res.course_name}”, lecture “{res.lecture_name}”"
    where = (f"unit {res.unit_id}, {res.pages} pages, language {language_label(res.language)}, "
             f"attachment version {res.attachment_version}")
    told = f" {_with_the_deck(res.transcript)}" if res.transcript is not None else ""
    if not res.replaced:
        return f"Added {name} to {place} ({where}).{told}"
    if res.deck_changed:
        return f"Replaced {name} in {place} ({where}).{told} Answers stored for an older version now show as stale."
    if res.transcript is None or res.transcript.action == "unchanged":
        return (f"{name} in {place} is unchanged: the deck is the same file as the stored one, so its version "
                f"stays ({where}).{told}")
    stale = " Answers stored for the old transcript now show as stale." if res.stales_answers else ""
    return (f"The deck of {name} in {place} is the same file as the stored one, so its version stays "
            f"({where}).{told}{stale}")


def _with_the_deck(change: TranscriptChange) -> str:
    """The transcript uploaded with a deck: "Transcript talk.vtt added (English, 412 cues)."."""
    if change.action == "unchanged":
        return f"Transcript {change.name} is the same file as the stored one ({_read(change)})."
    verb = "replaced the stored one" if change.action == "replaced" else "added"
    return f"Transcript {change.name} {verb} ({_read(change)})."


def transcript_message(res: TranscriptResult) -> str:
    """What adding, replacing or removing a unit's transcript on its own did; the deck always stays."""
    unit = f"unit {res.unit_id} “{res.unit_name}”"
    change = res.change
    if change.action == "added":
        return f"Transcript {change.name} added to {unit} ({_read(change)})."
    if change.action == "replaced":
        return (f"Transcript {change.name} replaced the transcript of {unit} ({_read(change)}); the deck stays. "
                f"Answers stored for the old transcript now show as stale.")
    if change.action == "unchanged":
        return (f"Transcript {change.name} is the same file as the transcript of {unit}: nothing changed "
                f"({_read(change)}).")
    return (f"Transcript {change.name} removed from {unit}; the deck stays. {_CANNOT_OPEN}")


_CANNOT_OPEN = "Answers stored earlier can no longer open the transcript they cite."


def removal_question(unit_id: int, unit_name: str, transcript_name: str) -> str:
    """What is asked before a unit's transcript is removed (it cannot be undone)."""
    return (f"Remove the transcript {transcript_name} from unit {unit_id} “{unit_name}”? The deck stays; "
            f"{_CANNOT_OPEN[0].lower()}{_CANNOT_OPEN[1:]}")


def _read(change: TranscriptChange) -> str:
    """"English, 412 cues", or "language not told (too little text), 3 cues"."""
    cues = f"{change.cues:,} cue{'' if change.cues == 1 else 's'}"
    if change.language is None:
        return f"language not told (too little text), {cues}"
    return f"{language_name(change.language)}, {cues}"
