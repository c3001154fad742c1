"""Prompt templates (plain text files under ``prompts/``) and how they are rendered."""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib.resources.abc import Traversable

from ..errors import ConfigError
from ..llm.config import LlmConfig, defaults_dir

_PLACEHOLDER = re.compile(r"\{(\w+)\}")
FILES = {
    "placement_lecture": "citation_placement_lecture.txt",
    "placement_faq": "citation_placement_faq.txt",
    "placement_places_lecture": "citation_placement_places_lecture.txt",
    "placement_places_faq": "citation_placement_places_faq.txt",
    "keyword": "citation_keyword.txt",
    "keywords_batched": "citation_keywords_batched.txt",
    "summary": "citation_summary.txt",
    "writer": "chat_writer.txt",
    "judge": "citation_judge.txt",
}
# a configuration folder without one of these takes the packaged template
OPTIONAL = frozenset({"judge", "placement_places_lecture", "placement_places_faq"})


@dataclass(frozen=True)
class Prompts:
    templates: dict[str, str]

    @staticmethod
    def load(directory: Traversable) -> Prompts:
        templates = {}
        for name, filename in FILES.items():
            path = directory.joinpath(filename)
            if not path.is_file() and name in OPTIONAL:
                path = defaults_dir().joinpath("prompts", filename)
            if not path.is_file():
                raise ConfigError(f"{filename}: prompt template not found in {directory}")
            templates[name] = path.read_text(encoding="utf-8")
        return Prompts(templates)

    @staticmethod
    def default() -> Prompts:
        """The templates the package carries (the repository's ``prompts/`` folder)."""
        return Prompts.load(defaults_dir().joinpath("prompts"))

    @staticmethod
    def of(config: LlmConfig) -> Prompts:
        """The templates of a configuration folder, else the packaged ones."""
        return Prompts.default() if config.prompts is None else Prompts.load(config.prompts)

    def render(self, name: str, language_line: str, **values: str) -> str:
        """The language line, a blank line, then the template with ``{Name}`` placeholders filled."""
        # one pass over the template: text filled in (an answer, a slide) is never read as a placeholder
        text = _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), self.templates[name])
        return f"{language_line}\n\n{text}"
