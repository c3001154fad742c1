"""The one reader of a user's text file: its text, or one line naming the file and what is wrong."""

from __future__ import annotations

from importlib.resources.abc import Traversable

from .errors import InputError


def read_text_file(path: Traversable, error: type[InputError], kind: str = "file") -> str:
    """The text of ``path`` (UTF-8, a BOM allowed and dropped). A missing file, a directory, something that
    is not a regular file, a file that cannot be read or is not UTF-8 raise ``error`` with one line that
    starts with the file's name; ``kind`` names what the file should have been ("a directory, not a
    transcript file")."""
    name = path.name
    if not path.is_file():
        raise error(f"{name}: {_not_a_file(path, kind)}")
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise error(f"{name}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    except OSError as err:
        raise error(f"{name}: cannot read the file ({err.strerror})") from None


def _not_a_file(path: Traversable, kind: str) -> str:
    """What is at ``path`` when it is not a regular file (said without opening it)."""
    if path.is_dir():
        return f"is a directory, not a {kind}"
    exists = getattr(path, "exists", None)  # a package resource has no exists(): there it is simply not found
    if exists is not None and exists():
        return "is not a regular file (a device, pipe or socket?)"
    return f"file not found ({path})"
