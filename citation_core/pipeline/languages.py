"""The one-line language instruction put before every prompt of a run (DESIGN 4.4)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Language:
    code: str
    name: str  # English name
    native: str


LANGUAGES: dict[str, Language] = {
    lang.code: lang
    for lang in (
        Language("en", "English", "English"),
        Language("de", "German", "Deutsch"),
        Language("fr", "French", "Français"),
        Language("es", "Spanish", "Español"),
        Language("it", "Italian", "Italiano"),
        Language("pt", "Portuguese", "Português"),
        Language("nl", "Dutch", "Nederlands"),
        Language("pl", "Polish", "Polski"),
        Language("tr", "Turkish", "Türkçe"),
        Language("ru", "Russian", "Русский"),
        Language("zh", "Chinese", "中文"),
        Language("ja", "Japanese", "日本語"),
    )
}


@dataclass(frozen=True)
class LanguageChoice:
    language: Language
    warning: str | None = None

    @property
    def line(self) -> str:
        lang = self.language
        return (
            f"Write every word of your output in {lang.name} ({lang.native}), "
            f"whatever the language of the answer or the sources."
        )


def choose_language(code: str | None) -> LanguageChoice:
    """The language for ``code``; unknown codes fall back to English with a warning."""
    key = (code or "en").strip().lower().replace("_", "-").split("-")[0]
    if key in LANGUAGES:
        return LanguageChoice(LANGUAGES[key])
    return LanguageChoice(LANGUAGES["en"], f"unknown user_language {code!r}: fell back to English")
