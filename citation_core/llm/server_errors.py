"""What a model server said when it answered with an error status, made fit for a one-line message.

The server's own words are taken from an OpenAI error body (``{"error": {"message": …}}``, which the SDK hands
over as the inner object), the shapes other servers use (``{"error": "…"}`` as Ollama, ``{"message": …}`` as
vLLM, ``{"detail": "…"}`` as FastAPI) or a plain-text body; an HTML page (a proxy's error page) says nothing
worth showing. The words are cleaned of terminal escape sequences and every control or format character
(line breaks become spaces), credentials are masked (the model's API key in any form, the password and
secret parameters of any URL, a bearer or basic token) and the result is cut to ``SHOWN`` characters.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from http import HTTPStatus

from ..lms.credentials import MASK, masked_url, redacted, secret_forms

SHOWN = 160  # characters of the server's message that are shown

_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s\"'<>“”‘’]+")
_TOKEN = re.compile(r"\b(Bearer|Basic)\s+[^\s\"'<>“”‘’]+", re.I)


def server_said(body: object, status: int, content_type: str = "",
                secrets: Iterable[str | None] = ()) -> str | None:
    """The server's own message in the ``body`` (parsed JSON or text) of an error reply with ``status``,
    cleaned, masked and cut; None when it has none worth showing (also when it only repeats the status's
    reason phrase, "Internal Server Error")."""
    text = _message(body)
    if text is None or "html" in content_type.lower() or text.lstrip().startswith("<"):
        return None
    shown = _masked(_clean(text), secret_forms(secrets))
    if not shown or shown.casefold() == _phrase(status).casefold():
        return None
    return shown if len(shown) <= SHOWN else shown[: SHOWN - 1].rstrip() + "…"


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _message(body: object) -> str | None:
    if isinstance(body, str):
        return body
    if isinstance(body, dict):
        for key in ("message", "error", "detail"):
            value = body.get(key)
            if isinstance(value, str) and value.strip():
                return value
            if isinstance(value, dict):  # {"error": {"message": …}} not unwrapped
                return _message(value)
    return None


def _clean(text: str) -> str:
    """``text`` on one line, without escape sequences or any other control or format character."""
    text = _ANSI.sub("", text)
    kept = "".join(" " if c.isspace() else c for c in text if c.isspace() or unicodedata.category(c) not in
                   ("Cc", "Cf", "Cs", "Co", "Cn"))
    return " ".join(kept.split())


def _masked(text: str, secrets: tuple[str, ...]) -> str:
    text = redacted(text, secrets)
    text = _URL.sub(lambda m: masked_url(m.group(0)), text)
    return _TOKEN.sub(lambda m: f"{m.group(1)} {MASK}", text)
