"""Where Markdown code is in a text that may still be arriving: fenced blocks and code spans.

``CodeScanner`` reads a text piece by piece, front to back, once. What is decided comes out as ``Run``s of
prose or code, in order; what is not decided yet is held (``pending``):

- the start of a line until it is known whether it opens a fence (a run of backticks that is not complete
  yet, a backtick fence whose line may still hold another backtick);
- a code span's opening backticks and the text after them, until a run of exactly as many backticks closes
  the span (all of it code) or the paragraph ends without one (the backticks are plain text, and the text
  after them is read again).

Inside a fenced block every line is code at once, as it arrives; a block that is never closed is code to
the end of the text. ``end`` decides what is held as the end of the text does.

The rules are CommonMark's, as far as an answer needs them (the same the chips' Markdown renderer,
markdown-it, follows): a fence is three or more backticks or tildes at the start of a line (indented by any
amount: fences inside list items; a backtick fence's line holds no other backtick), closed by a line of the
same character at least as long; a code span lies between two runs of exactly as many backticks within
one paragraph (a blank line, a fence, a heading, a quote or a list item ends the paragraph); a backslash
before a backtick outside code makes it a plain one. Indented code blocks are not read as code (in an
answer, indented lines are the content of list items).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Run:
    """A stretch of the text that is code (``code``) or prose."""

    text: str
    code: bool


_INDENT = re.compile(r"[ \t]*")
_NEXT = re.compile(r"[`\n]")
# lines that end a paragraph: blank, a fence, a heading, a quote, a list item
_BLOCK_START = re.compile(r"[ \t]*(?:\r?\n|`{3}|~{3}|#{1,6}(?:[ \t]|\r?\n)|>|[-*+][ \t]|\d{1,9}[.)][ \t])")
# the start of a line that may still become one of those
_MAYBE_BLOCK_START = re.compile(r"[ \t]*(?:`{0,2}|~{0,2}|#{1,6}|[-*+]|\d{1,9}[.)]?)\r?\Z")
_MAX_CLOSING_LINE = 256  # a line inside a fence longer than this is no closing fence


def merged(runs: list[Run]) -> list[Run]:
    """``runs`` with neighbours of the same kind joined."""
    out: list[Run] = []
    for run in runs:
        if out and out[-1].code == run.code:
            out[-1] = Run(out[-1].text + run.text, run.code)
        elif run.text:
            out.append(run)
    return out


class CodeScanner:
    """Prose and code of a text fed piece by piece (see the module): ``feed`` returns what became decided,
    ``pending`` is what is held, ``end`` decides the rest. Each character is read a bounded number of times
    (but for the text after a run of backticks that turns out to open no span: it is read again)."""

    def __init__(self) -> None:
        self._buf = ""  # read; what is not decided starts at ``_at``
        self._at = 0
        self._fence: tuple[str, int] | None = None  # the open fenced block: its character and length
        self._fence_line: str | None = ""  # the current line inside the block while it may close it
        self._line_start = True  # the text at ``_at`` starts a line
        self._backslashes = 0  # backslashes right before ``_at`` in the prose
        self._searched = 0  # an open code span: how far past ``_at`` its closing run was looked for
        self._out: list[Run] = []

    @property
    def pending(self) -> str:
        """The text read and not decided yet (it starts where the runs given so far end)."""
        return self._buf[self._at:]

    def feed(self, piece: str) -> list[Run]:
        """Read ``piece``; the runs that became decided, in order."""
        self._buf = self._buf[self._at:] + piece
        self._at = 0
        return self._scan(final=False)

    def end(self) -> list[Run]:
        """The text is complete: the runs of what was held."""
        return self._scan(final=True)

    @staticmethod
    def read(text: str, final: bool = True) -> tuple[list[Run], str]:
        """The runs of ``text`` (joined by kind) and, unless ``final``, the text at its end not decided yet."""
        scanner = CodeScanner()
        runs = scanner.feed(text)
        if final:
            runs += scanner.end()
        return merged(runs), scanner.pending

    # --- reading ---------------------------------------------------------------------------------------

    def _emit(self, end: int, code: bool) -> None:
        """The text from ``_at`` to ``end`` is decided."""
        text = self._buf[self._at:end]
        self._at = end
        if not text:
            return
        self._out.append(Run(text, code))
        if code:
            self._backslashes = 0
        else:
            tail = len(text) - len(text.rstrip("\\"))
            self._backslashes = self._backslashes + tail if tail == len(text) else tail

    def _scan(self, final: bool) -> list[Run]:
        while self._at < len(self._buf):
            if self._fence is not None:
                self._in_fence()
            elif not (self._at_line_start(final) if self._line_start else self._in_line(final)):
                break  # more text is needed to decide
        out, self._out = self._out, []
        return out

    def _in_fence(self) -> None:
        """Inside a fenced block: the current line is code; a complete line may close the block."""
        assert self._fence is not None
        nl = self._buf.find("\n", self._at)
        end = len(self._buf) if nl < 0 else nl + 1
        if self._fence_line is not None:
            self._fence_line += self._buf[self._at:min(end, self._at + _MAX_CLOSING_LINE + 1)]
            if len(self._fence_line) > _MAX_CLOSING_LINE:
                self._fence_line = None
        self._emit(end, code=True)
        if nl < 0:
            return
        char, length = self._fence
        closing = re.compile(rf"[ \t]*{re.escape(char)}{{{length},}}[ \t]*\r?\n")
        if self._fence_line is not None and closing.fullmatch(self._fence_line):
            self._fence = None
        self._fence_line = ""
        self._line_start = True

    def _at_line_start(self, final: bool) -> bool:
        """At the start of a line outside code: a fence opens here, or the line is prose. False: undecided."""
        buf = self._buf
        indent = _INDENT.match(buf, self._at)
        assert indent is not None
        first = indent.end()
        if first == len(buf):
            if not final:
                return False
            self._emit(first, code=False)
            return True
        char = buf[first]
        if char in "`~":
            length = _run(buf, first, char)
            if first + length == len(buf) and not final:
                return False  # the run may go on
            if length >= 3:
                nl = buf.find("\n", first)
                info_end = len(buf) if nl < 0 else nl
                if not (char == "`" and "`" in buf[first + length:info_end]):  # no other backtick: a fence
                    if char == "`" and nl < 0 and not final:
                        return False
                    self._fence = (char, length)
                    self._fence_line = None if nl < 0 else ""  # the opening line closes nothing
                    self._emit(len(buf) if nl < 0 else nl + 1, code=True)
                    return True
        self._line_start = False
        return True

    def _in_line(self, final: bool) -> bool:
        """Inside a line of prose: up to its end or the next code span. False: undecided."""
        m = _NEXT.search(self._buf, self._at)
        if m is None:
            self._emit(len(self._buf), code=False)
            return True
        if m.group() == "\n":
            self._emit(m.end(), code=False)
            self._line_start = True
            return True
        start = m.start()
        before = self._buf[self._at:start]
        backslashes = len(before) - len(before.rstrip("\\"))
        if backslashes == len(before):
            backslashes += self._backslashes
        if backslashes % 2:  # a backslash before it: a plain backtick
            self._emit(start + 1, code=False)
            return True
        self._emit(start, code=False)
        return self._code_span(final)

    def _code_span(self, final: bool) -> bool:
        """The text at ``_at`` starts with a run of backticks: the code span it opens, or plain backticks.
        False: undecided (the span may still close)."""
        buf, at = self._buf, self._at
        n = _run(buf, at, "`")
        if at + n == len(buf) and not final:
            return False  # the run may go on
        pos = at + max(n, self._searched)
        while True:
            m = _NEXT.search(buf, pos)
            if m is None:
                pos = len(buf)
                break
            if m.group() == "`":
                k = m.start()
                run = _run(buf, k, "`")
                if k + run == len(buf) and not final:
                    pos = k  # the run may go on
                    break
                if run == n:
                    self._searched = 0
                    self._emit(k + run, code=True)
                    return True
                pos = k + run
                continue
            nl = buf.find("\n", m.end())
            head = buf[m.end():len(buf) if nl < 0 else nl + 1]  # the next line
            if _BLOCK_START.match(head) or (final and not head.strip()):
                return self._plain_backticks(n)  # the paragraph ends: no closing run
            if nl < 0 and not final and _MAYBE_BLOCK_START.match(head):
                pos = m.start()  # the next line may still end the paragraph
                break
            pos = m.end()
        if final:
            return self._plain_backticks(n)
        self._searched = pos - at
        return False

    def _plain_backticks(self, n: int) -> bool:
        """The run of ``n`` backticks at ``_at`` opens no span: it is text; what follows is read again."""
        self._searched = 0
        self._emit(self._at + n, code=False)
        return True


def _run(text: str, at: int, char: str) -> int:
    """How many ``char`` follow each other in ``text`` from ``at``."""
    m = (_BACKTICKS if char == "`" else _TILDES).match(text, at)
    return m.end() - at if m else 0


_BACKTICKS = re.compile(r"`+")
_TILDES = re.compile(r"~+")
