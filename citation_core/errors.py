"""Error types. Every error carries one line that names the file or field and what is wrong."""

from __future__ import annotations


class CitationStudioError(Exception):
    """Base class: ``str(err)`` is a single line fit for a user."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))


class InputError(CitationStudioError):
    """A file or value given by the user is missing or malformed."""


class MaterialError(CitationStudioError):
    """Lecture material (deck, transcript, manifest, FAQ file) cannot be used."""


class ConfigError(CitationStudioError):
    """``llm_config.yml`` / ``application.yml`` is missing an entry or malformed."""


class ModelCallError(CitationStudioError):
    """A model call failed (HTTP error, timeout, malformed reply)."""
