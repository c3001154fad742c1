"""The one YAML reader: a file's data, or one line naming the file, the line and what is wrong."""

from __future__ import annotations

from importlib.resources.abc import Traversable

import yaml

from .errors import InputError
from .text_file import read_text_file

# libyaml's safe loader where PyYAML was built with it (20-30x faster on deeply nested files)
_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(path: Traversable, error: type[InputError] = InputError) -> object:
    """``yaml.safe_load`` of ``path`` (UTF-8, a BOM allowed); any problem raises ``error`` with one line."""
    text = read_text_file(path, error, "YAML file")
    try:
        return yaml.load(text, Loader=_LOADER)  # noqa: S506 (a safe loader)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(err, "problem", None) or type(err).__name__
        if "nesting depth" in problem:  # libyaml's own limit, the same case as a RecursionError below
            raise error(f"{path.name}: invalid YAML: nested too deeply") from None
        raise error(f"{path.name}: invalid YAML{at}: {problem}") from None
    except RecursionError:
        raise error(f"{path.name}: invalid YAML: nested too deeply") from None
