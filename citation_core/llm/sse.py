"""Server-sent events read as the WHATWG HTML standard says (§ 9.2.6, "Interpreting an event stream").

Lines end with CRLF, LF or CR; a line starting with ``:`` is a comment; a line is a field ``name: value``
(one space after the colon dropped), or a name alone with an empty value. ``data`` lines are joined by
line breaks, ``event`` names the event, ``id`` sets the last event id (not when it holds NUL), ``retry``
(digits only) the reconnection time; any other field is ignored. A blank line dispatches the event, unless
no data was given: a block of ``retry:``, ``id:`` or ``event:`` lines alone dispatches nothing. An event
left without its blank line when the stream ends is dropped. A byte order mark at the very start is skipped.

``EventStreamDecoder`` takes the body in pieces of any size. It holds at most ``max_pending`` bytes of an
unfinished event: beyond that it raises ``EventTooLong`` with the data received so far (a reader stops
there instead of holding a line of any length). It also keeps the first lines that are no field at all (text
that is not an event stream, such as an HTML error page sent instead), for a reader to name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Event", "EventStreamDecoder", "EventTooLong"]

_LINE_END = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"
SHOWN_CHARS = 120  # of a line that is no field, kept to name it


@dataclass(frozen=True)
class Event:
    data: str
    type: str = "message"
    last_id: str = ""


class EventTooLong(Exception):  # noqa: N818  (a condition of the stream, not a bug)
    """An event grew beyond the decoder's bound before its blank line; ``data`` is its data so far (the
    value of a ``data`` line cut off included)."""

    def __init__(self, limit: int, data: str) -> None:
        super().__init__(f"an event of the stream is longer than {limit:,} bytes")
        self.limit = limit
        self.data = data


class EventStreamDecoder:
    def __init__(self, max_pending: int) -> None:
        self.max_pending = max_pending
        self._foreign: list[str] = []  # lines that are no field (nor comment), the first few
        self._line = bytearray()
        self._cr = False  # the last piece ended with CR: an LF starting the next one belongs to it
        self._started = False
        self._data: list[str] = []
        self._data_bytes = 0
        self._type = ""
        self._last_id = ""
        self.retry: int | None = None

    def feed(self, piece: bytes) -> list[Event]:
        """The events completed by ``piece``."""
        if not self._started:
            self._line += piece
            if len(self._line) < len(_BOM) and _BOM.startswith(bytes(self._line)):
                return []  # maybe a BOM, not yet whole
            piece, self._started = bytes(self._line), True
            self._line.clear()
            if piece.startswith(_BOM):
                piece = piece[len(_BOM):]
        if self._cr and piece.startswith(b"\n"):
            piece = piece[1:]
        self._cr = False
        events: list[Event] = []
        pos = 0
        for m in _LINE_END.finditer(piece):
            if m.group() == b"\r" and m.end() == len(piece):
                self._cr = True  # a CR at the end of the piece: its LF may follow in the next piece
            self._line += piece[pos:m.start()]
            pos = m.end()
            event = self._line_done(bytes(self._line))
            self._line.clear()
            if event is not None:
                events.append(event)
        self._line += piece[pos:]
        if len(self._line) + self._data_bytes > self.max_pending:
            raise EventTooLong(self.max_pending, self._pending_data())
        return events

    def _pending_data(self) -> str:
        data = list(self._data)
        line = bytes(self._line).decode("utf-8", "replace")
        name, _, value = line.partition(":")
        if name == "data":
            data.append(value[1:] if value.startswith(" ") else value)
        return "\n".join(data)

    def _line_done(self, raw: bytes) -> Event | None:
        line = raw.decode("utf-8", "replace")
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._data_bytes += len(raw)
        elif name == "event":
            self._type = value
        elif name == "id":
            if "\0" not in value:
                self._last_id = value
        elif name == "retry":
            if value.isascii() and value.isdigit():
                self.retry = int(value)
        elif not (colon and name.isascii() and name.isidentifier()) and len(self.foreign) < SHOWN_CHARS:
            # a line no server writes as a field (a field of another name is ignored silently)
            self._foreign.append(line[:SHOWN_CHARS])
        return None

    @property
    def foreign(self) -> str:
        """The first lines that were no field at all, on one line (at most ``SHOWN_CHARS``); "" when none."""
        return " ".join(" ".join(self._foreign).split())[:SHOWN_CHARS]

    def _dispatch(self) -> Event | None:
        data, kind = self._data, self._type
        self._data, self._data_bytes, self._type = [], 0, ""
        if not data:
            return None  # no data buffered: nothing is dispatched (the event type is reset too)
        return Event("\n".join(data), kind or "message", self._last_id)
