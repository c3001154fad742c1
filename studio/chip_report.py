"""Which marker candidates of a text the chip renderer turns into chips, and why the others stay text.

The same rules as the renderer (citation_core/components/chips/chips.js with citation_parser.js),
applied to the same HTML (``render_markdown``): a candidate inside code or an image's description
never reaches the renderer; candidates separated only by whitespace form one group; a group
becomes one chip when every member is exactly one final or stored marker (the Artemis client
pattern); a candidate that is not one stays text and, not being whitespace, ends the group (as in the
Artemis client, which never sees it as a citation). tests/test_chips_browser.py checks this against the
renderer in Chromium for every contract vector.

Every ``[cite:`` of the text gets a row, whatever follows it (``marker_texts``): a marker-looking text with a
bracket inside a field, or without a closing bracket, is no candidate and says why it stays text.

Each row also says how the Artemis client draws the marker (``artemis_groups`` of the contract, on the
pasted text) beside how our renderer draws it, and whether our chip can act on it. Given the course's
versions, a chip's row also says when its stored version is not the unit's: older (stale) or newer (a
citation from another copy of the material).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

from citation_core.contract import artemis_groups, chip_kind, chip_label, parse
from citation_core.errors import InputError
from citation_core.lms.render import render_markdown
from citation_core.lms.versions import VersionLookup, version_standing

# A marker-looking text without brackets inside, line breaks included (the renderer's candidates never span one).
LOOSE_RE = re.compile(r"\[cite:[^\[\]]*\]")
OPENING = "[cite:"
_BRACKETS_RE = re.compile(r"[\[\]\n]")
VOID = {"br", "hr", "img", "input", "meta", "link", "wbr", "col", "area", "base", "source", "track", "embed"}

NOT_A_CANDIDATE = "inside code or an image's description: stays text"
LINE_BREAK = "spans a line break: stays text"
UNREADABLE = "not a final or stored marker for the client parser (e.g. intermediate form, missing fields)"
BRACKET = "a field holds '[' or ']': stays text"
NO_CLOSE = "no ']' closes it: stays text"


@dataclass(frozen=True)
class CandidateRow:
    marker: str
    chip: bool
    why: str  # why it stays text; for a chip, what its stored version means when it is not the unit's ("" else)
    group: int | None = None  # index of the chip among the text's chips (chips in a group share it)
    ours: str = "text"  # how our renderer draws it: "text", or "<kind> · <label>" (+ " · group of N")
    artemis: str = "text"  # the same for the Artemis client
    cannot_act: str = ""  # why our chip's click does nothing although it is drawn ("" when it acts or is text)

    @property
    def differs(self) -> bool:
        return self.ours != self.artemis


def drawn(kind: str, label: str, size: int) -> str:
    return f"{kind} · {label}" + (f" · group of {size}" if size > 1 else "")


def cannot_act(raw: str) -> str:
    """Why our chip for ``raw`` (one marker) cannot use its position, as chip_model.js says it ("" when it can)."""
    (m,) = parse(raw, "stored")
    kind = chip_kind(m)
    if kind == "video" and not (m.start or "").isdigit():
        return "start is not a number of seconds: the chip cannot play it" if m.start else \
            "no start second: the chip cannot play it"
    if kind == "slide" and not (m.page or "").isdigit():
        return "page is not a page number: the chip cannot open it"
    return ""


def version_note(raw: str, versions_of: VersionLookup | None) -> str:
    """What the stored version of ``raw`` (one lecture marker) means when it is not its unit's current one, as
    the chip's tooltip warns: stale when older, from another copy of the material when newer ("" else)."""
    (m,) = parse(raw, "stored")
    current = versions_of(m.entity_id) if versions_of is not None and m.type == "L" else None
    standing = version_standing(m.version, current)
    if current is None or standing == "current":
        return ""
    what, now = ("attachment", current.attachment) if (m.version or "").startswith("va") else ("video", current.video)
    if standing == "newer":
        return (f"{m.version} is newer than this unit's {what} version {now}: a citation from another copy of the "
                "material, newer than this one; a click opens the unit")
    return (f"stale: {m.version} is older than this unit's {what} version {now}: the material changed since it "
            "was cited; a click opens the unit")


def parses(raw: str) -> bool:
    """Exactly one stored/final marker, and nothing else (the client's parseMarker)."""
    found = parse(raw, "stored")
    return len(found) == 1 and tuple(found[0].span) == (0, len(raw))


class _Groups(HTMLParser):
    """The candidates of rendered HTML in document order, each with the group it belongs to."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[list[tuple[str, str]]] = [[]]
        self.skip = 0  # depth inside a cite-raw span
        self.candidates: list[tuple[str, int, bool]] = []  # raw, group id, group renders as a chip
        self.groups = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skip:
            self.skip += tag not in VOID
            return
        values = dict(attrs)
        if tag == "span" and "cite-raw" in (values.get("class") or "").split():
            self.stack[-1].append(("cite", values.get("data-cite") or ""))
            self.skip = 1
            return
        self.stack[-1].append(("other", ""))
        if tag not in VOID:
            self.stack.append([])

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not self.skip:
            self.stack[-1].append(("other", ""))

    def handle_endtag(self, tag: str) -> None:
        if self.skip:
            self.skip -= 1
            return
        if tag not in VOID and len(self.stack) > 1:
            self._close(self.stack.pop())

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.stack[-1].append(("text", data))

    def close(self) -> None:
        super().close()
        while self.stack:
            self._close(self.stack.pop())

    def _close(self, parts: list[tuple[str, str]]) -> None:
        """Groups of markers with only whitespace between; a marker the client cannot read is no citation to
        it: it stays text (``ok`` False) and ends the group before it."""
        group: list[str] = []
        for kind, value in [*parts, ("other", "")]:
            if kind == "cite" and parses(value):
                group.append(value)
                continue
            if kind == "text" and group and not value.strip():
                continue
            if group:
                self.candidates.extend((raw, self.groups, True) for raw in group)
                self.groups += 1
                group = []
            if kind == "cite":
                self.candidates.append((value, self.groups, False))
                self.groups += 1


def _closings(text: str) -> tuple[dict[int, int], dict[int, int]]:
    """Within each line of ``text``: the ``]`` that closes each ``[`` (nesting counted), and for each line (by the
    offset of its start) the offset of its last ``]``. One pass over the brackets and line breaks."""
    closes: dict[int, int] = {}
    last: dict[int, int] = {}
    line = 0
    stack: list[int] = []
    for m in _BRACKETS_RE.finditer(text):
        char, at = m.group(0), m.start()
        if char == "\n":
            line, stack = at + 1, []
        elif char == "[":
            stack.append(at)
        else:
            last[line] = at
            if stack:
                closes[stack.pop()] = at
    return closes, last


def marker_texts(text: str) -> list[tuple[int, int]]:
    """The span of the marker-looking text at every ``[cite:`` of ``text``, in order, whatever follows it.

    Without a bracket before its first ``]``, it runs to that ``]`` (line breaks included); else, within its
    line, to the ``]`` that closes its ``[`` (nested brackets counted), else to the line's last ``]`` after it,
    else to the end of the line. Openings inside another one's text get their own span.
    """
    closes, last = _closings(text)
    spans: list[tuple[int, int]] = []
    start = text.find(OPENING)
    while start >= 0:
        loose = LOOSE_RE.match(text, start)
        if loose is not None:
            spans.append(loose.span())
        else:
            line_start = text.rfind("\n", 0, start) + 1
            line_end = text.find("\n", start)
            line_end = len(text) if line_end < 0 else line_end
            end = closes.get(start, last.get(line_start, -1))
            spans.append((start, end + 1 if end > start else line_end))
        start = text.find(OPENING, start + 1)
    return spans


def _stays_text(raw: str) -> str:
    """Why a marker-looking text that is no renderer candidate stays text (line break, bracket, no closing)."""
    if "\n" in raw:
        return LINE_BREAK
    if "[" in raw[1:] or "]" in raw[:-1]:
        return BRACKET
    if not raw.endswith("]"):
        return NO_CLOSE
    return NOT_A_CANDIDATE


def chip_report(text: str, versions_of: VersionLookup | None = None) -> list[CandidateRow]:
    """One row per marker-like text in ``text``, in order: whether it renders as (part of) a chip, and why not;
    with ``versions_of`` (the units' current versions by id), what a chip's stored version means when it is
    not its unit's."""
    try:
        html = render_markdown(text)
    except InputError as exc:
        return [CandidateRow(text[a:b], False, f"not rendered: {exc}") for a, b in marker_texts(text)]
    groups = _Groups()
    groups.feed(html)
    groups.close()
    pending = list(groups.candidates)
    sizes: dict[int, int] = {}
    for _, group, ok in pending:
        sizes[group] = sizes.get(group, 0) + ok
    artemis: dict[int, str] = {}  # start offset of a marker in ``text`` -> how the Artemis client draws it
    for g in artemis_groups(text):
        members = [m for m in parse(text, "stored") if g["span"][0] <= m.span[0] < g["span"][1]]
        for m, c in zip(members, g["chips"] or [], strict=False):
            artemis[m.span[0]] = drawn(c["kind"], c["label"], len(members))
    chip_ids: dict[int, int] = {}
    rows: list[CandidateRow] = []
    for start, end in marker_texts(text):
        raw = text[start:end]
        theirs = artemis.get(start, "text")
        if not pending or pending[0][0] != raw:
            rows.append(CandidateRow(raw, False, _stays_text(raw), artemis=theirs))
            continue
        _, group, ok = pending.pop(0)
        if ok:
            chip = chip_ids.setdefault(group, len(chip_ids))
            (m,) = parse(raw, "stored")
            inert = cannot_act(raw)
            rows.append(CandidateRow(raw, True, "" if inert else version_note(raw, versions_of), chip,
                                     drawn(chip_kind(m), chip_label(m), sizes[group]), theirs, inert))
        else:
            rows.append(CandidateRow(raw, False, UNREADABLE, artemis=theirs))
    return rows
