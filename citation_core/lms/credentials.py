"""Credentials of a store's URL, kept out of every message.

A URL may carry a password in libpq's every form: in the user info (``user:secret@host``, also with an
unencoded ``@`` in it), as the query parameter ``password=``, or as another secret-like parameter
(``sslpassword``, ``passfile``, a token, a key). :func:`masked_url` shows the URL with each of them as
``***``; :func:`redacted` takes known secret values out of any other text (a driver's message).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import quote, quote_plus, unquote_plus

MASK = "***"
SECRET_WORDS = ("pass", "secret", "token", "key")  # a query parameter whose name holds one of these is secret

_HEAD = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:(?://)?")


def is_secret(name: str) -> bool:
    """Whether the query parameter ``name`` (percent-encoded or not) holds a secret."""
    plain = unquote_plus(name).lower()
    return any(word in plain for word in SECRET_WORDS)


def masked_url(text: str) -> str:
    """``text`` (a URL, well formed or not) with the password of its user info and the value of every
    secret-like query parameter replaced by ``***``.

    The user info runs to the last ``@``: a password holding an unencoded ``@`` is masked whole. When
    what precedes that ``@`` cannot be told apart from a path or a query, all of it is masked.
    """
    head = _HEAD.match(text)
    start = head.end() if head else 0
    rest = text[start:]
    at = rest.rfind("@")
    if at >= 0:
        user, colon, _ = rest[:at].partition(":")
        if colon:
            rest = (f"{user}:{MASK}" if not any(c in user for c in "/?#") else MASK) + rest[at:]
    base, question, query = rest.partition("?")
    if question:
        query = "&".join(_masked_parameter(part) for part in query.split("&"))
    return text[:start] + base + question + query


def _masked_parameter(part: str) -> str:
    name, equals, _ = part.partition("=")
    return f"{name}={MASK}" if equals and is_secret(name) else part


def secret_forms(values: Iterable[str | None]) -> tuple[str, ...]:
    """Each secret value as it is and as a URL writes it, for :func:`redacted`."""
    forms = {form for value in values if value for form in (value, quote(value, safe=""), quote_plus(value))}
    return tuple(sorted(forms, key=len, reverse=True))  # the longest first: one form may hold another


def redacted(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of each secret replaced by ``***``."""
    for secret in secrets:
        text = text.replace(secret, MASK)
    return text
