"""The one-line language instruction put before every prompt of a run (DESIGN 4.4)."""

from __future__ import annotations

from dataclasses import dataclass

from ..text.languages import LANGUAGE_NAMES


@dataclass(frozen=True)
class Language:
    code: str
    name: str  # English name
    native: str


_NATIVE = {"en": "English", "de": "Deutsch", "fr": "Français", "es": "Español", "it": "Italiano",
           "pt": "Português", "nl": "Nederlands", "pl": "Polski", "tr": "Türkçe", "ru": "Русский", "zh": "中文",
           "ja": "日本語"}
LANGUAGES: dict[str, Language] = {code: Language(code, LANGUAGE_NAMES[code], native)
                                  for code, native in _NATIVE.items()}


@dataclass(frozen=True)
class LanguageChoice:
    language: Language
    warning: str | None = None

    @property
    def line(self) -> str:
        """The line before every citation prompt of a run (placement, keyword, summary).

        As in Iris it says how the citations are formatted; it never asks for the answer to be translated
        (placement must return the answer's text unchanged, whatever its language).
        """
        lang = self.language
        return (f"Format all citations in {lang.name} ({lang.native}): write every keyword and summary in "
                f"{lang.name}; never translate or change the answer text itself.")

    def line_for(self, task: str) -> str:
        """The line for one task: placement only hears how citations are formatted; keyword and summary
        hear which language to write in; the writer which language to answer in."""
        lang = self.language
        if task.startswith("placement"):
            return (f"Format all citations for a reader of {lang.name} ({lang.native}); copy the answer exactly "
                    f"as it is, in its own language.")
        if task == "writer":
            return self.writer_line
        return f"Write it in {lang.name} ({lang.native}), whatever the language of the paragraph."

    @property
    def writer_line(self) -> str:
        """The line before the answer writer's prompt."""
        lang = self.language
        return f"Answer in {lang.name} ({lang.native}), whatever the language of the question or the material."


def choose_language(code: str | None) -> LanguageChoice:
    """The language for ``code``; unknown codes fall back to English with a warning."""
    key = (code or "en").strip().lower().replace("_", "-").split("-")[0]
    if key in LANGUAGES:
        return LanguageChoice(LANGUAGES[key])
    return LanguageChoice(LANGUAGES["en"], f"unknown user_language {code!r}: fell back to English")
