"""llm_config.yml and application.yml: resolution by role and variant, one-line start-up errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from citation_core.errors import ConfigError
from citation_core.llm.config import load_config

ROOT = Path(__file__).resolve().parents[1]

MODELS = """
models:
  - {id: quiet, type: offline, model: offline-extractive-1}
  - {id: big, type: openai_chat, model: gpt-x, base_url: "http://127.0.0.1:1/v1", api_key_env: KEY,
     cost_per_million: {input: 2, output: 8}}
"""
APP = """
llm_configuration:
  citation_pipeline:
    default: {chat: quiet, keyword_summary: quiet}
    advanced: {chat: big, keyword_summary: big}
  chat_pipeline:
    default: {chat: quiet}
    advanced: {chat: big}
citation: {keyword_strategy: batched}
"""


def write(tmp_path: Path, models: str = MODELS, app: str = APP) -> Path:
    (tmp_path / "llm_config.yml").write_text(models, encoding="utf-8")
    (tmp_path / "application.yml").write_text(app, encoding="utf-8")
    return tmp_path


def test_the_embedded_defaults_use_the_offline_model_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CITATION_STUDIO_LLM", raising=False)
    cfg = load_config(ROOT)
    for pipeline, role in (("citation_pipeline", "chat"), ("citation_pipeline", "keyword_summary"),
                           ("chat_pipeline", "chat")):
        for variant in ("default", "advanced"):
            assert cfg.resolve(pipeline, variant, role).type == "offline"
    assert (cfg.keyword_strategy, cfg.pass_order, cfg.deadline_seconds) == ("batched", "parallel", 60.0)


def test_keyword_summary_always_resolves_through_default(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path), override="")
    assert cfg.resolve("citation_pipeline", "advanced", "chat").id == "big"
    assert cfg.resolve("citation_pipeline", "advanced", "keyword_summary").id == "quiet"
    assert cfg.keyword_strategy == "batched"
    big = cfg.models["big"]
    assert (big.cost_input_per_million, big.cost_output_per_million, big.api_key_env) == (2.0, 8.0, "KEY")


def test_one_setting_switches_every_role_to_another_model(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path), override="big")
    assert cfg.resolve("chat_pipeline", "default", "chat").id == "big"
    assert cfg.resolve("citation_pipeline", "default", "keyword_summary").id == "big"
    with pytest.raises(ConfigError, match="CITATION_STUDIO_LLM=nope: no model with that id in llm_config.yml"):
        load_config(write(tmp_path), override="nope")


@pytest.mark.parametrize(
    ("models", "app", "message"),
    [
        (MODELS, APP.replace("    default: {chat: quiet, keyword_summary: quiet}\n", "    default: {chat: quiet}\n"),
         "application.yml: llm_configuration.citation_pipeline.default.keyword_summary: missing "
         "(pipeline citation_pipeline, variant default, role keyword_summary)"),
        (MODELS, APP.replace("advanced: {chat: big}", "advanced: {chat: huge}"),
         "application.yml: llm_configuration.chat_pipeline.advanced.chat: model id 'huge' is not declared"),
        (MODELS.replace("type: offline", "type: magic"), APP, "llm_config.yml: models[0].type: 'magic' is not one"),
        (MODELS.replace("model: gpt-x, ", ""), APP, "llm_config.yml: models[1].model: missing"),
        (MODELS, APP + "\n  bad: [", "application.yml: invalid YAML at line"),
        (MODELS, APP.replace("batched", "random"), "application.yml: citation.keyword_strategy: 'random'"),
        ("models: []", APP, "llm_config.yml: models: expected a non-empty list"),
    ],
)
def test_malformed_configuration_fails_at_start_up_with_one_line(
    tmp_path: Path, models: str, app: str, message: str
) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, models, app), override="")
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_missing_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "llm_config.yml").write_text(MODELS)
    with pytest.raises(ConfigError, match="application.yml: file not found"):
        load_config(tmp_path, override="")


# --- placement mode ---------------------------------------------------------------------------------------

def test_placement_mode_is_iris_unless_set_globally_or_per_citation_variant(tmp_path: Path) -> None:
    from citation_core.pipeline import CitationPipeline

    cfg = load_config(write(tmp_path), override="")
    assert (cfg.placement_mode_for("default"), cfg.placement_mode_for("advanced")) == ("iris", "iris")
    app = APP.replace("    advanced: {chat: big, keyword_summary: big}\n",
                      "    advanced: {chat: big, keyword_summary: big, placement_mode: iris}\n")
    app = app.replace("{keyword_strategy: batched}", "{keyword_strategy: batched, placement_mode: places}")
    cfg = load_config(write(tmp_path, app=app), override="big")
    assert (cfg.placement_mode_for("default"), cfg.placement_mode_for("advanced")) == ("places", "iris")
    assert cfg.resolve("citation_pipeline", "advanced", "chat").id == "big"  # the override names models only
    assert "placement_mode" not in cfg.llm_configuration["citation_pipeline"]["advanced"]
    assert CitationPipeline.from_config(cfg, "default").placement_mode == "places"
    assert CitationPipeline.from_config(cfg, "advanced").placement_mode == "iris"


@pytest.mark.parametrize(("app", "message"), [
    (APP.replace("{keyword_strategy: batched}", "{placement_mode: sentences}"),
     "application.yml: citation.placement_mode: 'sentences' is not one of iris, places"),
    (APP.replace("advanced: {chat: big, keyword_summary: big}", "advanced: {chat: big, placement_mode: [places]}"),
     "application.yml: llm_configuration.citation_pipeline.advanced.placement_mode: ['places'] is not one of iris, "
     "places"),
    (APP.replace("advanced: {chat: big}", "advanced: {chat: big, placement_mode: places}"),
     "application.yml: llm_configuration.chat_pipeline.advanced.placement_mode: only a citation_pipeline variant "
     "has a placement mode"),
])
def test_a_wrong_placement_mode_stops_start_up_with_one_line_naming_file_and_field(
        tmp_path: Path, app: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, app=app), override="")
    assert str(err.value) == message


# --- a setting of the wrong type ------------------------------------------------------------------------------

SETTINGS_MODELS = {"models": [
    {"id": "quiet", "type": "offline", "model": "offline-extractive-1"},
    {"id": "big", "type": "openai_chat", "model": "gpt-x", "base_url": "http://127.0.0.1:1/v1", "api_key_env": "KEY",
     "temperature": 0.2, "timeout": 30, "max_retries": 2, "cost_per_million": {"input": 2, "output": 8}}]}
SETTINGS_APP = {
    "llm_configuration": {"citation_pipeline": {"default": {"chat": "quiet", "keyword_summary": "quiet"},
                                                "advanced": {"chat": "big"}},
                          "chat_pipeline": {"default": {"chat": "quiet"}, "advanced": {"chat": "big"}}},
    "citation": {"keyword_strategy": "batched", "pass_order": "parallel", "placement_mode": "iris",
                 "mode": "placement", "deadline_seconds": 60},
    "storage": {"database": "data/lms.sqlite3", "connect_timeout": 5},
    "material": {"course_dirs": ["sample_decks"], "max_upload_mb": 50, "library_dir": "data/library"},
}
LLM, APPLICATION = "llm_config.yml", "application.yml"


@pytest.mark.parametrize(("file", "field", "value", "message"), [
    (APPLICATION, "citation", 3, "application.yml: citation: expected a mapping of settings, not 3"),
    (APPLICATION, "citation", ["placement_mode: places"],
     "application.yml: citation: expected a mapping of settings, not ['placement_mode: places']"),
    (APPLICATION, "citation", "iris", "application.yml: citation: expected a mapping of settings, not 'iris'"),
    (APPLICATION, "citation.keyword_strategy", ["batched"],
     "application.yml: citation.keyword_strategy: ['batched'] is not one of sequential, batched"),
    (APPLICATION, "citation.pass_order", {"a": 1},
     "application.yml: citation.pass_order: {'a': 1} is not one of parallel, faq_then_lecture"),
    (APPLICATION, "citation.mode", 1, "application.yml: citation.mode: 1 is not one of placement, inline"),
    (APPLICATION, "citation.deadline_seconds", "60",
     "application.yml: citation.deadline_seconds: expected seconds > 0 (or null), got '60'"),
    (APPLICATION, "llm_configuration", ["citation_pipeline"],
     "application.yml: llm_configuration: missing or not a mapping"),
    (APPLICATION, "llm_configuration.citation_pipeline.advanced", "big",
     "application.yml: llm_configuration.citation_pipeline.advanced: expected role: model-id pairs"),
    (APPLICATION, "storage", 3, "application.yml: storage: expected a mapping of settings, not 3"),
    (APPLICATION, "material", ["sample_decks"],
     "application.yml: material: expected a mapping of settings, not ['sample_decks']"),
    (APPLICATION, "storage.database", 3, "application.yml: storage.database: expected a path or a URL"),
    (APPLICATION, "storage.connect_timeout", "5",
     "application.yml: storage.connect_timeout: expected a whole number of seconds, at least 2 (not '5')"),
    (APPLICATION, "material.course_dirs", "sample_decks",
     "application.yml: material.course_dirs: expected a list of folders, not 'sample_decks'"),
    (APPLICATION, "material.course_dirs", ["sample_decks", 7],
     "application.yml: material.course_dirs[1]: expected a folder, not 7"),
    (APPLICATION, "material.library_dir", ["data"], "application.yml: material.library_dir: expected a folder, "
                                                    "not ['data']"),
    (APPLICATION, "material.max_upload_mb", 2.5,
     "application.yml: material.max_upload_mb: expected a whole number of megabytes > 0, not 2.5"),
    (APPLICATION, "material.max_upload_mb", True,
     "application.yml: material.max_upload_mb: expected a whole number of megabytes > 0, not True"),
    (LLM, "models", {"id": "quiet"}, "llm_config.yml: models: expected a non-empty list"),
    (LLM, "models[1]", "big", "llm_config.yml: models[1]: expected a mapping"),
    (LLM, "models[1].model", 4, "llm_config.yml: models[1].model: missing or not a string"),
    (LLM, "models[1].base_url", 8080, "llm_config.yml: models[1].base_url: expected a URL (a string), not 8080"),
    (LLM, "models[1].api_key_env", ["KEY"],
     "llm_config.yml: models[1].api_key_env: expected the name of an environment variable, not ['KEY']"),
    (LLM, "models[1].temperature", "warm", "llm_config.yml: models[1].temperature: expected a number, not 'warm'"),
    (LLM, "models[1].temperature", True, "llm_config.yml: models[1].temperature: expected a number, not True"),
    (LLM, "models[1].timeout", True, "llm_config.yml: models[1].timeout: expected seconds > 0, not True"),
    (LLM, "models[1].timeout", -1, "llm_config.yml: models[1].timeout: expected seconds > 0, not -1"),
    (LLM, "models[1].max_retries", 2.5,
     "llm_config.yml: models[1].max_retries: expected a whole number ≥ 0, not 2.5"),
    (LLM, "models[1].max_retries", "2", "llm_config.yml: models[1].max_retries: expected a whole number ≥ 0, not '2'"),
    (LLM, "models[1].cost_per_million", 3,
     "llm_config.yml: models[1].cost_per_million: expected a mapping with input and output"),
    (LLM, "models[1].cost_per_million.input", "cheap",
     "llm_config.yml: models[1].cost_per_million.input: expected a number ≥ 0, not 'cheap'"),
    (LLM, "models[1].cost_per_million.output", -8,
     "llm_config.yml: models[1].cost_per_million.output: expected a number ≥ 0, not -8"),
])
def test_a_setting_of_the_wrong_type_stops_start_up_with_one_line_naming_file_and_field(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, file: str, field: str, value: object, message: str) -> None:
    """Both readers of the configuration run as the app starts: the model roles and the app's own settings."""
    import copy
    import re

    import yaml

    from studio.settings import load_settings

    files = {LLM: copy.deepcopy(SETTINGS_MODELS), APPLICATION: copy.deepcopy(SETTINGS_APP)}
    *parents, last = re.findall(r"[^.\[\]]+", field)
    node = files[file]
    for key in parents:
        node = node[int(key)] if key.isdigit() else node[key]
    node[int(last) if last.isdigit() else last] = value
    for name, data in files.items():
        (tmp_path / name).write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    monkeypatch.setenv("CITATION_STUDIO_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv("CITATION_STUDIO_DB", raising=False)
    monkeypatch.delenv("CITATION_STUDIO_LIBRARY", raising=False)
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path, override="")
        load_settings()
    assert str(err.value) == message


def test_the_settings_of_the_wrong_type_table_starts_from_a_valid_configuration(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import yaml

    from studio.settings import load_settings

    for name, data in {LLM: SETTINGS_MODELS, APPLICATION: SETTINGS_APP}.items():
        (tmp_path / name).write_text(yaml.safe_dump(data), encoding="utf-8")
    monkeypatch.setenv("CITATION_STUDIO_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv("CITATION_STUDIO_DB", raising=False)
    monkeypatch.delenv("CITATION_STUDIO_LIBRARY", raising=False)
    cfg = load_config(tmp_path, override="")
    big = cfg.models["big"]
    assert (big.base_url, big.api_key_env, big.temperature, big.timeout, big.max_retries) == (
        "http://127.0.0.1:1/v1", "KEY", 0.2, 30.0, 2)
    settings = load_settings()
    assert (settings.course_dirs, settings.max_upload_mb) == ((tmp_path / "sample_decks",), 50)
