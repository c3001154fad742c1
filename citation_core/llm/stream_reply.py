"""A streamed chat completion put together from its chunks, each checked before it is used.

Every ``chat.completion.chunk`` is parsed from its event's data and checked field by field: a chunk that
is not an object, content or a tool name that is not text, a tool-call piece without a whole-number
``index``, or one whose id clashes with the call already at its index, is a ``ReplyError`` naming the
chunk and the field. A chunk that carries ``{"error": …}`` is the server's own error, reported with its
message (``server_message``). Text beyond ``max_chars`` is not kept: the reply is ``capped`` there and
the reader stops reading.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

__all__ = ["ReplyError", "StreamedReply", "json_kind", "one_line", "server_message"]

SHOWN = 200  # characters of a server's own message (or of a value named in an error) that are shown


class ReplyError(Exception):
    """A reply that cannot be used as it came. ``str(err)`` is one line naming what was wrong; ``keep``: the
    text that arrived before it is still the model's answer (the stream was cut, not malformed)."""

    def __init__(self, message: str, keep: bool = False) -> None:
        super().__init__(message)
        self.keep = keep


def one_line(text: str, limit: int = SHOWN) -> str:
    """``text`` for a message: on one line, characters that do not print escaped, at most ``limit`` long."""
    flat = " ".join(text.split())
    shown = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in flat)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def json_kind(value: object) -> str:
    """What a JSON value is, in JSON's words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "list" if isinstance(value, list) else "object" if isinstance(value, dict) else type(value).__name__


def server_message(data: object) -> str | None:
    """The server's own message when ``data`` is an OpenAI-style error body (``{"error": {"message": …}}``,
    or ``{"error": "…"}``) rather than a completion; None otherwise."""
    if not isinstance(data, dict) or "error" not in data or data.get("choices"):
        return None
    error = data["error"]
    if isinstance(error, dict):
        message = error.get("message")
        text = message if isinstance(message, str) and message.strip() else json.dumps(error, ensure_ascii=False)
    elif isinstance(error, str) and error.strip():
        text = error
    else:
        return None
    return f"the server reported an error: “{one_line(text)}”"


@dataclass
class _Call:
    id: str = ""
    name: str = ""
    arguments: str = ""


@dataclass
class StreamedReply:
    """The reply so far. ``add`` takes each event's data; ``emit`` gets each piece of text as it is kept."""

    emit: Callable[[str], None]
    max_chars: int | None = None
    text: list[str] = field(default_factory=list)
    length: int = 0
    finished: bool = False  # a choice had its finish_reason
    finish_reason: str | None = None  # the last one given ("stop", "length", "tool_calls")
    done: bool = False  # the stream's [DONE] arrived
    capped: bool = False  # text reached max_chars: the rest is not read
    model: str | None = None
    usage: Any = None
    chunks: int = 0
    _calls: dict[int, _Call] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """Whether the stream said that it ended (finish_reason or [DONE])."""
        return self.finished or self.done

    def add(self, data: str) -> None:
        """One event's data: a chunk, or ``[DONE]``."""
        if data.startswith("[DONE]"):
            self.done = True
            return
        self.chunks += 1
        try:
            chunk = json.loads(data)
        except (ValueError, RecursionError) as exc:
            raise ReplyError(f"chunk {self.chunks} of the stream is not valid JSON ({type(exc).__name__}: "
                             f"{one_line(str(exc), 120)})") from None
        self.add_chunk(chunk)

    def add_chunk(self, chunk: object) -> None:
        where = f"chunk {self.chunks} of the stream"
        said = server_message(chunk)
        if said is not None:
            raise ReplyError(said, keep=True)
        if not isinstance(chunk, dict):
            raise ReplyError(f"{where} is a {json_kind(chunk)}, not an object")
        if isinstance(chunk.get("model"), str) and chunk["model"]:
            self.model = chunk["model"]
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self.usage = SimpleNamespace(prompt_tokens=usage.get("prompt_tokens"),
                                         completion_tokens=usage.get("completion_tokens"))
        choices = chunk.get("choices")
        if choices is None:
            return
        if not isinstance(choices, list):
            raise ReplyError(f"{where}: choices is a {json_kind(choices)}, not a list")
        for k, choice in enumerate(choices):
            self._choice(choice, f"{where}: choices[{k}]")

    def _choice(self, choice: object, where: str) -> None:
        if not isinstance(choice, dict):
            raise ReplyError(f"{where} is a {json_kind(choice)}, not an object")
        finish = _text(choice.get("finish_reason"), f"{where}.finish_reason")
        delta = _object(choice.get("delta"), f"{where}.delta")
        content = _text(delta.get("content"), f"{where}.delta.content")
        if content:
            self.add_text(content)
        pieces = delta.get("tool_calls")
        if pieces is not None and not self.capped:
            if not isinstance(pieces, list):
                raise ReplyError(f"{where}.delta.tool_calls is a {json_kind(pieces)}, not a list")
            for k, piece in enumerate(pieces):
                self._tool_call(piece, f"{where}.delta.tool_calls[{k}]")
        if finish:
            self.finished, self.finish_reason = True, finish

    def add_text(self, piece: str) -> None:
        """``piece`` of the reply's text, as far as ``max_chars`` leaves room (then ``capped``)."""
        if self.capped:
            return
        if self.max_chars is not None and self.length + len(piece) > self.max_chars:
            piece, self.capped = piece[: self.max_chars - self.length], True
        if piece:
            self.text.append(piece)
            self.length += len(piece)
            self.emit(piece)

    def _tool_call(self, piece: object, where: str) -> None:
        if not isinstance(piece, dict):
            raise ReplyError(f"{where} is a {json_kind(piece)}, not an object")
        index = piece.get("index")
        if index is None:
            raise ReplyError(f"{where} has no index")
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise ReplyError(f"{where}.index is {_shown(index)}, not a whole number ≥ 0")
        call_id = _text(piece.get("id"), f"{where}.id")
        function = _object(piece.get("function"), f"{where}.function")
        name = _text(function.get("name"), f"{where}.function.name")
        arguments = _text(function.get("arguments"), f"{where}.function.arguments")
        call = self._calls.setdefault(index, _Call())
        if call_id and call.id and call_id != call.id:
            raise ReplyError(f"{where}: index {index} is given to two tool calls (ids “{one_line(call.id, 40)}” "
                             f"and “{one_line(call_id, 40)}”)")
        if name and name == call.name:
            name = None  # the name sent again with a later piece
        if name and call.arguments:
            raise ReplyError(f"{where}: index {index} gets a second tool name (“{one_line(name, 40)}”) after its "
                             "arguments began")
        call.id = call_id or call.id
        call.name += name or ""
        call.arguments += arguments or ""

    def tool_calls(self) -> list[SimpleNamespace]:
        """The tool calls put together, in index order; a call that never got a name is a ``ReplyError``."""
        out = []
        for index, call in sorted(self._calls.items()):
            if not call.name:
                raise ReplyError(f"the tool call at index {index} has no name")
            out.append(SimpleNamespace(id=call.id, function=SimpleNamespace(name=call.name, arguments=call.arguments)))
        return out

    def completion(self) -> SimpleNamespace:
        """The reply in the shape of a chat completion (``openai_chat._response`` reads it)."""
        message = SimpleNamespace(content="".join(self.text), tool_calls=self.tool_calls())
        choice = SimpleNamespace(message=message, finish_reason=self.finish_reason)
        return SimpleNamespace(choices=[choice], usage=self.usage, model=self.model)


def _object(value: object, where: str) -> dict[str, Any]:
    """A JSON object of a chunk; an absent one (null) is empty."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    raise ReplyError(f"{where} is a {json_kind(value)}, not an object")


def _text(value: object, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise ReplyError(f"{where} is a {json_kind(value)}, not text")


def _shown(value: object) -> str:
    return one_line(json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else f"“{value}”", 40)
