"""Phases 2–3 checked: what the placement model wrote, validated against the original answer.

The model's output is never trusted as text. Validation has three steps:

- ``strip``: take every marker-like thing out of the reply. Markers whose id was given to the model
  are kept with their position; invented ids, final-form markers and malformed ones (full-width
  brackets, ``[ cite:``, lowercase types, ...) are counted by kind and removed.
- ``align``: map each kept marker onto the original answer. An unchanged reply maps one to one. A
  changed one is aligned word by word after its common head and tail (``word_align``: linear in the
  answer's length however many words changed); a marker survives only where the word before it and its
  sentence still match the answer. A reply far longer than the answer is not aligned at all.
- ``protect``: nothing is inserted inside code, inside a marker already in the answer, or inside a word. A
  marker inside a fenced code block, or on one of its fence lines (where it would break the fence), goes
  behind the prose that introduces the block ("Git marks the conflict:"), as in the places mode; one for a
  block that no prose comes before is left out and counted.

Then one chip per claim (``one_chip_per_run``): a run of list items that all cite the same sources (a
list quoting one slide) is cited once, behind its last item, and that chip stands for the whole run
(``Insertion.claim_start``). The last item is where the placement already put a marker, so no new
position is invented, and a reader meets the source after the text it supports, as everywhere else in
the answer; the sentence introducing the list is often only a lead-in ("Slide 5 says:") with nothing
to check against the source. Items citing different sources keep their own chips. Runs are found per
pass: an FAQ chip behind one item of a run of slide citations stays where it is.

The answer text itself is never changed, and every correction is counted in ``Placement``.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from ..contract.patterns import ANY_MARKER_RE, CLIENT_RE, IRIS_RE, insert_at
from ..text.fences import fenced_blocks, prose_regions
from .word_align import match_words

_WS = re.compile(r"\s+")
_WORD = re.compile(r"\S+")
_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
# Anything a model may have meant as a marker: "[" or "［", "cite" in any case, then up to the bracket.
_MARKER_LIKE = re.compile(r"[\[［]\s*cite\s*[:：][^\[\]［］\n]{0,400}[\]］]", re.I)
_SENTENCE_END = re.compile(r"[.!?。！？]\s|\n\s*\n")
# A reply this much longer than the answer is not the answer with markers: it is not aligned.
MAX_REPLY_FACTOR = 3
MAX_REPLY_SLACK = 2_000
MIN_SENTENCE_OVERLAP = 0.5


@dataclass(frozen=True)
class Insertion:
    offset: int  # position in the original answer
    seq: int
    claim_start: int | None = None  # where the claim starts when the marker stands for a run of list items


@dataclass(frozen=True)
class Placement:
    insertions: tuple[Insertion, ...]
    removed_markers: tuple[str, ...] = ()  # ids not given to the model (invented or altered)
    text_changed: bool = False  # the model altered the text around its markers
    reanchored: tuple[int, ...] = ()  # seqs moved onto the original answer by alignment
    dropped: tuple[int, ...] = ()  # seqs that could not be anchored (their words or sentence no longer match)
    moved_out_of_code: tuple[int, ...] = ()
    moved_out_of_words: tuple[int, ...] = ()
    final_form: tuple[str, ...] = ()  # final-form markers the model wrote instead of the ids it was given
    malformed: tuple[str, ...] = ()  # marker-like text that is no marker (full-width brackets, "[ cite:", ...)
    empty_reply: bool = False
    reply_too_long: bool = False
    merged: tuple[int, ...] = ()  # seqs of markers left out because the last item of their run cites the same
    # places mode (``places``): what its JSON reply named that the pipeline left out
    unknown_units: tuple[str, ...] = ()  # keys that are no sentence number of the answer
    wrong_types: tuple[str, ...] = ()  # values that are no list of ids, ids that are no whole numbers
    repeated: tuple[str, ...] = ()  # a sentence or an id named again
    fenced_reply: bool = False  # the JSON came wrapped in a Markdown code fence
    no_place: tuple[int, ...] = ()  # seqs cited for (or placed inside) a code block that no sentence introduces

    @property
    def used_seqs(self) -> tuple[int, ...]:
        """Phase 3: sequence numbers in order of first occurrence, deduplicated."""
        seen: dict[int, None] = {}
        for ins in self.insertions:
            seen.setdefault(ins.seq, None)
        return tuple(seen)

    def corrections(self) -> dict[str, int]:
        """How many of each kind of correction validation made (kinds with none left out)."""
        counts = {
            "unknown ids removed": len(self.removed_markers),
            "final-form markers ignored": len(self.final_form),
            "malformed markers ignored": len(self.malformed),
            "markers dropped (their text no longer matched)": len(self.dropped),
            "markers moved out of code": len(self.moved_out_of_code),
            "markers moved out of words": len(self.moved_out_of_words),
            "empty reply": int(self.empty_reply),
            "reply far longer than the answer": int(self.reply_too_long),
            "unknown sentence numbers removed": len(self.unknown_units),
            "entries of the wrong type removed": len(self.wrong_types),
            "repeated entries removed": len(self.repeated),
            "reply wrapped in a Markdown fence": int(self.fenced_reply),
            "ids of a code block without a sentence before it dropped": len(self.no_place),
        }
        return {kind: n for kind, n in counts.items() if n}


class _Protected:
    """Markers already in the answer and code (fenced blocks, code spans outside them): nothing is inserted
    inside them. Each kind is found once and kept apart: the spans of one kind never overlap, so the one
    holding an offset is a binary search away."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.blocks = fenced_blocks(text)
        self.block_starts = [a for a, _ in self.blocks]
        spans = [m.span() for a, b in prose_regions(text) for m in _CODE_SPAN.finditer(text, a, b)]
        self.kinds = [[m.span() for m in ANY_MARKER_RE.finditer(text)], list(self.blocks), spans]
        self.starts = [[a for a, _ in spans] for spans in self.kinds]

    def block_at(self, off: int) -> tuple[int, int] | None:
        """The fenced block whose lines hold ``off``, its ends included: a marker there would stand inside the
        code or on a fence's own line, which then no longer opens or closes the block."""
        k = bisect.bisect_right(self.block_starts, off) - 1
        return self.blocks[k] if k >= 0 and off <= self.blocks[k][1] else None

    def introduction(self, block_start: int) -> int | None:
        """Where the prose before the fenced block at ``block_start`` ends (blocks right before it passed
        over): a citation of the code stands there. None when no prose comes before the block."""
        end = block_start
        while True:
            while end > 0 and self.text[end - 1].isspace():
                end -= 1
            block = self.block_at(end) if end else None
            if block is None:
                return end or None
            end = block[0]

    def end_around(self, off: int) -> int:
        """The end of the protected span that holds ``off`` strictly inside it (of two, the one that starts
        first); ``off`` itself when none does."""
        around = [spans[k] for spans, starts in zip(self.kinds, self.starts, strict=True)
                  if (k := bisect.bisect_left(starts, off) - 1) >= 0 and off < spans[k][1]]
        return min(around)[1] if around else off


def protected_spans(text: str) -> list[tuple[int, int]]:
    """The spans of markers already in ``text`` and of its code, in order: nothing is inserted inside them."""
    return sorted(span for spans in _Protected(text).kinds for span in spans)


@dataclass(frozen=True)
class Stripped:
    """The placement output without its markers: the text, and where each known marker stood in it."""

    text: str
    found: tuple[tuple[int, int], ...]  # (offset in ``text``, seq)
    removed: tuple[str, ...]  # markers whose id was not given to the model
    final_form: tuple[str, ...] = ()
    malformed: tuple[str, ...] = ()


def strip(answer: str, output: str, allowed: Mapping[str, int]) -> Stripped:
    """Take the markers out of ``output``; marker text that the answer itself contains stays text."""
    in_answer = Counter(m.group(0) for m in _MARKER_LIKE.finditer(answer))
    pieces: list[str] = []
    found: list[tuple[int, int]] = []
    removed: list[str] = []
    final_form: list[str] = []
    malformed: list[str] = []
    pos = length = 0
    for m in _MARKER_LIKE.finditer(output):
        raw = m.group(0)
        if in_answer[raw] > 0:
            in_answer[raw] -= 1
            continue
        chunk = output[pos : m.start()]
        pieces.append(chunk)
        length += len(chunk)
        pos = m.end()
        if IRIS_RE.fullmatch(raw):
            seq = allowed.get(raw)
            if seq is None:
                removed.append(raw)
            else:
                found.append((length, seq))
        elif CLIENT_RE.fullmatch(raw):
            final_form.append(raw)
        else:
            malformed.append(raw)
    pieces.append(output[pos:])
    return Stripped("".join(pieces), tuple(found), tuple(removed), tuple(final_form), tuple(malformed))


@dataclass(frozen=True)
class Aligned:
    mapped: tuple[tuple[int, int], ...]  # (offset in the original answer, seq)
    changed: bool
    reanchored: tuple[int, ...]
    dropped: tuple[int, ...]
    too_long: bool = False


def _same_text(a: str, b: str) -> bool:
    """Whitespace-only differences are not a changed text."""
    return _WS.sub(" ", a).strip() == _WS.sub(" ", b).strip()


def _common_head(a: str, b: str) -> int:
    """Length of the common prefix, found by halving (C-speed string comparisons, not a Python loop)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


class _Sentences:
    """Where the sentences of a text end, found once: the words of the sentence before any offset are then
    a binary search away (not a scan from the start of the text for every marker)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.ends = [m.end() for m in _SENTENCE_END.finditer(text)]

    def words(self, end: int) -> set[str]:
        """Lower-cased words of the sentence that ends at ``end``."""
        k = bisect.bisect_right(self.ends, end - 1) - 1  # the last sentence end before ``end``
        start = self.ends[k] if k >= 0 else 0
        return {w.lower().strip(".,;:!?()\"'“”„«»") for w in _WORD.findall(self.text[start:end])} - {""}


def _sentence_matches(reply: _Sentences, off: int, answer: _Sentences, target: int) -> bool:
    a, b = reply.words(off), answer.words(target)
    if not a or not b:
        return not a and not b
    return len(a & b) / max(len(a), len(b)) >= MIN_SENTENCE_OVERLAP


class _WordMap:
    """Words of a changed middle part of the reply aligned to words of the same part of the answer."""

    def __init__(self, reply: str, answer: str) -> None:
        self.a = [m.span() for m in _WORD.finditer(reply)]
        self.b = [m.span() for m in _WORD.finditer(answer)]
        self.to_b = match_words([reply[s:e] for s, e in self.a], [answer[s:e] for s, e in self.b])
        self.starts = [s for s, _ in self.a]

    def target(self, off: int) -> int | None:
        """Where a marker at ``off`` of the reply part belongs in the answer part, or None."""
        i = bisect.bisect_left(self.starts, off) - 1  # the last word starting before the marker
        if i < 0:  # before the first word: it belongs before the first answer word, if that matched
            return self.b[self.to_b[0]][0] if 0 in self.to_b else None
        j = self.to_b.get(i)
        if j is None:
            return None
        start_a, end_a = self.a[i]
        start_b, end_b = self.b[j]
        return end_b if off >= end_a else start_b + min(off - start_a, end_b - start_b)


def align(answer: str, stripped: Stripped) -> Aligned:
    """Map each marker's offset in the model's text onto the original answer, or drop it."""
    text = stripped.text
    if text == answer:
        return Aligned(stripped.found, False, (), ())
    changed = not _same_text(text, answer)
    if len(text) > MAX_REPLY_FACTOR * len(answer) + MAX_REPLY_SLACK:
        return Aligned((), changed, (), tuple(seq for _, seq in stripped.found), too_long=True)
    # the unchanged head and tail map one to one; both end at a word boundary, so that a marker beside a
    # changed word is judged by the word alignment
    head = _common_head(text, answer)
    if head < min(len(text), len(answer)):
        head = max((text.rfind(c, 0, head) for c in " \n\t"), default=-1) + 1
    tail = _common_head(text[head:][::-1], answer[head:][::-1])
    mid_end_t, mid_end_a = len(text) - tail, len(answer) - tail
    if tail and not text[mid_end_t - 1].isspace():
        skip = next((k for k, c in enumerate(text[mid_end_t:]) if c.isspace()), tail)
        mid_end_t, mid_end_a = mid_end_t + skip, mid_end_a + skip
    words: _WordMap | None = None
    said: tuple[_Sentences, _Sentences] | None = None
    mapped: list[tuple[int, int]] = []
    reanchored: list[int] = []
    dropped: list[int] = []
    for off, seq in stripped.found:
        if off <= head:
            target: int | None = off
        elif off > mid_end_t:
            target = mid_end_a + (off - mid_end_t)
        else:
            words = words or _WordMap(text[head:mid_end_t], answer[head:mid_end_a])
            local = words.target(off - head)
            target = None if local is None else head + local
            said = said or (_Sentences(text), _Sentences(answer))
            if target is not None and not _sentence_matches(said[0], off, said[1], target):
                target = None
        if target is None:
            dropped.append(seq)
            continue
        if changed:
            reanchored.append(seq)
        mapped.append((target, seq))
    return Aligned(tuple(mapped), changed, tuple(reanchored), tuple(dropped))


def _word_end(text: str, offset: int) -> int:
    """``offset`` moved to the end of the word it falls inside (unchanged between words)."""
    if 0 < offset < len(text) and text[offset - 1].isalnum() and text[offset].isalnum():
        while offset < len(text) and text[offset].isalnum():
            offset += 1
    return offset


@dataclass(frozen=True)
class Protected:
    """Insertions moved out of markers, code and words, and what had to move or go."""

    insertions: tuple[Insertion, ...]
    moved: tuple[int, ...]  # seqs moved out of code or markers
    out_of_words: tuple[int, ...]  # seqs moved out of words
    no_place: tuple[int, ...]  # seqs in a fenced block that no prose introduces: left out


def protect(answer: str, mapped: tuple[tuple[int, int], ...]) -> Protected:
    """Move insertions out of markers, code and words (a fenced block's go behind the prose introducing it);
    drop repeats."""
    protected = _Protected(answer)
    moved: list[int] = []
    out_of_words: list[int] = []
    no_place: list[int] = []
    insertions: list[Insertion] = []
    seen: set[tuple[int, int]] = set()
    for off, seq in mapped:
        block = protected.block_at(off)
        if block is not None:
            intro = protected.introduction(block[0])
            if intro is None:
                no_place.append(seq)
                continue
            off = intro
        safe = protected.end_around(off)
        if safe != off or block is not None:
            moved.append(seq)
        word_end = _word_end(answer, safe)
        if word_end != safe:
            out_of_words.append(seq)
            safe = protected.end_around(word_end)
        if (safe, seq) not in seen:
            seen.add((safe, seq))
            insertions.append(Insertion(safe, seq))
    insertions.sort(key=lambda ins: ins.offset)  # stable: same offset keeps the model's order
    return Protected(tuple(insertions), tuple(moved), tuple(out_of_words), tuple(no_place))


def validate_placement(answer: str, output: str, allowed: Mapping[str, int]) -> Placement:
    """Turn the model output into insertions on ``answer`` (``allowed`` maps marker id -> seq)."""
    stripped = strip(answer, output, allowed)
    aligned = align(answer, stripped)
    safe = protect(answer, aligned.mapped)
    insertions, merged = one_chip_per_run(answer, safe.insertions)
    return Placement(insertions, stripped.removed, aligned.changed, aligned.reanchored, aligned.dropped, safe.moved,
                     safe.out_of_words, stripped.final_form, stripped.malformed, empty_reply=not output.strip(),
                     reply_too_long=aligned.too_long, merged=merged, no_place=safe.no_place)


_ITEM = re.compile(r"[ \t]{0,3}(?:[-*+•]|\d{1,9}[.)])(?:[ \t]+|$)")
_FENCE = re.compile(r"[ \t]{0,3}(?:```|~~~)")


@dataclass(frozen=True)
class ListItem:
    list_no: int  # items of one list share it
    start: int  # where the item's text starts (after its mark)
    end: int  # where its last line ends


def list_items(text: str) -> list[ListItem]:
    """The items of the Markdown lists of ``text``, in order. An item holds its indented lines (a fenced block
    inside it too) and the lines that carry on its paragraph; a line at the left margin after a blank line
    or a fence at the left margin ends the list."""
    items: list[ListItem] = []
    list_no = 0
    open_list = blank = in_fence = item_fence = False
    pos = 0
    for line in text.split("\n"):
        start, pos = pos, pos + len(line) + 1
        if in_fence:  # a fence at the left margin, outside any list
            in_fence = not _FENCE.match(line)
            continue
        if item_fence or (open_list and items and line[:1] in (" ", "\t") and line.lstrip().startswith(("```", "~~~"))):
            # a fenced block inside the item: its lines belong to the item, whatever they look like
            item_fence = not item_fence if line.lstrip().startswith(("```", "~~~")) else item_fence
            items[-1] = ListItem(items[-1].list_no, items[-1].start, start + len(line))
            blank = False
            continue
        if not line.strip():
            blank = True
            continue
        item = _ITEM.match(line)
        indented = line[:1] in (" ", "\t") and not item
        if item:
            if not open_list:
                list_no += 1
                open_list = True
            items.append(ListItem(list_no, start + item.end(), start + len(line)))
        elif open_list and (indented or not blank) and not (_FENCE.match(line) and not indented):
            items[-1] = ListItem(items[-1].list_no, items[-1].start, start + len(line))
        else:
            open_list = False
            in_fence = bool(_FENCE.match(line))
        blank = False
    return items


def one_chip_per_run(answer: str, insertions: tuple[Insertion, ...]) -> tuple[tuple[Insertion, ...], tuple[int, ...]]:
    """One chip per claim: of markers that stand behind consecutive items of one list (or one item) and cite
    the same sources, only those behind the last item stay; they stand for the run (``claim_start``: where
    its first item's text starts). Markers outside lists and items citing other sources are kept as they
    are. Returns the insertions and the seqs of the markers left out."""
    items = list_items(answer) if insertions else []
    if len(insertions) < 2 or len(items) < 2:
        return insertions, ()
    groups: list[tuple[int, list[Insertion]]] = []  # markers at one offset
    for ins in insertions:
        if groups and groups[-1][0] == ins.offset:
            groups[-1][1].append(ins)
        else:
            groups.append((ins.offset, [ins]))
    starts = [it.start for it in items]

    def owner(offset: int) -> int | None:
        k = bisect.bisect_right(starts, offset) - 1
        return k if k >= 0 and items[k].start <= offset <= items[k].end else None

    runs: list[list[tuple[int | None, list[Insertion]]]] = []
    for offset, group in groups:
        k = owner(offset)
        if runs and k is not None:
            last_k, last = runs[-1][-1]
            if (last_k is not None and items[last_k].list_no == items[k].list_no and k - last_k <= 1
                    and {i.seq for i in last} == {i.seq for i in group}):
                runs[-1].append((k, group))
                continue
        runs.append([(k, group)])
    kept: list[Insertion] = []
    merged: list[int] = []
    for run in runs:
        first_k, last_group = run[0][0], run[-1][1]
        if len(run) == 1 or first_k is None:
            kept += last_group
            continue
        merged += [i.seq for _, group in run[:-1] for i in group]
        kept += [Insertion(i.offset, i.seq, items[first_k].start) for i in last_group]
    return tuple(kept), tuple(merged)


_CLAIM_FENCE = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[^\n]*$", re.S | re.M)


def claim_text(answer: str, start: int, end: int) -> str:
    """The words of the run of list items between ``start`` and ``end``: without code blocks and list marks,
    on one line."""
    text = _CLAIM_FENCE.sub(" ", answer[start:end])
    text = "\n".join(_ITEM.sub("", line, count=1) for line in text.split("\n"))
    return " ".join(text.split())


def render_insertions(answer: str, insertions: tuple[Insertion, ...], marker_for: Mapping[int, str]) -> str:
    """The original answer with ``marker_for[seq]`` inserted at each insertion's offset."""
    return insert_at(answer, ((ins.offset, marker_for[ins.seq]) for ins in insertions))
