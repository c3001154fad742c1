"""Every error the library raises, in one tree. ``str(err)`` is one line that names the file or field.

    CitationStudioError
    ├── InputError                 bad input from the user (the command line exits with 2)
    │   ├── SourcesError           a sources file or record is malformed
    │   ├── MarkerError            a citation marker does not follow the contract
    │   ├── MaterialError          a deck, transcript, manifest or FAQ file cannot be used
    │   │   └── UnknownUnitError   a lecture unit id that the course does not have
    │   ├── PositionError          an open page or second outside the unit's material
    │   └── ConfigError            llm_config.yml / application.yml is missing an entry or malformed
    │       └── StoreSettingError  the store's setting is no store (also a StoreProblem)
    └── RunError                   a run failed although its input was fine (the command line exits with 1)
        ├── ModelCallError         a model call failed (HTTP error, timeout, malformed reply)
        ├── PlacementError         the placement call failed; carries the run's trace
        ├── WriterError            the answer writer produced no answer
        └── StoreError             the store cannot be opened, read or written (also a StoreProblem)

Library code raises only these; the outermost boundary of a citation run is the one place that turns
any other exception into a recorded internal error, so that the answer is never lost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .pipeline.trace import Trace

__all__ = [
    "CitationStudioError",
    "ConfigError",
    "InputError",
    "MarkerError",
    "MaterialError",
    "ModelCallError",
    "PlacementError",
    "PositionError",
    "RunError",
    "SourcesError",
    "StoreError",
    "StoreProblem",
    "StoreSettingError",
    "UnknownUnitError",
    "WriterError",
]


class CitationStudioError(Exception):
    """Base class: ``str(err)`` is a single line fit for a user."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))


class InputError(CitationStudioError):
    """A file or value given by the user is missing or malformed."""


class SourcesError(InputError):
    """A sources file (or one of its records) is malformed."""


class MarkerError(InputError, ValueError):
    """A citation marker does not follow the contract."""


class MaterialError(InputError):
    """Lecture material (deck, transcript, manifest, FAQ file) cannot be used."""


class UnknownUnitError(MaterialError, LookupError):
    """A lecture unit id that the course does not have."""


class PositionError(InputError):
    """An open page or second outside the unit's material."""


class ConfigError(InputError):
    """``llm_config.yml`` / ``application.yml`` is missing an entry or malformed."""


class RunError(CitationStudioError):
    """A run failed although its input was fine."""


class ModelCallError(RunError):
    """A model call failed (HTTP error, timeout, malformed reply)."""


class StreamCutError(ModelCallError):
    """A streamed reply stopped before its end; ``partial`` is the text that arrived (never altered)."""

    def __init__(self, message: str, partial: str) -> None:
        super().__init__(message)
        self.partial = partial


class PlacementError(RunError):
    """Placement failed; raised out of the citation pipeline with the run's trace (the chat pipeline catches it)."""

    def __init__(self, message: str, trace: Trace) -> None:
        super().__init__(message)
        self.trace = trace


class WriterError(RunError):
    """The answer writer could not produce an answer."""


class StoreProblem(CitationStudioError):
    """The LMS store cannot be used. ``str(err)`` is the line for its operator: the setting the store came from
    (when it came from one), the store with every credential masked, what is wrong and, when that is the
    driver's own message, that message (credentials taken out). ``problem`` alone says what is wrong without
    the store's address or the driver's words, for people who should not see them."""

    def __init__(self, problem: str, location: str | None = None, setting: str | None = None,
                 detail: str | None = None) -> None:
        self.problem = " ".join(problem.split())
        self.location = location
        self.setting = setting
        self.detail = detail
        super().__init__(": ".join(part for part in (setting, location, self.problem, detail) if part))


class StoreSettingError(StoreProblem, ConfigError):
    """``storage.database`` (or ``$CITATION_STUDIO_DB``) is not a store: neither a path nor a usable URL."""


class StoreError(StoreProblem, RunError):
    """The store could not be opened, read or written (a server that does not answer, a file that is no
    database, a schema from a newer version)."""
